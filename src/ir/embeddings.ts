// The canonical embedding request and answer: what OpenAI's `/v1/embeddings` and Gemini's
// `:embedContent` / `:batchEmbedContents` can both say, decoded by each client face and encoded by
// each upstream (docs/translation.md §14). One vector per input, in the inputs' order.

import type { RoutingRequest } from "./request.ts";

/** One thing to embed: text, or token ids (OpenAI's pre-tokenized input). */
export type EmbeddingInput = (
  | { kind: "text"; text: string }
  | {
      kind: "tokens";
      tokens: number[];
    }
) & {
  /** Gemini's `taskType` (RETRIEVAL_QUERY, SEMANTIC_SIMILARITY…): what the vector is for. */
  taskType?: string;
  /** Gemini's `title` of a RETRIEVAL_DOCUMENT input. */
  title?: string;
};

export interface EmbeddingRequest {
  /** The catalog model id the client asked for. */
  model: string;
  inputs: EmbeddingInput[];
  /** OpenAI `dimensions`, Gemini `outputDimensionality`: a shorter vector than the model's own. */
  dimensions?: number;
  /** How the client wants its vectors written: OpenAI's `encoding_format` (base64 is little-endian float32). */
  encoding: "float" | "base64";
  /** Gemini `:embedContent` (one input, answered as `embedding`) rather than a batch. */
  single: boolean;
  /** The client's own end-user id (OpenAI `user`), passed on to an upstream that takes it. */
  user?: string;
  routing?: RoutingRequest;
  /** The request field names as the client wrote them, for errors raised after decoding. */
  fields: EmbeddingFields;
  /** Fields accepted and not sent upstream, for `x-switchyard-ignored`. */
  ignored: string[];
}

/** Where a face keeps what a later check may have to name. */
export interface EmbeddingFields {
  /** `input` (OpenAI) or `requests` / `content` (Gemini). */
  input: string;
  /** `dimensions` (OpenAI) or `outputDimensionality` (Gemini). */
  dimensions: string;
}

export interface EmbeddingResponse {
  /** One vector per input, in order. */
  vectors: number[][];
  /** The upstream's count of the inputs' tokens; undefined when it reports none (Gemini's API does not). */
  promptTokens?: number;
}

/** The texts of a request, for counting its tokens where the upstream does not (token ids count themselves). */
export function inputTexts(request: EmbeddingRequest): string[] {
  return request.inputs.map((input) => (input.kind === "text" ? input.text : ""));
}

/** The tokens of the inputs given as token ids. */
export function tokenIdCount(request: EmbeddingRequest): number {
  let count = 0;
  for (const input of request.inputs) if (input.kind === "tokens") count += input.tokens.length;
  return count;
}

/** `inputs` cut into consecutive batches of at most `limit`, the upstream's batch limit. */
export function batchesOf<T>(inputs: readonly T[], limit: number): T[][] {
  const batches: T[][] = [];
  for (let at = 0; at < inputs.length; at += limit) batches.push(inputs.slice(at, at + limit));
  return batches;
}
