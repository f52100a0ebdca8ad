// Client → IR: `tools`, `tool_choice` and `text.format`. Function and custom tools cross to every
// upstream, and so do those of a `namespace` group (Codex's groups), flattened into tools named
// `<group>__<tool>` (namespacedName). OpenAI's hosted tools (web_search, file_search, computer use,
// code interpreter, MCP…) have no equivalent behind another protocol: they are dropped and named in
// `ignored` as `tools[].<type>`, never refused, so that an agent's turn goes on without them (a
// relay to a Responses upstream still sends them, groups and all).

import { invalid } from "../../ir/errors.ts";
import type { ToolChoice, ToolDefinition, WebSearchSettings } from "../../ir/request.ts";
import { decodeCustomDefinition } from "../shared/custom-tools.ts";
import { decodeFunctionDefinition } from "../shared/openai-function-tool.ts";
import {
  expectArray,
  expectObject,
  expectString,
  isObject,
  optionalBoolean,
  optionalString,
  setIfDefined,
} from "../shared/validate.ts";
import { decodeContextSize, decodeDomains, decodeLocation } from "../shared/web-search.ts";

export function decodeTools(value: unknown, ignored: string[]): ToolDefinition[] {
  if (value === undefined || value === null) return [];
  const tools: ToolDefinition[] = [];
  expectArray(value, "tools").forEach((item, i) => {
    const at = `tools[${i}]`;
    const tool = expectObject(item, at);
    if (tool.type === "namespace") tools.push(...namespaceTools(tool, at, ignored));
    else tools.push(...clientTool(tool, at, ignored));
  });
  return tools;
}

/** A function or custom tool; any other kind is named in `ignored`. */
function clientTool(tool: Record<string, unknown>, at: string, ignored: string[]): ToolDefinition[] {
  if (tool.type === "function") return [functionTool(tool, at)];
  if (tool.type === "custom") return [customTool(tool, at)];
  const type = expectString(tool.type, `${at}.type`);
  // The web search tool becomes the IR's webSearch (decodeWebSearchTool).
  if (!carriedSearch(tool) && !ignored.includes(`tools[].${type}`)) ignored.push(`tools[].${type}`);
  return [];
}

/**
 * A web search tool that other upstreams can run: not one limited to OpenAI's cached index
 * (`external_web_access: false`, what Codex sends by default), which no other search can honour.
 */
function carriedSearch(tool: Record<string, unknown>): boolean {
  return typeof tool.type === "string" && isWebSearchTool(tool.type) && tool.external_web_access !== false;
}

/** `web_search` and its earlier names (`web_search_preview`, dated versions). */
function isWebSearchTool(type: string): boolean {
  return (
    type === "web_search" ||
    type.startsWith("web_search_preview") ||
    /^web_search_\d{4}_\d{2}_\d{2}$/.test(type)
  );
}

/**
 * The web search tool's settings (`filters.allowed_domains`, `user_location`,
 * `search_context_size`): the IR's webSearch, which any upstream with search runs (§13c).
 */
export function decodeWebSearchTool(value: unknown): WebSearchSettings | undefined {
  if (!Array.isArray(value)) return undefined;
  const at = value.findIndex((t) => isObject(t) && carriedSearch(t));
  if (at < 0) return undefined;
  const param = `tools[${at}]`;
  const tool = value[at] as Record<string, unknown>;
  const search: WebSearchSettings = {};
  if (isObject(tool.filters)) {
    setIfDefined(
      search,
      "allowedDomains",
      decodeDomains(tool.filters.allowed_domains, `${param}.filters.allowed_domains`),
    );
  }
  setIfDefined(search, "userLocation", decodeLocation(tool.user_location, `${param}.user_location`));
  setIfDefined(
    search,
    "contextSize",
    decodeContextSize(tool.search_context_size, `${param}.search_context_size`),
  );
  return search;
}

/** The IR name of a tool in a namespace group: what every other protocol calls it. */
export function namespacedName(group: string, tool: string): string {
  return `${group}__${tool}`;
}

/** `{type: "namespace", name, description, tools}`: its function and custom tools, flattened. */
function namespaceTools(group: Record<string, unknown>, at: string, ignored: string[]): ToolDefinition[] {
  const name = expectString(group.name, `${at}.name`);
  if (!name) throw invalid(`${at}.name`, "must not be empty");
  const description = optionalString(group.description, `${at}.description`);
  if (group.tools === undefined || group.tools === null) return [];
  return expectArray(group.tools, `${at}.tools`).flatMap((item, j) =>
    clientTool(expectObject(item, `${at}.tools[${j}]`), `${at}.tools[${j}]`, ignored).map((tool) => ({
      ...tool,
      name: namespacedName(name, tool.name),
      namespace: description
        ? { group: name, tool: tool.name, description }
        : { group: name, tool: tool.name },
    })),
  );
}

function functionTool(tool: Record<string, unknown>, at: string): ToolDefinition {
  const definition = decodeFunctionDefinition(tool, at);
  // Only strictness asked for crosses: `false` (and `null`, which SDKs send) is every other
  // protocol's default.
  if (optionalBoolean(tool.strict, `${at}.strict`)) definition.strict = true;
  return definition;
}

function customTool(tool: Record<string, unknown>, at: string): ToolDefinition {
  return decodeCustomDefinition(tool, at, expectObject);
}

export function decodeToolChoice(value: unknown, ignored: string[]): ToolChoice | undefined {
  if (value === undefined || value === null) return undefined;
  if (value === "none" || value === "auto" || value === "required") return { type: value };
  if (!isObject(value)) throw invalid("tool_choice", "must be 'none', 'auto', 'required' or an object");
  if (value.type === "function" || value.type === "custom") {
    const name = expectString(value.name, "tool_choice.name");
    if (!name) throw invalid("tool_choice.name", "must not be empty");
    return { type: "tool", name };
  }
  if (value.type === "allowed_tools") {
    // The mode crosses; the list of allowed tools has no field elsewhere.
    const mode = value.mode === "required" ? "required" : "auto";
    ignored.push("tool_choice.tools");
    return { type: mode };
  }
  // A hosted tool (file_search, web_search_preview, mcp, shell…): dropped with the tool itself.
  expectString(value.type, "tool_choice.type");
  ignored.push("tool_choice");
  return undefined;
}
