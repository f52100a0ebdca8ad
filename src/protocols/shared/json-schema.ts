// A structural check of the JSON Schemas clients send (tool parameters, answer formats): every
// keyword that holds schemas holds schemas, and `type` names JSON types. A schema broken there
// (`properties.city: "{}"`, `type: []`) would otherwise reach the upstream, or a translation that
// walks it, as if it were valid; it is a 400 naming the exact path instead.
//
// Only the shape is checked, never the meaning: any schema valid under draft-04, draft-07 or
// 2020-12 passes (`$schema`, `$ref`/`$defs`/`definitions`, `anyOf`/`oneOf`/`allOf`, `const`,
// `enum`, `format`, type arrays such as `["string", "null"]`, boolean schemas, keywords of any
// vendor or newer draft). Draft-03's boolean `required` is let through too: old generators still
// write it, and the upstream decides.

import { invalid } from "../../ir/errors.ts";
import type { ResponseFormat } from "../../ir/request.ts";
import { expectObject, expectString, isObject, optionalBoolean, optionalString } from "./validate.ts";

const TYPE_NAMES = new Set(["string", "number", "integer", "boolean", "object", "array", "null"]);

/** Keywords whose value is one schema. */
const ONE_SCHEMA = new Set([
  "additionalProperties",
  "additionalItems",
  "unevaluatedProperties",
  "unevaluatedItems",
  "not",
  "if",
  "then",
  "else",
  "contains",
  "propertyNames",
  "contentSchema",
]);

/** Keywords whose value is an object of schemas. */
const SCHEMA_MAPS = new Set(["properties", "patternProperties", "$defs", "definitions", "dependentSchemas"]);

/** Keywords whose value is an array of schemas. */
const SCHEMA_LISTS = new Set(["allOf", "anyOf", "oneOf", "prefixItems"]);

/** Deeper than any schema a client writes by hand or generates; the walk stays bounded. */
const MAX_DEPTH = 64;

/**
 * Throws a 400 naming the path (`tools[0].input_schema.properties.city.type`) when `schema` is not
 * a JSON Schema in shape. `schema` must be an object at the root (a tool's parameters, an answer
 * format); below it, `true` and `false` are schemas too.
 */
export function checkJsonSchema(schema: unknown, param: string): void {
  if (!isObject(schema)) throw invalid(param, "must be a JSON Schema object");
  checkSchema(schema, param, 0);
}

function checkSchema(schema: unknown, at: string, depth: number): void {
  if (typeof schema === "boolean") return;
  if (!isObject(schema)) throw invalid(at, "must be a JSON Schema (an object or a boolean)");
  if (depth > MAX_DEPTH)
    throw invalid(at, `this schema in the body is nested too deeply (more than ${MAX_DEPTH} levels)`);
  for (const [key, value] of Object.entries(schema)) {
    const path = `${at}.${key}`;
    if (key === "type") checkType(value, path);
    else if (ONE_SCHEMA.has(key)) checkSchema(value, path, depth + 1);
    else if (SCHEMA_MAPS.has(key)) {
      if (!isObject(value)) throw invalid(path, "must be an object whose values are schemas");
      for (const [name, sub] of Object.entries(value)) checkSchema(sub, `${path}.${name}`, depth + 1);
    } else if (SCHEMA_LISTS.has(key)) {
      if (!Array.isArray(value)) throw invalid(path, "must be an array of schemas");
      checkSchemaList(value, path, depth + 1);
    } else if (key === "items") {
      // An array of schemas is the tuple form of draft-04 to draft-07.
      if (Array.isArray(value)) checkSchemaList(value, path, depth + 1);
      else checkSchema(value, path, depth + 1);
    } else if (key === "required") {
      if (typeof value === "boolean") continue;
      if (!Array.isArray(value) || !value.every((name) => typeof name === "string"))
        throw invalid(path, "must be an array of property names");
    } else if (key === "enum") {
      if (!Array.isArray(value)) throw invalid(path, "must be an array");
    } else if (key === "$ref") {
      if (typeof value !== "string") throw invalid(path, "must be a string");
    }
  }
}

function checkSchemaList(list: unknown[], at: string, depth: number): void {
  for (let i = 0; i < list.length; i++) checkSchema(list[i], `${at}[${i}]`, depth);
}

