// The protocol-neutral script a fake upstream renders in its provider's native wire format.
// Nothing here (or anywhere under test/fakes/) imports from src/: a fake built from the gateway's
// own encoders would prove nothing about them.
//
// ## Usage semantics (tests compute their expectations from this)
//
// A reply's `usage` counts tokens in disjoint buckets:
//   input        prompt tokens neither read from nor written to the cache
//   cacheRead    prompt tokens read from the cache
//   cacheWrite5m prompt tokens written to the cache (5-minute retention)
//   cacheWrite1h prompt tokens written to the cache (1-hour retention)
//   output       visible output tokens (text and tool calls)
//   reasoning    reasoning (thinking) tokens
// Missing buckets are 0; a reply without `usage` uses DEFAULT_USAGE. With
//   prompt = input + cacheRead + cacheWrite5m + cacheWrite1h,  writes = cacheWrite5m + cacheWrite1h,
// each protocol reports them in its OWN semantics:
//
// openai (chat completions; usage also on the last stream chunk when `stream_options.include_usage`)
//   prompt_tokens                                   = prompt            (INCLUDES cached tokens)
//   prompt_tokens_details.cached_tokens             = cacheRead
//   prompt_tokens_details.cache_write_tokens        = writes            (only when writes > 0, OpenRouter-style)
//   completion_tokens                               = output + reasoning (INCLUDES reasoning)
//   completion_tokens_details.reasoning_tokens      = reasoning
//   total_tokens                                    = prompt_tokens + completion_tokens
//
// anthropic (messages)
//   input_tokens                                    = input              (EXCLUDES cache reads and writes)
//   cache_read_input_tokens                         = cacheRead
//   cache_creation_input_tokens                     = writes
//   cache_creation.ephemeral_5m_input_tokens        = cacheWrite5m
//   cache_creation.ephemeral_1h_input_tokens        = cacheWrite1h
//   output_tokens                                   = output + reasoning
//   Streams: message_start carries the input and cache counts with output_tokens = min(1, output +
//   reasoning); message_delta carries the final cumulative counts again (input, cache read/creation,
//   output_tokens), as the live API does. They REPLACE the earlier values; adding them double-counts.
//
// gemini (generateContent / streamGenerateContent; usageMetadata on the last stream chunk only)
//   promptTokenCount                                = input + cacheRead  (cache writes do not exist here)
//   cachedContentTokenCount                         = cacheRead          (only when > 0)
//   candidatesTokenCount                            = output
//   thoughtsTokenCount                              = reasoning          (only when > 0; OUTSIDE candidates)
//   totalTokenCount                                 = promptTokenCount + candidatesTokenCount + thoughtsTokenCount

export type FakeProtocol = "openai" | "anthropic" | "gemini" | "openai-responses";

export type ReplyBlock =
  | { type: "text"; text: string }
  | { type: "thinking"; text: string; signature?: string }
  /** Anthropic only; the other fakes leave it out. */
  | { type: "redacted_thinking"; data: string }
  /**
   * `args` as a string is sent verbatim as the arguments text (it may be deliberately invalid JSON).
   * `custom`: a call of a custom tool, whose `args` (a string) is its free-text input; the OpenAI
   * chat and Responses fakes write a custom call (`type: "custom"`, `custom_tool_call`), the others
   * ignore the flag.
   */
  | {
      type: "tool_call";
      id?: string;
      name: string;
      args: object | string;
      signature?: string;
      custom?: boolean;
    }
  /** A generated image (base64 bytes): Gemini renders an `inlineData` part; the others leave it out. */
  | { type: "image"; mediaType: string; data: string };

/** One generated token's log probability and its most likely alternatives. */
export interface ReplyLogprob {
  token: string;
  logprob: number;
  top?: Array<{ token: string; logprob: number }>;
}

/**
 * A web search the upstream ran on its own before answering: the queries it issued and the pages it
 * cites (each citing the text `cited`, which must occur in the reply's text).
 */
export interface ReplySearch {
  queries: string[];
  results: Array<{ url: string; title: string; cited: string }>;
}

export type Finish = "stop" | "length" | "tool_calls" | "stop_sequence" | "content_filter";

export interface ReplyUsage {
  input?: number;
  output?: number;
  cacheRead?: number;
  cacheWrite5m?: number;
  cacheWrite1h?: number;
  reasoning?: number;
}

export type Fault =
  /** Reset the connection as soon as the request head arrives (body not read, nothing answered). */
  | "refuse"
  /** Read and record the whole request, then reset the connection before any response byte. */
  | "reset-before"
  /** Send the headers and part of the body (stream: some chunks), then reset the connection. */
  | "reset-mid"
  /** Never answer; the request stays pending until the client aborts (recorded as `aborted`). */
  | "hang"
  /** Send the headers and part of the body (stream: some chunks), then go silent with the socket open. */
  | "stall-mid"
  /** 200 with a body that is not JSON; stream: some chunks, then a `data:` line that is not JSON. */
  | "malformed-json"
  /** Stream: everything but the final events, then a clean end. Non-stream: half the JSON, clean end. */
  | "truncated-sse"
  /** Stream: some chunks, then the protocol's native in-stream error. Non-stream: an overloaded error. */
  | "midstream-error"
  /**
   * Stream: some chunks, then an event that never ends (no blank line), more than the 64 MiB a
   * reader of SSE should hold, and the socket left open. Non-stream: as `reset-mid`.
   */
  | "oversized-event";

