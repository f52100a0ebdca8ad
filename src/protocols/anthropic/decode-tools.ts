// `tools` and `tool_choice` of a messages-protocol request → IR tool definitions and tool choice.

import { invalid } from "../../ir/errors.ts";
import type { ToolChoice, ToolDefinition } from "../../ir/request.ts";
import { checkJsonSchema } from "../shared/json-schema.ts";
import {
  expectArray,
  expectObject,
  expectString,
  optionalBoolean,
  optionalString,
} from "../shared/validate.ts";
import { decodeCacheControl } from "./cache-control.ts";

const MAX_TOOL_NAME = 128;
/** Fields of a custom tool the IR has no place for; named in `ignored` when a client sends them. */
const UNTRANSLATED_TOOL_FIELDS = [
  "allowed_callers",
  "defer_loading",
  "eager_input_streaming",
  "input_examples",
];

/**
 * Custom tools become IR tools. Anthropic's server tools (`web_search_20250305`, `bash_20250124`,
 * `text_editor_*`, …) run inside Anthropic and cannot be translated: they are dropped and named.
 * The code-execution tool is not offered at all (its beta is refused: headers.ts): a 400 on every
 * route, relay included, rather than an upstream's refusal of a tool used without its beta.
 */
export function decodeTools(value: unknown, ignored: string[]): ToolDefinition[] {
  if (value === undefined || value === null) return [];
  const tools: ToolDefinition[] = [];
  expectArray(value, "tools").forEach((item, i) => {
    const param = `tools[${i}]`;
    const tool = expectObject(item, param);
    if (tool.type !== undefined && tool.type !== null && tool.type !== "custom") {
      const type = expectString(tool.type, `${param}.type`);
      if (type.startsWith("code_execution_"))
        throw invalid(`${param}.type`, `${type}: the code execution tool is not available`);
      ignored.push(param);
      return;
    }
    const name = expectString(tool.name, `${param}.name`);
    if (name.length === 0 || name.length > MAX_TOOL_NAME)
      throw invalid(`${param}.name`, `must be 1 to ${MAX_TOOL_NAME} characters`);
    const schema = expectObject(tool.input_schema, `${param}.input_schema`);
    if (schema.type !== "object") throw invalid(`${param}.input_schema.type`, 'must be "object"');
    checkJsonSchema(schema, `${param}.input_schema`);
    const definition: ToolDefinition = { name, parameters: schema };
    const description = optionalString(tool.description, `${param}.description`);
    if (description !== undefined) definition.description = description;
    const strict = optionalBoolean(tool.strict, `${param}.strict`);
    if (strict !== undefined) definition.strict = strict;
    const cacheControl = decodeCacheControl(tool.cache_control, `${param}.cache_control`);
    if (cacheControl) definition.cacheControl = cacheControl;
    for (const field of UNTRANSLATED_TOOL_FIELDS)
      if (tool[field] !== undefined) ignored.push(`${param}.${field}`);
    tools.push(definition);
  });
  return tools;
}

export interface DecodedToolChoice {
  toolChoice?: ToolChoice;
  /** false when `disable_parallel_tool_use` is true. */
  parallelToolCalls?: boolean;
}

export function decodeToolChoice(value: unknown): DecodedToolChoice {
  if (value === undefined || value === null) return {};
  const choice = expectObject(value, "tool_choice");
  const decoded: DecodedToolChoice = {};
  switch (choice.type) {
    case "auto":
      decoded.toolChoice = { type: "auto" };
      break;
    case "any":
      decoded.toolChoice = { type: "required" };
      break;
    case "none":
      decoded.toolChoice = { type: "none" };
      break;
    case "tool":
      decoded.toolChoice = { type: "tool", name: expectString(choice.name, "tool_choice.name") };
      break;
    default:
      throw invalid("tool_choice.type", 'must be "auto", "any", "tool" or "none"');
  }
  const disable = optionalBoolean(choice.disable_parallel_tool_use, "tool_choice.disable_parallel_tool_use");
  if (disable === true) decoded.parallelToolCalls = false;
  return decoded;
}
