// Client → IR: the body of `POST /v1/responses`, as the openai SDK types `ResponseCreateParams`.
// Wrong types and out-of-range values are 400s naming the field. `store`, `previous_response_id`,
// `conversation` and `item_reference` inputs are the gateway's memory (src/gateway/response-memory.ts),
// resolved before this decoder sees the body (a `conversation` that reaches it had no memory to
// resolve it: 400); so is `background` (src/gateway/background.ts), a 400 here without it.
//
// `ignored` names what a translation to another protocol cannot carry (→ `x-switchyard-ignored`):
// hosted tools, `metadata`, prompt-cache settings, `text.verbosity`… A relay to a
// Responses upstream forwards every byte of the body, so nothing is lost there. Fields nobody
// defined are ignored silently (Codex sends `client_metadata`).

import { GatewayError, invalid } from "../../ir/errors.ts";
import type { ReasoningEffort, ReasoningSettings, Request } from "../../ir/request.ts";
import { decodeAnswerFormat } from "../shared/json-schema.ts";
import { decodeMetadata } from "../shared/openai-metadata.ts";
import {
  expectArray,
  expectObject,
  expectString,
  optionalBoolean,
  optionalNumber,
  optionalString,
  present,
  setIfDefined,
} from "../shared/validate.ts";
import { withWebSearch } from "../shared/web-search.ts";
import type { DecodeContext } from "../types.ts";
import { decodeInput, NOT_SERVED } from "./decode-input.ts";
import { decodeToolChoice, decodeTools, decodeWebSearchTool } from "./decode-tools.ts";

type Json = Record<string, unknown>;

/** Accepted, checked for their type only, and named: no other protocol has a place for them. */
const NAMED_WHEN_PRESENT = [
  "prompt",
  "prompt_cache_key",
  "prompt_cache_retention",
  "prompt_cache_options",
  "service_tier",
  "context_management",
  "moderation",
  "max_tool_calls",
] as const;

const EFFORTS: readonly string[] = ["none", "minimal", "low", "medium", "high", "xhigh", "max"];
const SUMMARIES: readonly string[] = ["auto", "concise", "detailed"];
const VERBOSITIES: readonly string[] = ["low", "medium", "high"];

export function decodeRequest(body: unknown, _ctx: DecodeContext): Request {
  const b = expectObject(body, "body");
  if (present(b.conversation))
    throw new GatewayError("invalid_request", `conversation: ${NOT_SERVED}.`, { param: "conversation" });
  if (optionalBoolean(b.background, "background"))
    throw new GatewayError("invalid_request", `background: ${NOT_SERVED}; stream the response instead.`, {
      param: "background",
    });
  optionalString(b.previous_response_id, "previous_response_id");
  const model = expectString(b.model, "model");
  if (!model) throw invalid("model", "must not be empty");
  const ignored: string[] = [];
  const { system, messages } = decodeInput(b.input, b.instructions, ignored);
  const request: Request = {
    model,
    system,
    messages,
    tools: decodeTools(b.tools, ignored),
    ...withWebSearch(decodeWebSearchTool(b.tools)),
    stopSequences: [],
    stream: optionalBoolean(b.stream, "stream") ?? false,
    // The Responses API always reports usage, in its `response.completed` event.
    streamUsage: true,
    ignored,
  };
  setIfDefined(request, "toolChoice", decodeToolChoice(b.tool_choice, ignored));
  setIfDefined(request, "parallelToolCalls", optionalBoolean(b.parallel_tool_calls, "parallel_tool_calls"));
  setIfDefined(
    request,
    "maxOutputTokens",
    optionalNumber(b.max_output_tokens, "max_output_tokens", { integer: true, min: 1 }),
  );
  setIfDefined(request, "temperature", optionalNumber(b.temperature, "temperature", { min: 0, max: 2 }));
  setIfDefined(request, "topP", optionalNumber(b.top_p, "top_p", { min: 0, max: 1 }));
  decodeLogprobs(b, request, ignored);
  decodeText(b.text, request, ignored);
  setIfDefined(request, "reasoning", decodeReasoning(b.reasoning));
  setIfDefined(request, "reasoningSummary", decodeReasoningSummary(b.reasoning));
  const user = optionalString(b.safety_identifier, "safety_identifier") ?? optionalString(b.user, "user");
  setIfDefined(request, "user", user);
  decodeAcceptedButNotCarried(b, ignored);
  return request;
}