export interface Reply {
  blocks?: ReplyBlock[];
  /** Default: "tool_calls" when a tool call is among the blocks, else "stop". */
  finish?: Finish;
  stopSequence?: string;
  /** Gemini only: the candidate's `finishMessage` (why it stopped, in words). */
  finishMessage?: string;
  usage?: ReplyUsage;
  /**
   * Gemini only: every stream chunk carries usageMetadata, the running totals (the prompt whole,
   * the output so far), as Google's streams do; without it only the last chunk does.
   */
  runningUsage?: boolean;
  /** Log probabilities of the text's tokens (rendered by the protocols that carry them). */
  logprobs?: ReplyLogprob[];
  /** A server-side web search behind the answer (grounding, web_search tool, url citations). */
  search?: ReplySearch;
  /** Pieces each text/thinking block and each tool call's arguments are split into when streaming. */
  chunks?: number;
  /** Pause before each stream chunk after the first. */
  chunkDelayMs?: number;
  /**
   * Stream: the headers and every frame before the fault go out in one write, so the client reads
   * them at once (as a loaded machine coalesces the paced ones); the fault (its own bytes, or the
   * reset or end) follows `chunkDelayMs` later, or in that same write without it. The fault then
   * strikes after text the client has already read, however slow the machine.
   */
  burst?: boolean;
  /** Pause before answering at all (headers included): a slow generation behind a whole answer. */
  answerDelayMs?: number;
  /** Unknown top-level fields added to every response object and every stream chunk's data. */
  extraFields?: Record<string, unknown>;
  /** With status >= 400: an HTTP error in the protocol's native error shape (`errorBody` replaces it). */
  status?: number;
  /** Added to the response headers (success or error), e.g. `retry-after`. */
  headers?: Record<string, string>;
  errorBody?: unknown;
  fault?: Fault;
}

export const DEFAULT_TEXT = "Hello from the fake upstream.";
export const DEFAULT_USAGE: Required<ReplyUsage> = {
  input: 10,
  output: 6,
  cacheRead: 0,
  cacheWrite5m: 0,
  cacheWrite1h: 0,
  reasoning: 0,
};
/** Answered when the script queue is empty. */
export const DEFAULT_REPLY: Reply = { blocks: [{ type: "text", text: DEFAULT_TEXT }] };
export const DEFAULT_CHUNKS = 3;

/** The reply's usage with every bucket filled (DEFAULT_USAGE when the reply gives none). */
export function usageOf(reply: Reply): Required<ReplyUsage> {
  if (!reply.usage) return { ...DEFAULT_USAGE };
  const u = reply.usage;
  return {
    input: u.input ?? 0,
    output: u.output ?? 0,
    cacheRead: u.cacheRead ?? 0,
    cacheWrite5m: u.cacheWrite5m ?? 0,
    cacheWrite1h: u.cacheWrite1h ?? 0,
    reasoning: u.reasoning ?? 0,
  };
}

export function blocksOf(reply: Reply): ReplyBlock[] {
  return reply.blocks ?? [];
}

export function finishOf(reply: Reply): Finish {
  if (reply.finish) return reply.finish;
  return blocksOf(reply).some((b) => b.type === "tool_call") ? "tool_calls" : "stop";
}

/** The arguments as JSON text: a string is taken verbatim. */
export function argumentsText(args: object | string): string {
  return typeof args === "string" ? args : JSON.stringify(args);
}

/** The arguments as an object, for protocols whose wire carries a parsed object. */
export function argumentsObject(args: object | string): object {
  if (typeof args !== "string") return args;
  try {
    const parsed: unknown = JSON.parse(args);
    return parsed !== null && typeof parsed === "object" ? parsed : {};
  } catch {
    return {};
  }
}

/**
 * Splits text into at most `count` non-empty pieces of near-equal length, never inside a surrogate
 * pair. Empty text gives no pieces.
 */
export function splitPieces(text: string, count: number): string[] {
  const chars = Array.from(text);
  const n = Math.max(1, Math.min(Math.floor(count), chars.length));
  const pieces: string[] = [];
  let start = 0;
  for (let i = 0; i < n; i++) {
    const end = Math.round(((i + 1) * chars.length) / n);
    if (end > start) pieces.push(chars.slice(start, end).join(""));
    start = end;
  }
  return pieces;
}

const ALPHANUMERIC = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

/** A random id in the style providers use: a prefix and base-62 characters. */
export function randomId(prefix: string, length: number): string {
  let out = prefix;
  for (let i = 0; i < length; i++) out += ALPHANUMERIC[Math.floor(Math.random() * ALPHANUMERIC.length)];
  return out;
}

/** A copy of `data` with the reply's unknown top-level fields added. */
export function withExtra<T extends object>(data: T, reply: Reply): T {
  return reply.extraFields ? { ...data, ...reply.extraFields } : data;
}
