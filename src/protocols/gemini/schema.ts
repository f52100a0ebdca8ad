// Gemini `Schema` (an OpenAPI 3.0 subset with uppercase type names, `nullable`, int64 counts written
// as strings) ↔ JSON Schema (what the IR and the other protocols carry).
//
// Client face: `parameters` / `responseSchema` arrive as Schema and become JSON Schema.
// Upstream face: a JSON Schema becomes Schema only when every keyword has a Schema equivalent;
// otherwise the caller sends it untouched as `parametersJsonSchema` / `responseJsonSchema`
// (docs/architecture.md §10: `$schema`, `additionalProperties`, `const`, `propertyNames`, `$ref`, `oneOf`…
// have no Schema form).

import { invalid } from "../../ir/errors.ts";
import { checkJsonSchema, renameSchemaTypes } from "../shared/json-schema.ts";
import { isObject, type Json } from "../shared/validate.ts";
import { camelName } from "./read-field.ts";

const GEMINI_TYPES = ["STRING", "NUMBER", "INTEGER", "BOOLEAN", "ARRAY", "OBJECT", "NULL"];
const COUNT_KEYWORDS = ["minItems", "maxItems", "minLength", "maxLength", "minProperties", "maxProperties"];
/** Schema formats that only restate the type (or mark an enum): they mean nothing in JSON Schema. */
const TYPE_ONLY_FORMATS = ["enum", "int32", "int64", "float", "double"];

/** Gemini Schema → JSON Schema. Throws a 400 naming the field (`param.properties.x.type`) on bad input. */
export function geminiSchemaToJsonSchema(schema: unknown, param: string): Json {
  if (!isObject(schema)) throw invalid(param, "must be a Schema object");
  const out: Json = {};
  let nullable = false;
  for (const [rawKey, value] of Object.entries(schema)) {
    const key = camelName(rawKey);
    const at = `${param}.${key}`;
    if (value === undefined || value === null) continue;
    switch (key) {
      case "type": {
        const type = readType(value, at);
        if (type !== undefined) out.type = type;
        break;
      }
      case "nullable":
        if (typeof value !== "boolean") throw invalid(at, "must be a boolean");
        nullable = value;
        break;
      case "format":
        if (typeof value !== "string") throw invalid(at, "must be a string");
        if (!TYPE_ONLY_FORMATS.includes(value)) out.format = value;
        break;
      case "enum":
        if (!Array.isArray(value)) throw invalid(at, "must be an array");
        out.enum = [...value];
        break;
      case "items":
        out.items = geminiSchemaToJsonSchema(value, at);
        break;
      case "properties":
        if (!isObject(value)) throw invalid(at, "must be an object");
        out.properties = Object.fromEntries(
          Object.entries(value).map(([name, sub]) => [name, geminiSchemaToJsonSchema(sub, `${at}.${name}`)]),
        );
        break;
      case "anyOf":
      case "oneOf": // read as anyOf (docs/architecture.md §8)
        if (!Array.isArray(value)) throw invalid(at, "must be an array");
        out.anyOf = value.map((sub, i) => geminiSchemaToJsonSchema(sub, `${at}[${i}]`));
        break;
      case "required":
        if (!Array.isArray(value) || !value.every((v) => typeof v === "string"))
          throw invalid(at, "must be an array of strings");
        out.required = [...value];
        break;
      case "example":
        out.examples = [value];
        break;
      case "propertyOrdering":
        break; // key order of `properties` already carries it
      default:
        if (COUNT_KEYWORDS.includes(key)) out[key] = readCount(value, at);
        else out[key] = value; // description, title, pattern, minimum, maximum, default, and anything newer
    }
  }
  // Gemini lets an INTEGER enum list its values as strings ("101"); JSON Schema compares typed values.
  if ((out.type === "integer" || out.type === "number") && Array.isArray(out.enum))
    out.enum = out.enum.map((v) =>
      typeof v === "string" && v.trim() !== "" && !Number.isNaN(Number(v)) ? Number(v) : v,
    );
  if (nullable) addNull(out);
  return out;
}

/**
 * A client's `parametersJsonSchema` / `responseJsonSchema` as the IR's JSON Schema. Google takes
 * its own `Type` names there too, in any case (Gemini CLI's classifier sends `"OBJECT"`): they
 * become JSON Schema's, then the schema is checked. A relay sends the client's bytes, not this.
 */
export function readGeminiJsonSchema(value: unknown, param: string): Json {
  if (!isObject(value)) throw invalid(param, "must be a JSON Schema object");
  const schema = renameSchemaTypes(value, jsonTypeName) as Json;
  checkJsonSchema(schema, param);
  return schema;
}

/** A Gemini `Type` name in any case → its JSON Schema name; TYPE_UNSPECIFIED → none; others unchanged. */
function jsonTypeName(name: string): string | undefined {
  const upper = name.toUpperCase();
  if (upper === "TYPE_UNSPECIFIED") return undefined;
  return GEMINI_TYPES.includes(upper) ? upper.toLowerCase() : name;
}

