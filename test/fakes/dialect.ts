// What the shared server core needs from each provider's fake: how to accept a request and how to
// render a reply, an error, and the broken pieces the faults need. One implementation per protocol.

import type { IncomingHttpHeaders } from "node:http";
import type { FakeProtocol, Reply } from "./reply.ts";
import type { Transport } from "./transport.ts";

export interface RecordedRequest {
  method: string;
  /** The request target as sent, query included (`/v1beta/models/m:streamGenerateContent?alt=sse`). */
  path: string;
  /** The path without the query. */
  pathname: string;
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
  /** The parsed JSON body; undefined when the body was not JSON or was never read (`refuse`). */
  body: any;
  rawBody: string;
  receivedAt: number;
  /** Arrival order across every fake in this process (receivedAt ties within a millisecond). */
  seq: number;
  /** The client went away before the response was finished. */
  aborted: boolean;
  /** Answered by the side-call answerer (FakeUpstream.answerSideCalls), not from the script. */
  side?: boolean;
  abortedAt?: number;
}

export interface FakeOptions {
  /** Embedding (and token count) calls are answered after this many ms, so calls sent together overlap. */
  embeddingDelayMs?: number;
  /** How the fake is reached: `http` (HTTP/1.1, the default), `h2c`, `h2` (TLS, ALPN) or `https` (TLS, HTTP/1.1 only). */
  transport?: Transport;
  /** When set, only this credential is accepted (a wrong one gets the provider's native 401/400). */
  apiKey?: string;
  /** openai only: the delta/message field carrying reasoning text (DeepSeek-style vendors use `reasoning_content`). */
  reasoningField?: "reasoning" | "reasoning_content";
  /**
   * openai only: the choice field in which an OpenAI-compatible server names the stop sequence that
   * matched (vLLM `stop_reason`, SGLang `matched_stop`); OpenAI itself sends neither.
   */
  stopField?: "stop_reason" | "matched_stop";
  /**
   * openai only: speak as a vendor's OpenAI-style API does where it differs from OpenAI's.
   * `mistral`: a member outside its documented request (`stream_options`, `max_completion_tokens`,
   * `seed`, a message's `name`…) is refused with its 422, and a stream's usage comes unasked on its
   * last chunk, the one with the finish reason. `groq`: the members its compatibility page lists
   * (`logprobs`, `top_logprobs`, `logit_bias`, `messages[].name`) are refused with a 400.
   * `deepseek` (thinking mode, its default): reasoning comes as `reasoning_content`, and an assistant
   * turn with tool calls must carry its `reasoning_content` back (a 400 naming its index otherwise).
   * `xai`: a member the model refuses (modelRefuses) is answered as xAI does.
   */
  vendor?: "mistral" | "groq" | "deepseek" | "xai";
  /**
   * openai only: upstream model names that answer as OpenAI's reasoning models do while they reason
   * (`reasoning_effort` other than `none`): `temperature` or `top_p` other than 1 is a 400
   * `unsupported_value`, a penalty other than 0 or `logprobs` a 400 `unsupported_parameter`.
   */
  reasoningModels?: string[];
  /**
   * openai and openai-responses: the members each upstream model refuses whenever they are sent
   * (dotted paths for nested ones: `reasoning.effort`), answered as OpenAI answers a member a model
   * does not take: a 400 `unsupported_parameter` naming it in `param` ("Unsupported parameter:
   * 'stop' is not supported with this model."); with vendor `xai` as xAI does (`{"code":
   * "invalid-argument", "error": "Model … does not support parameter presencePenalty."}`). An entry
   * `member=value` refuses that value alone, with OpenAI's `unsupported_value`. gemini: the
   * `generationConfig` members each model refuses, answered as Gemini does ("Penalty is not enabled
   * for models/…" for a penalty other than 0, "Logprobs is not enabled for models/…", "Thinking is
   * not enabled for models/…" for `thinkingConfig`). anthropic:
   * `temperature+top_p`, the two refused together as Claude 4.5 and later refuse them ("`temperature`
   * and `top_p` cannot both be specified for this model. Please use only one.").
   */
  modelRefuses?: Record<string, string[]>;
  /**
   * openai and anthropic: each upstream model's output limit; an output limit over it is refused as
   * the vendor refuses it, naming the limit (OpenAI: "max_tokens is too large: 32000. This model
   * supports at most 16384 completion tokens, whereas you provided 32000."; Anthropic: "max_tokens:
   * 64000 > 32000, which is the maximum allowed number of output tokens for …").
   */
  outputLimits?: Record<string, number>;
}

/** One accepted request: what it asked for and the identifiers of the answer. */
export interface Exchange {
  model: string;
  stream: boolean;
  /** openai: `stream_options.include_usage` was set. */
  includeUsage: boolean;
  responseId: string;
  /** gemini: `generationConfig.candidateCount` of a whole answer (each candidate repeats the reply). */
  candidates?: number;
  /** Unix seconds. */
  created: number;
}

export type Verdict = { ok: true; exchange: Exchange } | { ok: false; status: number; body: unknown };

/** A rendered stream: complete SSE frames, the last `terminal` of which are its closing events. */
export interface StreamPlan {
  frames: string[];
  terminal: number;
}

/** An answer the fake gives outright (its token counter's), status and body. */
export interface DirectAnswer {
  status: number;
  body: unknown;
}

/**
 * What the fakes' token counters report: one token per 4 bytes of the request body as received,
 * rounded up. Not a real tokenizer, but a figure a test can compute from the recorded request, and
 * one that no local count would give by chance.
 */
export function fakeTokenCount(request: RecordedRequest): number {
  return Math.ceil(Buffer.byteLength(request.rawBody) / 4);
}

export interface Dialect {
  readonly protocol: FakeProtocol;
  /**
   * The provider's token-counting endpoint, when it has one: the answer to a request for it (a count,
   * or the native error for a body the real API refuses), or undefined for any other path.
   */
  countTokens?(request: RecordedRequest, options: FakeOptions): DirectAnswer | undefined;
  /**
   * The provider's embedding endpoint (embeddings.ts): its answer to a request for it (vectors, or
   * the native error), or undefined for any other path. A scripted error status answers it too.
   */
  embeddings?(request: RecordedRequest, options: FakeOptions): DirectAnswer | undefined;
  /** The path prefix of the SDK-convention base URL (openai `/v1`, others none). */
  readonly basePath: string;
  /** Route, credentials and the body's required fields, checked as the real API checks them. */
  check(request: RecordedRequest, options: FakeOptions): Verdict;
  response(reply: Reply, exchange: Exchange, options: FakeOptions): object;
  stream(reply: Reply, exchange: Exchange, options: FakeOptions): StreamPlan;
  /** The native error body for an HTTP status (`message` replaces the default text). */
  error(status: number, message?: string): unknown;
  /** The status a non-streamed `midstream-error` answers with (the provider's "overloaded"). */
  readonly overloadedStatus: number;
  /** The native in-stream error frame(s). */
  streamError(exchange: Exchange): string;
  /** A frame whose data is not JSON. */
  malformedFrame(): string;
  headers(stream: boolean): Record<string, string>;
}