function checkType(value: unknown, at: string): void {
  if (typeof value === "string") {
    if (!TYPE_NAMES.has(value)) throw invalid(at, `must be one of ${[...TYPE_NAMES].join(", ")}`);
    return;
  }
  if (!Array.isArray(value)) throw invalid(at, "must be a type name or an array of type names");
  if (value.length === 0) throw invalid(at, "must name at least one type");
  value.forEach((name, i) => {
    if (typeof name !== "string" || !TYPE_NAMES.has(name))
      throw invalid(`${at}[${i}]`, `must be one of ${[...TYPE_NAMES].join(", ")}`);
  });
}

/**
 * A copy of `schema` with each type name (`type: "X"`, `type: ["X", …]`) replaced by `rename(X)`,
 * or removed where it gives undefined, in the schema and every schema below it; the values of
 * other keywords (`enum`, `const`, `default`, a property named `type`) are left as they are. For a
 * protocol whose API takes other type names than JSON Schema's (Gemini's `OBJECT`) in a JSON Schema.
 */
export function renameSchemaTypes(schema: unknown, rename: (name: string) => string | undefined): unknown {
  return renameIn(schema, rename, 0);
}

function renameIn(schema: unknown, rename: (name: string) => string | undefined, depth: number): unknown {
  // Past the depth limit the copy stops; checkJsonSchema refuses such a schema anyway.
  if (!isObject(schema) || depth > MAX_DEPTH) return schema;
  const below = (sub: unknown) => renameIn(sub, rename, depth + 1);
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) {
    if (key === "type") {
      const renamed = renameType(value, rename);
      if (renamed !== undefined) out.type = renamed;
    } else if (ONE_SCHEMA.has(key)) out[key] = below(value);
    else if (SCHEMA_MAPS.has(key) && isObject(value))
      out[key] = Object.fromEntries(Object.entries(value).map(([name, sub]) => [name, below(sub)]));
    else if ((SCHEMA_LISTS.has(key) || key === "items") && Array.isArray(value)) out[key] = value.map(below);
    else if (key === "items") out[key] = below(value);
    else out[key] = value;
  }
  return out;
}

function renameType(value: unknown, rename: (name: string) => string | undefined): unknown {
  if (typeof value === "string") return rename(value);
  if (!Array.isArray(value)) return value;
  return value.map((name) => (typeof name === "string" ? (rename(name) ?? name) : name));
}

/**
 * OpenAI's answer format at `path`: `text`, `json_object` or `json_schema`, whose named schema
 * `{name, schema, description?, strict?}` sits in the member `nestedIn` (chat's
 * `response_format.json_schema`) or, without it, beside `type` (the Responses API's `text.format`).
 */
export function decodeAnswerFormat(
  value: unknown,
  path: string,
  nestedIn?: string,
): ResponseFormat | undefined {
  if (value === undefined || value === null) return undefined;
  const format = expectObject(value, path);
  if (format.type === "text" || format.type === "json_object") return { type: format.type };
  if (format.type !== "json_schema")
    throw invalid(`${path}.type`, "must be one of text, json_object, json_schema");
  if (nestedIn === undefined) return decodeJsonSchemaFormat(format, path);
  const specPath = `${path}.${nestedIn}`;
  return decodeJsonSchemaFormat(expectObject(format[nestedIn], specPath), specPath);
}

function decodeJsonSchemaFormat(spec: Record<string, unknown>, path: string): ResponseFormat {
  const name = expectString(spec.name, `${path}.name`);
  if (!/^[a-zA-Z0-9_-]{1,64}$/.test(name))
    throw invalid(`${path}.name`, "must be 1 to 64 characters of a-z, A-Z, 0-9, underscore and dash");
  const result: ResponseFormat = {
    type: "json_schema",
    name,
    schema:
      spec.schema === undefined || spec.schema === null ? {} : expectObject(spec.schema, `${path}.schema`),
  };
  checkJsonSchema(result.schema, `${path}.schema`);
  const description = optionalString(spec.description, `${path}.description`);
  if (description !== undefined) result.description = description;
  const strict = optionalBoolean(spec.strict, `${path}.strict`);
  if (strict !== undefined) result.strict = strict;
  return result;
}
