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
  /**
   * The counts are, in part or whole, the gateway's own estimate, not the upstream's: a generation
   * its client left before the upstream's final usage (src/gateway/meter.ts `estimate`). Kept with
   * the counts.
   */
  estimated?: true;
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

/**
 * The most any one count of an upstream's usage is taken as: 2^40, a thousand billion tokens, far
 * past any model's context yet far from what the stores hold (a 64-bit column, and the day's sums
 * of many generations). An upstream that reports more is broken; its count taken as it came broke
 * a PostgreSQL ledger's write (1e300 or 2^63 does not fit a bigint), and the generation was lost.
 */
export const MAX_WIRE_COUNT = 2 ** 40;

/**
 * A count as a wire reports it: a whole number from 0 to MAX_WIRE_COUNT. Absent, null, negative or
 * not a number is 0; a fraction (no provider sends one) is rounded, since the ledger's counts are
 * whole; more than the most is the most.
 */
export function countFromWire(value: unknown): number {
  if (typeof value !== "number" || !(value > 0)) return 0;
  return Math.min(Math.round(value), MAX_WIRE_COUNT);
}
