// IR → upstream: the body of `POST {base_url}/responses` for a provider configured with
// `protocol: openai-responses`. Stateless, like the gateway: `store: false`, the whole conversation
// in `input`, and reasoning carried from turn to turn by its `encrypted_content` (asked for with
// `include` whenever reasoning is in play, asked or the model's own). What this protocol cannot say
// is left out and named in the attempt's `Unsent` where it is left out: stop sequences, penalties,
// seed, top_k, cache_control…;
// a reasoning token budget is mapped to an effort, as for chat-completions upstreams.
//
// Not named, because nothing the upstream could use is lost: another vendor's call signatures (a
// Gemini thought signature on a tool call has no field here; OpenAI keeps its own state in
// reasoning items), and `reasoning.exclude` (the client face hides the reasoning).

import { prefillText } from "../../ir/prefill.ts";
import type { Request, ResponseFormat, ToolChoice, WebSearchSettings } from "../../ir/request.ts";
import { canEmulateStops } from "../../ir/stop-sequences.ts";
import { leaveOutSettings, plainText, Unsent, usesCacheControl } from "../shared/dropped-fields.ts";
import { CONTINUE_INSTRUCTION } from "../shared/prefill.ts";
import { reasoningEffort } from "../shared/reasoning-effort.ts";
import { approximateLocation, leaveOutLimits } from "../shared/web-search.ts";
import type { UpstreamCall, UpstreamTarget } from "../types.ts";
import { ENCRYPTED_REASONING_INCLUDE, LOGPROBS_INCLUDE } from "./decode-request.ts";
import { encodeInput } from "./encode-input.ts";

type Json = Record<string, unknown>;

/** OpenAI refuses a `max_output_tokens` below 16 ("integer_below_min_value"). */
const MIN_OUTPUT_TOKENS = 16;

export function encodeRequest(request: Request, target: UpstreamTarget, unsent = new Unsent()): UpstreamCall {
  const body: Json = { model: target.model };
  // Nothing in a Responses request carries a prompt-cache marker.
  unsent.add("cache_control", usesCacheControl(request));
  const instructions = request.system.map((block) => plainText(block, unsent)).join("\n\n");
  if (instructions) body.instructions = instructions;
  const input = encodeInput(request, unsent);
  // A trailing assistant message is answered afresh by this protocol: ask for its continuation.
  if (prefillText(request) !== undefined)
    input.push({
      type: "message",
      role: "user",
      content: [{ type: "input_text", text: CONTINUE_INSTRUCTION }],
    });
  body.input = input;
  if (target.stream) body.stream = true;
  body.store = false;
  // Only the client's limit: this protocol does not require one (a one-token probe is raised to
  // the smallest limit OpenAI takes rather than refused).
  if (request.maxOutputTokens !== undefined)
    body.max_output_tokens = Math.max(request.maxOutputTokens, MIN_OUTPUT_TOKENS);
  if (request.temperature !== undefined) body.temperature = request.temperature;
  if (request.topP !== undefined) body.top_p = request.topP;
  leaveOutSettings(unsent, request, ["topK", "frequencyPenalty", "presencePenalty", "seed"]);
  // The gateway cuts the answer at the stop sequences itself (src/ir/stop-sequences.ts) unless there
  // are too many to search each piece for.
  unsent.add("stop", !canEmulateStops(request.stopSequences));
  if (request.user !== undefined) body.user = request.user;
  // OpenAI refuses tool_choice and parallel_tool_calls when no tools are given.
  if (request.tools.length > 0) {
    body.tools = request.tools.map(encodeTool);
    if (request.toolChoice) body.tool_choice = encodeToolChoice(request.toolChoice, request);
    if (request.parallelToolCalls !== undefined) body.parallel_tool_calls = request.parallelToolCalls;
  }
  if (request.webSearch)
    body.tools = [...((body.tools as Json[] | undefined) ?? []), webSearchTool(request.webSearch, unsent)];
  if (request.responseFormat) body.text = { format: encodeFormat(request.responseFormat) };
  if (request.verbosity !== undefined)
    body.text = { ...(body.text as Json | undefined), verbosity: request.verbosity };
  const effort = reasoningEffort(request.reasoning);
  if (effort) body.reasoning = effort === "none" ? { effort } : { effort, summary: "auto" };
  // As on chat-completions: reasoning switched off is said only as the client's own "none".
  else unsent.add("reasoning", request.reasoning?.enabled === false);
  const include: string[] = [];
  if (reasons(request, effort, target) || carriesSignedReasoning(request))
    include.push(ENCRYPTED_REASONING_INCLUDE);
  if (request.logprobs) {
    include.push(LOGPROBS_INCLUDE);
    if (request.logprobs.topLogprobs !== undefined) body.top_logprobs = request.logprobs.topLogprobs;
  }
  if (include.length > 0) body.include = include;
  return { path: "/responses", body };
}

function encodeTool(tool: Request["tools"][number]): Json {
  if (tool.custom) {
    const custom: Json = { type: "custom", name: tool.name };
    if (tool.description !== undefined) custom.description = tool.description;
    if (tool.custom.format) custom.format = tool.custom.format;
    return custom;
  }
  const fn: Json = { type: "function", name: tool.name };
  if (tool.description !== undefined) fn.description = tool.description;
  fn.parameters = tool.parameters;
  // The Responses API makes function tools strict unless told otherwise, and a strict schema must
  // list every property as required: schemas from other protocols seldom do.
  fn.strict = tool.strict ?? false;
  return fn;
}

function encodeToolChoice(choice: ToolChoice, request: Request): unknown {
  if (choice.type !== "tool") return choice.type;
  const custom = request.tools.some((tool) => tool.name === choice.name && tool.custom);
  return { type: custom ? "custom" : "function", name: choice.name };
}

function encodeFormat(format: ResponseFormat): Json {
  if (format.type !== "json_schema") return { type: format.type };
  // `name` is required by OpenAI; formats from other protocols may not have one.
  const wire: Json = { type: "json_schema", name: format.name ?? "response", schema: format.schema };
  if (format.description !== undefined) wire.description = format.description;
  if (format.strict !== undefined) wire.strict = format.strict;
  return wire;
}

/** Earlier reasoning with a signature is in the conversation: its next form must come back too. */
/**
 * The answer may hold reasoning: asked for, or a model that reasons unasked (gpt-5's default effort),
 * unless switched off. (OpenAI refuses `reasoning.encrypted_content` of a model that does not reason.)
 */
function reasons(request: Request, effort: string | undefined, target: UpstreamTarget): boolean {
  if (effort) return effort !== "none";
  return target.reasoningModel === true && request.reasoning?.enabled !== false;
}

function carriesSignedReasoning(request: Request): boolean {
  return request.messages.some((message) =>
    message.content.some(
      (block) =>
        block.type === "redacted_thinking" || (block.type === "thinking" && block.signature !== undefined),
    ),
  );
}

/** The hosted `web_search` tool with the settings it takes (a use limit, blocked domains: §13c). */
function webSearchTool(search: WebSearchSettings, unsent: Unsent): Json {
  leaveOutLimits(unsent, search, ["maxUses", "blockedDomains"]);
  const tool: Json = { type: "web_search" };
  if (search.allowedDomains) tool.filters = { allowed_domains: search.allowedDomains };
  if (search.userLocation) tool.user_location = approximateLocation(search.userLocation);
  if (search.contextSize) tool.search_context_size = search.contextSize;
  return tool;
}
