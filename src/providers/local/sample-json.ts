// A deterministic value that satisfies a JSON Schema well enough for demo tool calls and
// structured output: properties filled, first enum value, simple defaults per type.

type Schema = Record<string, unknown>;

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
): unknown {
  if (!schema || depth > 6) return {};
  if (schema.const !== undefined) return schema.const;
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return schema.enum[0];
  if (schema.default !== undefined) return schema.default;
  const anyOf = (schema.anyOf ?? schema.oneOf) as Schema[] | undefined;
  if (Array.isArray(anyOf) && anyOf.length > 0) return sampleFromSchema(anyOf[0], hint, options, depth + 1);
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  switch (String(type ?? (schema.properties ? "object" : "string")).toLowerCase()) {
    case "object": {
      const props = (schema.properties ?? {}) as Record<string, Schema>;
      const required = Array.isArray(schema.required) ? new Set(schema.required) : undefined;
      const out: Record<string, unknown> = {};
      for (const [name, sub] of Object.entries(props)) {
        if (options.requiredOnly && required && !required.has(name)) continue;
        out[name] = sampleFromSchema(sub, hint, options, depth + 1);
      }
      return out;
    }
    case "array":
      return [sampleFromSchema(schema.items as Schema | undefined, hint, options, depth + 1)];
    case "integer":
    case "number":
      return typeof schema.minimum === "number" ? schema.minimum : 1;
    case "boolean":
      return true;
    case "null":
      return null;
    default:
      return hint;
  }
}