/**
 * Logprobs are asked for with `include: ["message.output_text.logprobs"]`, `top_logprobs` saying how
 * many alternatives per token; `top_logprobs` alone returns none, so it alone is named, not carried.
 */
function decodeLogprobs(b: Record<string, unknown>, request: Request, ignored: string[]): void {
  const top = optionalNumber(b.top_logprobs, "top_logprobs", { integer: true, min: 0, max: 20 });
  const asked = Array.isArray(b.include) && b.include.includes(LOGPROBS_INCLUDE);
  if (asked) request.logprobs = top === undefined ? {} : { topLogprobs: top };
  else if (top !== undefined) ignored.push("top_logprobs");
}

/** The `include` value that asks for the output text's token logprobs. */
export const LOGPROBS_INCLUDE = "message.output_text.logprobs";

/** The `include` value that asks for reasoning items' `encrypted_content` (what a later turn sends back). */
export const ENCRYPTED_REASONING_INCLUDE = "reasoning.encrypted_content";

function decodeText(value: unknown, request: Request, ignored: string[]): void {
  if (!present(value)) return;
  const text = expectObject(value, "text");
  setIfDefined(request, "responseFormat", decodeAnswerFormat(text.format, "text.format"));
  const verbosity = optionalString(text.verbosity, "text.verbosity");
  if (verbosity === undefined) return;
  if (!VERBOSITIES.includes(verbosity)) throw invalid("text.verbosity", "must be one of low, medium, high");
  ignored.push("text.verbosity");
}

/**
 * `reasoning: {effort, summary}`. `none` switches reasoning off; `max` is the IR's highest effort.
 * The summary setting (or its older name, `generate_summary`) is only echoed (Request.reasoningSummary):
 * a translated answer shows the thinking text as the summary whenever the model gives one.
 */
function decodeReasoning(value: unknown): ReasoningSettings | undefined {
  if (!present(value)) return undefined;
  const r = expectObject(value, "reasoning");
  const settings: ReasoningSettings = {};
  const effort = optionalString(r.effort, "reasoning.effort");
  if (effort !== undefined) {
    if (!EFFORTS.includes(effort)) throw invalid("reasoning.effort", `must be one of ${EFFORTS.join(", ")}`);
    settings.effort = (effort === "max" ? "xhigh" : effort) as ReasoningEffort;
    if (effort === "none") settings.enabled = false;
  }
  return Object.keys(settings).length > 0 ? settings : undefined;
}

/** `reasoning.summary` (or `generate_summary`), the first given: what the answer echoes. */
function decodeReasoningSummary(value: unknown): Request["reasoningSummary"] {
  if (!present(value)) return undefined;
  const r = expectObject(value, "reasoning");
  let asked: string | undefined;
  for (const field of ["summary", "generate_summary"]) {
    const summary = optionalString(r[field], `reasoning.${field}`);
    if (summary !== undefined && !SUMMARIES.includes(summary))
      throw invalid(`reasoning.${field}`, "must be one of auto, concise, detailed");
    asked ??= summary;
  }
  return asked as Request["reasoningSummary"];
}

function decodeAcceptedButNotCarried(b: Json, ignored: string[]): void {
  if (Object.keys(decodeMetadata(b.metadata)).length > 0) ignored.push("metadata");
  optionalBoolean(b.store, "store");
  const truncation = optionalString(b.truncation, "truncation");
  if (truncation !== undefined && truncation !== "auto" && truncation !== "disabled")
    throw invalid("truncation", "must be one of auto, disabled");
  if (present(b.include))
    expectArray(b.include, "include").forEach((item, i) => {
      expectString(item, `include[${i}]`);
    });
  if (present(b.stream_options)) expectObject(b.stream_options, "stream_options");
  for (const field of NAMED_WHEN_PRESENT) if (present(b[field])) ignored.push(field);
}
