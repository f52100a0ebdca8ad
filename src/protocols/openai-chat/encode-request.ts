// IR → upstream: the body of `POST {base_url}/chat/completions` for an OpenAI-compatible provider.
// The gateway always asks a streaming upstream for usage (docs/architecture.md §4, §10) and decides itself
// whether the client sees it. What this protocol cannot say is left out and named in the attempt's
// `Unsent` where it is left out: top_k, cache_control, citations, tool-result errors (`is_error`)…;
// a reasoning token budget is mapped to an effort instead, and media in tool results is sent in a
// user message after the tool messages. Custom tools (free-text input) go as custom tools.
//
// Not named, because nothing is lost: `reasoning.exclude` (the client face hides the reasoning), a
// tool choice or `parallel_tool_calls` without tools (OpenAI refuses them; they mean nothing).

import { prefillText } from "../../ir/prefill.ts";
import type {
  Request,
  ResponseFormat,
  ToolChoice,
  ToolDefinition,
  WebSearchSettings,
} from "../../ir/request.ts";
import { cutsStopsItself } from "../../ir/stop-sequences.ts";
import { isCustomTool } from "../shared/custom-tools.ts";
import { leaveOutSettings, Unsent, usesCacheControl } from "../shared/dropped-fields.ts";
import { CONTINUE_INSTRUCTION } from "../shared/prefill.ts";
import { reasoningEffort } from "../shared/reasoning-effort.ts";
import { approximateLocation, leaveOutLimits } from "../shared/web-search.ts";
import type { UpstreamCall, UpstreamTarget } from "../types.ts";
import { encodeMessages } from "./encode-messages.ts";
import type { ChatQuirks } from "./quirks.ts";
import { fitBody } from "./request-fields.ts";

/** OpenAI takes up to 4 stop sequences ("Invalid 'stop': array too long", a 400, for a fifth). */
export const MAX_STOP_SEQUENCES = 4;

export { reasoningEffort };

type Json = Record<string, unknown>;

export function encodeRequest(
  request: Request,
  target: UpstreamTarget<ChatQuirks>,
  unsent = new Unsent(),
): UpstreamCall {
  const quirks = target.quirks ?? {};
  // Nothing in a chat request carries a prompt-cache marker.
  unsent.add("cache_control", usesCacheControl(request));
  const messages = encodeMessages(request.system, request.messages, request.tools, unsent);
  // A trailing assistant message is answered afresh by this protocol: ask for its continuation.
  if (prefillText(request) !== undefined) messages.push({ role: "user", content: CONTINUE_INSTRUCTION });
  const body: Json = { model: target.model, messages };
  if (target.stream) {
    body.stream = true;
    if (!quirks.streamUsageUnasked) body.stream_options = { include_usage: true };
  }
  // Only the client's limit: this protocol does not require one, so the catalog's output limit
  // (`target.maxOutputTokens`, which Anthropic-style upstreams need) is not imposed here.
  if (request.maxOutputTokens !== undefined) body[outputLimitField(quirks)] = request.maxOutputTokens;
  if (request.temperature !== undefined) body.temperature = request.temperature;
  if (request.topP !== undefined) body.top_p = request.topP;
  leaveOutSettings(unsent, request, ["topK"]);
  if (request.frequencyPenalty !== undefined) body.frequency_penalty = request.frequencyPenalty;
  if (request.presencePenalty !== undefined) body.presence_penalty = request.presencePenalty;
  if (request.seed !== undefined) body.seed = request.seed;
  if (request.user !== undefined) body.user = request.user;
  if (request.stopSequences.length > 0 && !cutsStopsItself(request.stopSequences, MAX_STOP_SEQUENCES))
    body.stop = [...request.stopSequences];
  // OpenAI refuses tool_choice and parallel_tool_calls when no tools are given.
  if (request.tools.length > 0) {
    body.tools = request.tools.map(encodeTool);
    if (request.toolChoice) body.tool_choice = encodeToolChoice(request.toolChoice, request.tools);
    if (request.parallelToolCalls !== undefined) body.parallel_tool_calls = request.parallelToolCalls;
  }
  if (request.verbosity !== undefined) body.verbosity = request.verbosity;
  if (request.responseFormat) body.response_format = encodeResponseFormat(request.responseFormat);
  const effort = reasoningEffort(request.reasoning);
  if (effort) body.reasoning_effort = effort;
  // Reasoning switched off is said only as the client's own "none"; otherwise the model's default
  // applies, which may be to reason.
  else unsent.add("reasoning", request.reasoning?.enabled === false);
  if (request.logprobs) {
    body.logprobs = true;
    if (request.logprobs.topLogprobs !== undefined) body.top_logprobs = request.logprobs.topLogprobs;
  }
  if (request.webSearch) body.web_search_options = webSearchOptions(request.webSearch, unsent);
  if (quirks.requestFields)
    for (const name of fitBody(body, quirks.requestFields, target.reasoningModel)) unsent.add(name);
  return { path: "/chat/completions", body };
}

function encodeTool(tool: ToolDefinition): Json {
  if (tool.custom) {
    const custom: Json = { name: tool.name };
    if (tool.description !== undefined) custom.description = tool.description;
    if (tool.custom.format) custom.format = encodeCustomFormat(tool.custom.format);
    return { type: "custom", custom };
  }
  const fn: Json = { name: tool.name };
  if (tool.description !== undefined) fn.description = tool.description;
  fn.parameters = tool.parameters;
  if (tool.strict !== undefined) fn.strict = tool.strict;
  return { type: "function", function: fn };
}

/** The IR keeps the Responses API's flat grammar; chat nests it under `grammar`. */
function encodeCustomFormat(format: Record<string, unknown>): Json {
  if (format.type !== "grammar") return format;
  return { type: "grammar", grammar: { definition: format.definition, syntax: format.syntax } };
}

function encodeToolChoice(choice: ToolChoice, tools: ToolDefinition[]): unknown {
  if (choice.type !== "tool") return choice.type;
  if (isCustomTool(tools, choice.name)) return { type: "custom", custom: { name: choice.name } };
  return { type: "function", function: { name: choice.name } };
}

function encodeResponseFormat(format: ResponseFormat): Json {
  if (format.type !== "json_schema") return { type: format.type };
  // `name` is required by OpenAI; formats from other protocols may not have one.
  const spec: Json = { name: format.name ?? "response", schema: format.schema };
  if (format.description !== undefined) spec.description = format.description;
  if (format.strict !== undefined) spec.strict = format.strict;
  return { type: "json_schema", json_schema: spec };
}

/** OpenAI's field for the output limit (its reasoning models refuse `max_tokens`), or a provider's older one. */
export function outputLimitField(quirks: ChatQuirks): "max_tokens" | "max_completion_tokens" {
  return quirks.legacyMaxTokens ? "max_tokens" : "max_completion_tokens";
}

/** `web_search_options`: the context size and where the user is (domains and a use limit: §13c). */
function webSearchOptions(search: WebSearchSettings, unsent: Unsent): Record<string, unknown> {
  leaveOutLimits(unsent, search, ["maxUses", "allowedDomains", "blockedDomains"]);
  const options: Record<string, unknown> = {};
  if (search.contextSize) options.search_context_size = search.contextSize;
  if (search.userLocation) {
    const { type, ...approximate } = approximateLocation(search.userLocation);
    options.user_location = { type, approximate };
  }
  return options;
}
