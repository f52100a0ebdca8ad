// IR tools and tool choice → Converse `toolConfig`, and the answer format → `outputConfig`.
//
// Converse's tool choice has `auto`, `any` and `tool` but no `none`: "none" is said by sending no
// tools. But Converse refuses a request whose messages hold toolUse or toolResult blocks without a
// `toolConfig` ("toolConfig field must be defined when using toolUse and toolResult content
// blocks"), so such a request keeps its tools (or, when the client sent none, gets a definition of
// each tool its history names, taking any object), and the choice is left to the model.

import type { Message, Request, ToolChoice, ToolDefinition } from "../../ir/request.ts";
import { cachePoint } from "./encode-content.ts";

/** `toolConfig`, or undefined when the request goes without tools. */
export function encodeToolConfig(request: Request): Record<string, unknown> | undefined {
  const historyTools = toolNamesInHistory(request.messages);
  const none = request.toolChoice?.type === "none";
  if (none && historyTools.size === 0) return undefined;
  let tools = request.tools.flatMap((tool) => [toolSpec(tool), ...cachePoint(tool.cacheControl)]);
  if (request.tools.length === 0) {
    if (historyTools.size === 0) return undefined;
    tools = [...historyTools].map((name) => toolSpec({ name, parameters: { type: "object" } }));
  }
  const choice = none ? undefined : encodeToolChoice(request.toolChoice);
  return choice ? { tools, toolChoice: choice } : { tools };
}

/** `outputConfig.textFormat` for a JSON answer: a schema, or any object for plain JSON mode. */
export function encodeOutputFormat(request: Request): Record<string, unknown> | undefined {
  const format = request.responseFormat;
  if (format === undefined || format.type === "text") return undefined;
  const schema = format.type === "json_schema" ? format.schema : { type: "object" };
  const jsonSchema: Record<string, unknown> = { schema: JSON.stringify(schema) };
  if (format.type === "json_schema" && format.name !== undefined) jsonSchema.name = format.name;
  if (format.type === "json_schema" && format.description !== undefined)
    jsonSchema.description = format.description;
  return { type: "json_schema", structure: { jsonSchema } };
}

function toolSpec(tool: Pick<ToolDefinition, "name" | "description" | "parameters" | "strict">): object {
  // Converse needs an object schema; a schema-less tool (`{}`) is an object with any properties.
  const schema =
    tool.parameters.type === undefined ? { type: "object", ...tool.parameters } : tool.parameters;
  const spec: Record<string, unknown> = { name: tool.name };
  if (tool.description !== undefined && tool.description !== "") spec.description = tool.description;
  spec.inputSchema = { json: schema };
  // Only asked for when wanted: `strict: false` is the default, and models without strict tools may refuse the member.
  if (tool.strict === true) spec.strict = true;
  return { toolSpec: spec };
}

function encodeToolChoice(choice: ToolChoice | undefined): object | undefined {
  switch (choice?.type) {
    case "auto":
      return { auto: {} };
    case "required":
      return { any: {} };
    case "tool":
      return { tool: { name: choice.name } };
    default:
      return undefined;
  }
}

/** The tools the conversation's calls and results name (a result names its tool only where it knows it). */
function toolNamesInHistory(messages: Message[]): Set<string> {
  const names = new Set<string>();
  let anyToolBlock = false;
  for (const message of messages)
    for (const block of message.content) {
      if (block.type === "tool_call") names.add(block.name);
      if (block.type === "tool_result") {
        anyToolBlock = true;
        if (block.name) names.add(block.name);
      }
    }
  // A result whose call is not in the history still needs a toolConfig: some tool must be defined.
  if (anyToolBlock && names.size === 0) names.add("tool");
  return names;
}
