// Custom tools (OpenAI's `type: "custom"`, on the Responses API and on chat-completions): a tool
// whose input is free text, not JSON arguments. The IR holds one as a function whose one string
// parameter, `input`, carries that text (`ToolDefinition.custom` keeps its `format`), so that every
// upstream can offer it; the two OpenAI faces turn it back into a custom tool and its calls back into
// custom calls, and the IR's arguments are `{"input": "<text>"}` whichever way a call came.

import type { ToolDefinition } from "../../ir/request.ts";

/** The parameters a custom tool's free-text input has as a function: one string, `input`. */
export function customToolParameters(description?: string): Record<string, unknown> {
  const input: Record<string, unknown> = { type: "string" };
  if (description) input.description = description;
  return { type: "object", properties: { input }, required: ["input"], additionalProperties: false };
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
