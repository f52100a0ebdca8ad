// `tools` and `tool_choice` of a messages-protocol request → IR tool definitions and tool choice.

import { invalid } from "../../ir/errors.ts";
import type { ToolChoice, ToolDefinition, WebSearchSettings } from "../../ir/request.ts";
import { checkJsonSchema } from "../shared/json-schema.ts";
import {
  expectArray,
  expectObject,
  expectString,
  isObject,
  optionalBoolean,
  optionalNumber,
  optionalString,
  setIfDefined,
} from "../shared/validate.ts";
import { decodeDomains, decodeLocation } from "../shared/web-search.ts";
import { decodeCacheControl } from "./cache-control.ts";

const MAX_TOOL_NAME = 128;
/** Fields of a custom tool the IR has no place for; named in `ignored` when a client sends them. */
const UNTRANSLATED_TOOL_FIELDS = [
  "allowed_callers",
  "defer_loading",
  "eager_input_streaming",
  "input_examples",
];

/** The tool search server tools (`tool_search_tool_regex_20251119`, `…_bm25_…`), by type. */
function isToolSearchTool(type: unknown): boolean {
  return typeof type === "string" && /^tool_search_tool_(regex|bm25)(_\d{8})?$/.test(type);
}

/** `web_search_20250305` and later versions of Anthropic's web search server tool. */
function isWebSearchTool(type: string): boolean {
  return /^web_search_\d{8}$/.test(type);
}

/**
 * The web search tool's limits (`max_uses`, `allowed_domains`, `blocked_domains`, `user_location`):
 * the IR's webSearch, which any upstream with search runs (docs/translation.md §13c).
 */
export function decodeWebSearchTool(value: unknown): WebSearchSettings | undefined {
  if (!Array.isArray(value)) return undefined;
  const at = value.findIndex((t) => isObject(t) && typeof t.type === "string" && isWebSearchTool(t.type));
  if (at < 0) return undefined;
  const param = `tools[${at}]`;
  const tool = value[at] as Record<string, unknown>;
  const search: WebSearchSettings = {};
  setIfDefined(
    search,
    "maxUses",
    optionalNumber(tool.max_uses, `${param}.max_uses`, { integer: true, min: 1 }),
  );
  setIfDefined(search, "allowedDomains", decodeDomains(tool.allowed_domains, `${param}.allowed_domains`));
  setIfDefined(search, "blockedDomains", decodeDomains(tool.blocked_domains, `${param}.blocked_domains`));
  setIfDefined(search, "userLocation", decodeLocation(tool.user_location, `${param}.user_location`));
  return search;
}

/**
 * Custom tools become IR tools, the web search tool the IR's webSearch. Anthropic's other server
 * tools (`bash_20250124`, `text_editor_*`, the tool search tools, …) run inside Anthropic and cannot
 * be translated: they are dropped and named. The code-execution tool is not offered at all (its beta
 * is refused: headers.ts): a 400 on every route, relay included, rather than an upstream's refusal of
 * a tool used without its beta.
 *
 * Tool search (docs/translation.md §2c): a tool with `defer_loading` is hidden from the model until a
 * search loads it. Another protocol has no deferral, so the IR holds what the model may see: the
 * deferred tools the conversation has loaded (`referenced`, its `tool_reference` blocks) in full, and
 * the others dropped and named; with a tool search server tool, which no other upstream runs, every
 * deferred tool in full, as nothing could load them otherwise. A relay sends the client's tools as
 * they came.
 */
export function decodeTools(
  value: unknown,
  ignored: string[],
  referenced: ReadonlySet<string> = new Set(),
): ToolDefinition[] {
  if (value === undefined || value === null) return [];
  const tools: ToolDefinition[] = [];
  const list = expectArray(value, "tools");
  const searchable = list.some((tool) => isObject(tool) && isToolSearchTool(tool.type));
  list.forEach((item, i) => {
    const param = `tools[${i}]`;
    const tool = expectObject(item, param);
    if (tool.type !== undefined && tool.type !== null && tool.type !== "custom") {
      const type = expectString(tool.type, `${param}.type`);
      if (type.startsWith("code_execution_"))
        throw invalid(`${param}.type`, `${type}: the code execution tool is not available`);
      // The web search tool becomes the IR's webSearch (decodeWebSearchTool); others cannot cross.
      if (!isWebSearchTool(type)) ignored.push(param);
      return;
    }
    const name = expectString(tool.name, `${param}.name`);
    if (name.length === 0 || name.length > MAX_TOOL_NAME)
      throw invalid(`${param}.name`, `must be 1 to ${MAX_TOOL_NAME} characters`);
    const schema = expectObject(tool.input_schema, `${param}.input_schema`);
    if (schema.type !== "object") throw invalid(`${param}.input_schema.type`, 'must be "object"');
    checkJsonSchema(schema, `${param}.input_schema`);
    const definition: ToolDefinition = { name, parameters: schema };
    setIfDefined(definition, "description", optionalString(tool.description, `${param}.description`));
    setIfDefined(definition, "strict", optionalBoolean(tool.strict, `${param}.strict`));
    setIfDefined(
      definition,
      "cacheControl",
      decodeCacheControl(tool.cache_control, `${param}.cache_control`),
    );
    const deferred = optionalBoolean(tool.defer_loading, `${param}.defer_loading`) === true;
    if (deferred && !searchable && !referenced.has(name)) {
      ignored.push(param);
      return;
    }
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
