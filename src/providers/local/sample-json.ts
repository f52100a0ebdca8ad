// A deterministic value that satisfies a JSON Schema well enough for demo tool calls and
// structured output: properties filled, first enum value, simple defaults per type.

type Schema = Record<string, unknown>;

/**
 * Characters of the hint (the user's text) that the strings of one value hold in all. Each string
 * property repeats the hint: without a bound, a schema of a thousand string properties and a 1 MiB
 * prompt spent 2.7 s building a value too long for a string and then failed. With it the value is
 * as long as the schema plus this.
 */
export const HINT_BUDGET_CHARS = 64 * 1024;

export interface SampleOptions {
  /**
   * Fill only the properties an object's `required` list names (all of them when it has none).
   * Tool arguments want this: an agent's optional knobs (a shell tool's `workdir`, `shell`,
   * `login`…) filled with the hint would change what the call does.
   */
  requiredOnly?: boolean;
}

export function sampleFromSchema(
  schema: Schema | undefined,
  hint: string,
  options: SampleOptions = {},
  depth = 0,
  budget = { chars: HINT_BUDGET_CHARS },
): unknown {
  if (!schema || depth > 6) return {};
  if (schema.const !== undefined) return schema.const;
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return schema.enum[0];
  if (schema.default !== undefined) return schema.default;
  const anyOf = (schema.anyOf ?? schema.oneOf) as Schema[] | undefined;
  if (Array.isArray(anyOf) && anyOf.length > 0)
    return sampleFromSchema(anyOf[0], hint, options, depth + 1, budget);
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  switch (String(type ?? (schema.properties ? "object" : "string")).toLowerCase()) {
    case "object": {
      const props = (schema.properties ?? {}) as Record<string, Schema>;
      const required = Array.isArray(schema.required) ? new Set(schema.required) : undefined;
      const out: Record<string, unknown> = {};
      for (const [name, sub] of Object.entries(props)) {
        if (options.requiredOnly && required && !required.has(name)) continue;
        out[name] = sampleFromSchema(sub, hint, options, depth + 1, budget);
      }
      return out;
    }
    case "array":
      return [sampleFromSchema(schema.items as Schema | undefined, hint, options, depth + 1, budget)];
    case "integer":
    case "number":
      return typeof schema.minimum === "number" ? schema.minimum : 1;
    case "boolean":
      return true;
    case "null":
      return null;
    default:
      return spend(hint, budget);
  }
}

/** As much of the hint as the budget has left (never half a surrogate pair); the budget pays for it. */
function spend(hint: string, budget: { chars: number }): string {
  if (hint.length <= budget.chars) {
    budget.chars -= hint.length;
    return hint;
  }
  let end = Math.max(0, budget.chars);
  if (end > 0 && /[\uD800-\uDBFF]/.test(hint[end - 1])) end--;
  budget.chars = 0;
  return hint.slice(0, end);
}
