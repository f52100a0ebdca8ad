// Client → IR: `tools`, `tool_choice` and `response_format`.

import { invalid } from "../../ir/errors.ts";
import type { ResponseFormat, ToolChoice, ToolDefinition } from "../../ir/request.ts";
import { checkJsonSchema } from "../shared/json-schema.ts";
import {
  expectArray,
  expectObject,
  expectString,
  isObject,
  optionalBoolean,
  optionalString,
} from "../shared/validate.ts";

export function decodeTools(value: unknown): ToolDefinition[] {
  if (value === undefined || value === null) return [];
  return expectArray(value, "tools").map((item, i) => decodeTool(item, `tools[${i}]`));
}

function decodeTool(value: unknown, at: string): ToolDefinition {
  const tool = expectObject(value, at);
  if (tool.type !== "function") throw invalid(`${at}.type`, "only 'function' tools are supported");
  const fn = expectObject(tool.function, `${at}.function`);
  const name = expectString(fn.name, `${at}.function.name`);
  // Only emptiness is checked: each upstream has its own name rules, and the upstream says which.
  if (!name) throw invalid(`${at}.function.name`, "must not be empty");
  const definition: ToolDefinition = {
    name,
    // OpenAI: "Omitting parameters defines a function with an empty parameter list."
    parameters:
      fn.parameters === undefined || fn.parameters === null
        ? { type: "object", properties: {} }
        : expectObject(fn.parameters, `${at}.function.parameters`),
  };
  checkJsonSchema(definition.parameters, `${at}.function.parameters`);
  const description = optionalString(fn.description, `${at}.function.description`);
  if (description !== undefined) definition.description = description;
  const strict = optionalBoolean(fn.strict, `${at}.function.strict`);
  if (strict !== undefined) definition.strict = strict;
  return definition;
}

export function decodeToolChoice(value: unknown): ToolChoice | undefined {
  if (value === undefined || value === null) return undefined;
  if (value === "none" || value === "auto" || value === "required") return { type: value };
  if (isObject(value) && value.type === "function") {
    const fn = expectObject(value.function, "tool_choice.function");
    const name = expectString(fn.name, "tool_choice.function.name");
    if (!name) throw invalid("tool_choice.function.name", "must not be empty");
    return { type: "tool", name };
  }
  throw invalid("tool_choice", "must be 'none', 'auto', 'required' or {type: 'function', function: {name}}");
}

export function decodeResponseFormat(value: unknown): ResponseFormat | undefined {
  if (value === undefined || value === null) return undefined;
  const format = expectObject(value, "response_format");
  if (format.type === "text" || format.type === "json_object") return { type: format.type };
  if (format.type !== "json_schema")
    throw invalid("response_format.type", "must be one of text, json_object, json_schema");
  const spec = expectObject(format.json_schema, "response_format.json_schema");
  const name = expectString(spec.name, "response_format.json_schema.name");
  if (!/^[a-zA-Z0-9_-]{1,64}$/.test(name))
    throw invalid(
      "response_format.json_schema.name",
      "must be 1 to 64 characters of a-z, A-Z, 0-9, underscore and dash",
    );
  const result: ResponseFormat = {
    type: "json_schema",
    name,
    schema:
      spec.schema === undefined || spec.schema === null
        ? {}
        : expectObject(spec.schema, "response_format.json_schema.schema"),
  };
  checkJsonSchema(result.schema, "response_format.json_schema.schema");
  const description = optionalString(spec.description, "response_format.json_schema.description");
  if (description !== undefined) result.description = description;
  const strict = optionalBoolean(spec.strict, "response_format.json_schema.strict");
  if (strict !== undefined) result.strict = strict;
  return result;
}
