// Client → IR: the body of `POST /v1/chat/completions` (docs/architecture.md §8). Wrong types and
// out-of-range values are 400s naming the field; the API's unsupported fields (docs/architecture.md §8) are
// dropped and named in `ignored` (→ `x-switchyard-ignored`), except `functions` / `function_call`, which are
// refused; fields nobody defined are ignored silently.

import { invalid } from "../../ir/errors.ts";
import type { ReasoningEffort, ReasoningSettings, Request, WebSearchSettings } from "../../ir/request.ts";
import { decodeAnswerFormat } from "../shared/json-schema.ts";
import { decodeMetadata } from "../shared/openai-metadata.ts";
import {
  expectArray,
  expectNumber,
  expectObject,
  expectString,
  isObject,
  optionalBoolean,
  optionalNumber,
  optionalString,
  present,
  setIfDefined,
} from "../shared/validate.ts";
import { decodeContextSize, decodeLocation } from "../shared/web-search.ts";
import type { DecodeContext } from "../types.ts";
import { decodeMessages } from "./decode-messages.ts";
import { decodeRouting } from "./decode-routing.ts";
import { decodeToolChoice, decodeTools } from "./decode-tools.ts";

type Json = Record<string, unknown>;

/** The API's unsupported request fields (docs/architecture.md §8) that are accepted, not forwarded, and reported. */
const DROPPED_FIELDS = [
  "audio",
  "modalities",
  "prompt_cache_key",
  "prompt_cache_retention",
  "safety_identifier",
  "store",
  "service_tier",
  "prediction",
  "seed",
  "user",
] as const;

const EFFORTS: readonly ReasoningEffort[] = ["none", "minimal", "low", "medium", "high", "xhigh"];
const VERBOSITIES = ["low", "medium", "high"];

export function decodeRequest(body: unknown, _ctx: DecodeContext): Request {
  const b = expectObject(body, "body");
  for (const field of ["functions", "function_call"]) {
    if (present(b[field])) throw invalid(field, "is deprecated and not supported; use tools and tool_choice");
  }
  const model = expectString(b.model, "model");
  if (!model) throw invalid("model", "must not be empty");
  const { system, messages } = decodeMessages(b.messages);
  const ignored: string[] = [];
  const request: Request = {
    model,
    system,
    messages,
    tools: decodeTools(b.tools),
    stopSequences: decodeStop(b.stop),
    stream: optionalBoolean(b.stream, "stream") ?? false,
    streamUsage: decodeStreamUsage(b),
    ignored,
  };
  setIfDefined(request, "toolChoice", decodeToolChoice(b.tool_choice));
  setIfDefined(request, "parallelToolCalls", optionalBoolean(b.parallel_tool_calls, "parallel_tool_calls"));
  decodeSampling(b, request, ignored);
  setIfDefined(request, "verbosity", decodeVerbosity(b));
  setIfDefined(
    request,
    "responseFormat",
    decodeAnswerFormat(b.response_format, "response_format", "json_schema"),
  );
  setIfDefined(request, "reasoning", decodeReasoningSettings(b));
  setIfDefined(request, "routing", decodeRouting(b));
  decodeAcceptedButNotCarried(b, ignored);
  setIfDefined(request, "webSearch", decodeWebSearch(b.web_search_options));
  ignored.push(...assistantAudio(b.messages as unknown[]));
  for (const field of DROPPED_FIELDS) if (present(b[field])) ignored.push(field);
  return request;
}

function decodeSampling(b: Json, request: Request, ignored: string[]): void {
  const maxCompletion = optionalNumber(b.max_completion_tokens, "max_completion_tokens", {
    integer: true,
    min: 1,
  });
  const maxTokens = optionalNumber(b.max_tokens, "max_tokens", { integer: true, min: 1 });
  // Older clients send only the deprecated `max_tokens`; it means the same (docs/architecture.md §8).
  setIfDefined(request, "maxOutputTokens", maxCompletion ?? maxTokens);
  if (maxCompletion !== undefined && maxTokens !== undefined) ignored.push("max_tokens");
  setIfDefined(request, "temperature", optionalNumber(b.temperature, "temperature", { min: 0, max: 2 }));
  setIfDefined(request, "topP", optionalNumber(b.top_p, "top_p", { min: 0, max: 1 }));
  const penalty = { min: -2, max: 2 };
  setIfDefined(
    request,
    "frequencyPenalty",
    optionalNumber(b.frequency_penalty, "frequency_penalty", penalty),
  );
  setIfDefined(request, "presencePenalty", optionalNumber(b.presence_penalty, "presence_penalty", penalty));
  const n = optionalNumber(b.n, "n", { integer: true });
  if (n !== undefined && n !== 1) throw invalid("n", "only 1 is supported");
  const logprobs = optionalBoolean(b.logprobs, "logprobs");
  const topLogprobs = optionalNumber(b.top_logprobs, "top_logprobs", { integer: true, min: 0, max: 20 });
  if (topLogprobs !== undefined && logprobs !== true)
    throw invalid("top_logprobs", "requires logprobs: true");
  if (logprobs) request.logprobs = topLogprobs === undefined ? {} : { topLogprobs };
  if (present(b.logit_bias)) {
    // Validated within the API's limits, then dropped: token ids are tokenizer-specific and mean
    // nothing to another provider's model.
    const bias = expectObject(b.logit_bias, "logit_bias");
    for (const [token, value] of Object.entries(bias))
      expectNumber(value, `logit_bias.${token}`, { min: -100, max: 100 });
    ignored.push("logit_bias");
  }
}