function readType(value: unknown, at: string): string | undefined {
  if (typeof value !== "string") throw invalid(at, "must be a string");
  const upper = value.toUpperCase();
  if (upper === "TYPE_UNSPECIFIED") return undefined;
  if (!GEMINI_TYPES.includes(upper)) throw invalid(at, `must be one of ${GEMINI_TYPES.join(", ")}`);
  return upper.toLowerCase();
}

function readCount(value: unknown, at: string): number {
  const n = typeof value === "string" && value.trim() !== "" ? Number(value) : value;
  if (typeof n !== "number" || !Number.isInteger(n) || n < 0)
    throw invalid(at, "must be a non-negative integer");
  return n;
}

function addNull(out: Json): void {
  if (typeof out.type === "string") {
    if (out.type !== "null") out.type = [out.type, "null"];
    if (Array.isArray(out.enum) && !out.enum.includes(null)) out.enum = [...out.enum, null];
  } else if (Array.isArray(out.anyOf)) {
    out.anyOf = [...out.anyOf, { type: "null" }];
  }
}

// ── JSON Schema → Gemini Schema ──────────────────────────────────────────────────────────────────

/** Keywords copied as they are: Schema and JSON Schema spell and mean them the same. */
const SHARED_KEYWORDS = new Set([
  "description",
  "title",
  "pattern",
  "required",
  "minimum",
  "maximum",
  "minItems",
  "maxItems",
  "minLength",
  "maxLength",
  "minProperties",
  "maxProperties",
  "default",
  "nullable",
  "propertyOrdering",
  "example",
]);

const SCHEMA_FORMATS = new Set(["enum", "date-time", "float", "double", "int32", "int64"]);

const JSON_TYPES = new Set(["string", "number", "integer", "boolean", "array", "object"]);

/**
 * JSON Schema → Gemini Schema, or undefined when the schema uses anything Schema cannot say (then
 * send it as `parametersJsonSchema` / `responseJsonSchema`). An OBJECT without properties also
 * counts as inexpressible: Gemini rejects it ("properties: should be non-empty for OBJECT type").
 */
export function jsonSchemaToGeminiSchema(schema: unknown): Json | undefined {
  if (!isObject(schema)) return undefined;
  const out: Json = {};
  for (const [key, value] of Object.entries(schema)) {
    if (value === undefined) continue;
    if (key === "type") {
      if (!applyType(out, value)) return undefined;
    } else if (key === "properties") {
      if (!isObject(value)) return undefined;
      const properties: Json = {};
      for (const [name, sub] of Object.entries(value)) {
        const converted = jsonSchemaToGeminiSchema(sub);
        if (!converted) return undefined;
        properties[name] = converted;
      }
      out.properties = properties;
    } else if (key === "items") {
      const converted = jsonSchemaToGeminiSchema(value);
      if (!converted) return undefined;
      out.items = converted;
    } else if (key === "anyOf") {
      if (!applyAnyOf(out, value)) return undefined;
    } else if (key === "enum") {
      if (!Array.isArray(value)) return undefined;
      const values = value.filter((v) => v !== null);
      if (!values.every((v) => typeof v === "string")) return undefined;
      if (values.length < value.length) out.nullable = true;
      out.enum = values;
    } else if (key === "format") {
      // The API answers 400 to other formats in a Schema ("only 'enum' and 'date-time' are supported
      // for STRING type"); JSON Schema takes any.
      if (typeof value !== "string" || !SCHEMA_FORMATS.has(value)) return undefined;
      out.format = value;
    } else if (SHARED_KEYWORDS.has(key)) {
      out[key] = value;
    } else {
      return undefined;
    }
  }
  if (out.type === "OBJECT" && (!isObject(out.properties) || Object.keys(out.properties).length === 0))
    return undefined;
  return out;
}

function applyType(out: Json, value: unknown): boolean {
  const types = typeof value === "string" ? [value] : Array.isArray(value) ? value : undefined;
  if (!types) return false;
  const nonNull = types.filter((t) => t !== "null");
  if (nonNull.length !== 1 || typeof nonNull[0] !== "string" || !JSON_TYPES.has(nonNull[0])) return false;
  out.type = nonNull[0].toUpperCase();
  if (nonNull.length < types.length) out.nullable = true;
  return true;
}

function applyAnyOf(out: Json, value: unknown): boolean {
  if (!Array.isArray(value)) return false;
  const branches: Json[] = [];
  for (const branch of value) {
    if (isObject(branch) && branch.type === "null" && Object.keys(branch).length === 1) {
      out.nullable = true;
      continue;
    }
    const converted = jsonSchemaToGeminiSchema(branch);
    if (!converted) return false;
    branches.push(converted);
  }
  if (branches.length === 0) return false;
  if (branches.length === 1) {
    // `anyOf: [X, {type: null}]` is how JSON Schema says "nullable X".
    for (const [k, v] of Object.entries(branches[0])) if (!(k in out)) out[k] = v;
  } else {
    out.anyOf = branches;
  }
  return true;
}
