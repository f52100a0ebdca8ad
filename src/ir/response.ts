import type { RedactedThinkingBlock, TextBlock, ThinkingBlock, ToolCallBlock } from "./request.ts";

/** An image the model generated (Gemini `inlineData`), always as base64 bytes with their type. */
export interface GeneratedImageBlock {
  type: "image";
  source: { kind: "base64"; mediaType: string; data: string };
}

import type { Usage } from "./usage.ts";

/**
 * Why generation stopped, in one vocabulary:
 * - stop: natural end of turn; stop_sequence: a stop sequence matched (see `stopSequence`);
 * - length: max output tokens reached; tool_calls: the model called tools;
 * - content_filter: output withheld by a safety filter; refusal: the model declined;
 * - pause: a long-running server tool paused the turn; error / other: anything else.
 */
export type FinishReason =
  | "stop"
  | "stop_sequence"
  | "length"
  | "tool_calls"
  | "content_filter"
  | "refusal"
  | "pause"
  | "error"
  | "other";

/** One page a web search found. `encryptedContent` and `pageAge`: the messages protocol's, kept for it. */
export interface SearchResult {
  url: string;
  title: string;
  encryptedContent?: string;
  pageAge?: string;
}

/**
 * A web search the upstream ran on its own (messages server_tool_use + web_search_tool_result, a
 * Responses web_search_call, a Gemini grounding query): the query and what it found. Arrives whole.
 */
export interface WebSearchBlock {
  type: "web_search";
  id: string;
  query: string;
  results: SearchResult[];
  /** The upstream's error code when the search failed (messages `web_search_tool_result_error`). */
  errorCode?: string;
}

export type OutputBlock =
  | TextBlock
  | ToolCallBlock
  | ThinkingBlock
  | RedactedThinkingBlock
  | GeneratedImageBlock
  | WebSearchBlock;

/** A token and its log probability (natural log), with its UTF-8 bytes when the upstream gave them. */
export interface TokenProbability {
  token: string;
  logprob: number;
  bytes?: number[];
}

/**
 * One generated token of the answer's text: its log probability and the most likely alternatives
 * at that step (chat `logprobs.content[]`, Gemini `logprobsResult` chosen + top candidates,
 * Responses `output_text.logprobs[]`).
 */
export interface TokenLogprob extends TokenProbability {
  top: TokenProbability[];
}

export interface Response {
  /** Upstream's id; the gateway replaces it with the generation id when encoding for the client. */
  id: string;
  model: string;
  content: OutputBlock[];
  finishReason: FinishReason;
  stopSequence?: string;
  /**
   * Why the upstream stopped, in its words, when it said (Gemini `finishMessage`, a blocked
   * prompt's `blockReasonMessage`): shown as a refusal where the client's protocol has one.
   */
  finishMessage?: string;
  usage: Usage;
  /** Per-token log probabilities of the text, in order, when the client asked and the upstream gave them. */
  logprobs?: TokenLogprob[];
}
