// Custom tools (OpenAI's `type: "custom"`, on the Responses API and on chat-completions): a tool
// whose input is free text, not JSON arguments. The IR holds one as a function whose one string
// parameter, `input`, carries that text (`ToolDefinition.custom` keeps its `format`), so that every
// upstream can offer it; the two OpenAI faces turn it back into a custom tool and its calls back into
// custom calls, and the IR's arguments are `{"input": "<text>"}` whichever way a call came.

import { invalid } from "../../ir/errors.ts";
import type { ToolDefinition } from "../../ir/request.ts";
import { expectString, optionalString } from "./validate.ts";

/** The parameters a custom tool's free-text input has as a function: one string, `input`. */
export function customToolParameters(description?: string): Record<string, unknown> {
  const input: Record<string, unknown> = { type: "string" };
  if (description) input.description = description;
  return { type: "object", properties: { input }, required: ["input"], additionalProperties: false };
}

/**
 * A custom tool's definition (`{name, description?, format?}`, nested under `custom` in
 * chat-completions, flat in the Responses API) as an IR tool; `decodeFormat` reads the API's format.
 */
export function decodeCustomDefinition(
  custom: Record<string, unknown>,
  at: string,
  decodeFormat: (value: unknown, at: string) => Record<string, unknown>,
): ToolDefinition {
  const name = expectString(custom.name, `${at}.name`);
  if (!name) throw invalid(`${at}.name`, "must not be empty");
  const definition: ToolDefinition = { name, parameters: customToolParameters(), custom: {} };
  const description = optionalString(custom.description, `${at}.description`);
  if (description !== undefined) definition.description = description;
  if (custom.format !== undefined && custom.format !== null)
    definition.custom = { format: decodeFormat(custom.format, `${at}.format`) };
  return definition;
}

/** The IR arguments of a custom call whose input is `input`. */
export function customArguments(input: string): string {
  return JSON.stringify({ input });
}

/** A custom tool's free text from the arguments of the function it was to other upstreams. */
export function customInput(args: string): string {
  try {
    const parsed = JSON.parse(args);
    if (typeof parsed === "object" && parsed !== null && typeof parsed.input === "string")
      return parsed.input;
  } catch {
    // Not the JSON the function asked for: the model's text is the input as it stands.
  }
  return args;
}

/** Whether the request declared `name` as a custom tool (its calls go out as custom calls). */
export function isCustomTool(tools: ToolDefinition[], name: string): boolean {
  return tools.some((tool) => tool.custom !== undefined && tool.name === name);
}
