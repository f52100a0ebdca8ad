// One normalized usage object feeds the client's response, the ledger and the rating (docs/architecture.md
// §10: the billing path must never rebuild usage differently from the response path).
//
// Semantics (chosen once, converted at each protocol's edge):
// - promptTokens counts every input token, cached reads and cache writes included
//   (chat `prompt_tokens` semantics; messages `input_tokens` is promptTokens minus cache reads/writes).
// - completionTokens counts every generated token, reasoning included
//   (chat `completion_tokens`; Gemini reports `thoughtsTokenCount` outside `candidatesTokenCount`).

export interface Usage {
  promptTokens: number;
  /** Subset of promptTokens read from the prompt cache. */
  cacheReadTokens: number;
  /** Subset of promptTokens written to the cache with 5-minute retention (or unspecified retention). */
  cacheWrite5mTokens: number;
  /** Subset of promptTokens written to the cache with 1-hour retention. */
  cacheWrite1hTokens: number;
  completionTokens: number;
  /** Subset of completionTokens spent on reasoning. */
  reasoningTokens: number;
  webSearchRequests: number;
  /** Output media units, when a model produces them. */
  imageOutputs?: number;
  audioSeconds?: number;
  videoSeconds?: number;
}

export function emptyUsage(): Usage {
  return {
    promptTokens: 0,
    cacheReadTokens: 0,
    cacheWrite5mTokens: 0,
    cacheWrite1hTokens: 0,
    completionTokens: 0,
    reasoningTokens: 0,
    webSearchRequests: 0,
  };
}

/** Prompt tokens neither read from nor written to the cache: the messages protocol's `input_tokens`. */
export function uncachedPromptTokens(u: Usage): number {
  return Math.max(0, u.promptTokens - u.cacheReadTokens - u.cacheWrite5mTokens - u.cacheWrite1hTokens);
}

export function totalTokens(u: Usage): number {
  return u.promptTokens + u.completionTokens;
}

/** A count as a wire reports it: a positive finite number, else 0 (absent, null, negative, not a number). */
export function countFromWire(value: unknown): number {
  return typeof value === "number" && Number.isFinite(value) && value > 0 ? value : 0;
}
