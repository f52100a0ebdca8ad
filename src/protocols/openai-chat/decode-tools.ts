// Client → IR: `tools`, `tool_choice` and `response_format`. Function tools, and custom tools
// (free-text input, src/protocols/shared/custom-tools.ts), which cross to every upstream.

import { invalid } from "../../ir/errors.ts";
import type { ToolChoice, ToolDefinition } from "../../ir/request.ts";
import { decodeCustomDefinition } from "../shared/custom-tools.ts";
import { decodeFunctionDefinition } from "../shared/openai-function-tool.ts";
import { expectArray, expectObject, expectString, isObject, optionalBoolean } from "../shared/validate.ts";

export function decodeTools(value: unknown): ToolDefinition[] {
  if (value === undefined || value === null) return [];
  return expectArray(value, "tools").map((item, i) => decodeTool(item, `tools[${i}]`));
}

function decodeTool(value: unknown, at: string): ToolDefinition {
  const tool = expectObject(value, at);
  if (tool.type === "custom") return decodeCustomTool(tool, at);
  if (tool.type !== "function") throw invalid(`${at}.type`, "must be 'function' or 'custom'");
  const fn = expectObject(tool.function, `${at}.function`);
  const definition = decodeFunctionDefinition(fn, `${at}.function`);
  const strict = optionalBoolean(fn.strict, `${at}.function.strict`);
  if (strict !== undefined) definition.strict = strict;
  return definition;
}

/** `{type: "custom", custom: {name, description?, format?}}`; the IR keeps the Responses API's format. */
function decodeCustomTool(tool: Record<string, unknown>, at: string): ToolDefinition {
  return decodeCustomDefinition(
    expectObject(tool.custom, `${at}.custom`),
    `${at}.custom`,
    decodeCustomFormat,
  );
}

/** Chat nests a grammar (`{type: "grammar", grammar: {definition, syntax}}`); the IR does not. */
function decodeCustomFormat(value: unknown, at: string): Record<string, unknown> {
  const format = expectObject(value, at);
  if (format.type === "text") return { type: "text" };
  if (format.type !== "grammar") throw invalid(`${at}.type`, "must be 'text' or 'grammar'");
  const grammar = expectObject(format.grammar, `${at}.grammar`);
  return {
    type: "grammar",
    syntax: expectString(grammar.syntax, `${at}.grammar.syntax`),
    definition: expectString(grammar.definition, `${at}.grammar.definition`),
  };
}

export function decodeToolChoice(value: unknown): ToolChoice | undefined {
  if (value === undefined || value === null) return undefined;
  if (value === "none" || value === "auto" || value === "required") return { type: value };
  if (isObject(value) && (value.type === "function" || value.type === "custom")) {
    const kind = value.type;
    const named = expectObject(value[kind], `tool_choice.${kind}`);
    const name = expectString(named.name, `tool_choice.${kind}.name`);
    if (!name) throw invalid(`tool_choice.${kind}.name`, "must not be empty");
    return { type: "tool", name };
  }
  throw invalid(
    "tool_choice",
    "must be 'none', 'auto', 'required', {type: 'function', function: {name}} or {type: 'custom', custom: {name}}",
  );
}