function decodeStop(value: unknown): string[] {
  if (value === undefined || value === null) return [];
  if (typeof value === "string") return value ? [value] : [];
  const list = expectArray(value, "stop");
  if (list.length > 4) throw invalid("stop", "must hold at most 4 sequences");
  return list.map((item, i) => expectString(item, `stop[${i}]`)).filter((s) => s.length > 0);
}

/** The client wants usage in the stream: `stream_options.include_usage` or `usage.include`. */
function decodeStreamUsage(b: Json): boolean {
  let wanted = false;
  if (present(b.stream_options)) {
    const options = expectObject(b.stream_options, "stream_options");
    wanted = optionalBoolean(options.include_usage, "stream_options.include_usage") ?? false;
  }
  if (present(b.usage)) {
    const usage = expectObject(b.usage, "usage");
    wanted = (optionalBoolean(usage.include, "usage.include") ?? false) || wanted;
  }
  return wanted;
}

function decodeReasoningSettings(b: Json): ReasoningSettings | undefined {
  const settings: ReasoningSettings = {};
  const topEffort = optionalString(b.reasoning_effort, "reasoning_effort");
  if (topEffort !== undefined) settings.effort = effort(topEffort, "reasoning_effort");
  if (present(b.reasoning)) {
    const r = expectObject(b.reasoning, "reasoning");
    setIfDefined(settings, "enabled", optionalBoolean(r.enabled, "reasoning.enabled"));
    const nested = optionalString(r.effort, "reasoning.effort");
    if (nested !== undefined) settings.effort = effort(nested, "reasoning.effort");
    setIfDefined(
      settings,
      "budgetTokens",
      optionalNumber(r.max_tokens, "reasoning.max_tokens", { integer: true, min: 0 }),
    );
    setIfDefined(settings, "exclude", optionalBoolean(r.exclude, "reasoning.exclude"));
    // `reasoning: {}` turns reasoning on at the model's default effort (OpenRouter's convention).
    if (Object.keys(settings).length === 0) settings.enabled = true;
  }
  if (settings.effort === "none" && settings.enabled === undefined) settings.enabled = false;
  return Object.keys(settings).length > 0 ? settings : undefined;
}

function effort(value: string, param: string): ReasoningEffort {
  if (!(EFFORTS as readonly string[]).includes(value))
    throw invalid(param, `must be one of ${EFFORTS.join(", ")}`);
  return value as ReasoningEffort;
}

/** `verbosity` crosses to the OpenAI protocols; the other encoders name it as dropped. */
function decodeVerbosity(b: Json): Request["verbosity"] {
  const verbosity = optionalString(b.verbosity, "verbosity");
  if (verbosity !== undefined && !VERBOSITIES.includes(verbosity))
    throw invalid("verbosity", "must be one of low, medium, high");
  return verbosity as Request["verbosity"];
}

/**
 * Fields the API supports that the IR has no place for. `metadata` is named as not forwarded: OpenAI
 * accepts it only beside `store`, which is dropped.
 */
function decodeAcceptedButNotCarried(b: Json, ignored: string[]): void {
  decodeMetadata(b.metadata);
  if (present(b.metadata)) ignored.push("metadata");
}

/**
 * `web_search_options` `{search_context_size, user_location: {type: "approximate", approximate}}`:
 * the upstream searches (docs/translation.md §13c).
 */
function decodeWebSearch(value: unknown): WebSearchSettings | undefined {
  if (!present(value)) return undefined;
  const options = expectObject(value, "web_search_options");
  const search: WebSearchSettings = {};
  const size = decodeContextSize(options.search_context_size, "web_search_options.search_context_size");
  if (size) search.contextSize = size;
  if (present(options.user_location)) {
    const at = "web_search_options.user_location";
    const location = expectObject(options.user_location, at);
    const place = decodeLocation(location.approximate, `${at}.approximate`);
    if (place) search.userLocation = place;
  }
  return search;
}

/**
 * `messages[i].audio` of assistant messages: the id of an earlier audio answer, which the gateway
 * never gives (audio output, `audio` and `modalities`, is dropped), so no upstream could resolve it.
 * Named as `messages[i].audio`; a relay strips it like the top-level fields (relay.ts).
 */
function assistantAudio(messages: unknown[]): string[] {
  const names: string[] = [];
  messages.forEach((message, i) => {
    if (!isObject(message) || message.role !== "assistant" || !present(message.audio)) return;
    const audio = expectObject(message.audio, `messages[${i}].audio`);
    expectString(audio.id, `messages[${i}].audio.id`);
    names.push(`messages[${i}].audio`);
  });
  return names;
}
