// A deterministic value that satisfies a JSON Schema well enough for demo tool calls and
// structured output: required properties filled, first enum value, simple defaults per type.

type Schema = Record<string, unknown>;

export function sampleFromSchema(schema: Schema | undefined, hint: string, depth = 0): unknown {
  if (!schema || depth > 6) return {};
  if (schema.const !== undefined) return schema.const;
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return schema.enum[0];
  if (schema.default !== undefined) return schema.default;
  const anyOf = (schema.anyOf ?? schema.oneOf) as Schema[] | undefined;
  if (Array.isArray(anyOf) && anyOf.length > 0) return sampleFromSchema(anyOf[0], hint, depth + 1);
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  switch (String(type ?? (schema.properties ? "object" : "string")).toLowerCase()) {
    case "object": {
      const props = (schema.properties ?? {}) as Record<string, Schema>;
      const out: Record<string, unknown> = {};
      for (const [name, sub] of Object.entries(props)) out[name] = sampleFromSchema(sub, hint, depth + 1);
      return out;
    }
    case "array":
      return [sampleFromSchema(schema.items as Schema | undefined, hint, depth + 1)];
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
