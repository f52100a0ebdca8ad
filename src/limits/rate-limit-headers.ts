// The rate-limit headers each SDK family reads, on every answer to a key with limits and on its 429s:
// `x-ratelimit-{limit,remaining,reset}-{requests,tokens}` (OpenAI's; the reset a duration such as
// "1s", "6m0s") for chat-completions, the Responses API and content-generation (Gemini has none of
// its own), `anthropic-ratelimit-{requests,tokens}-{limit,remaining,reset}` (the reset an RFC 3339
// time) for messages. `retry-after` (seconds) and `retry-after-ms` go on a refusal only.

import type { ProtocolName } from "../protocols/types.ts";
import { refillMs, type TakeResult } from "./buckets.ts";

export interface Limits {
  rpm?: number;
  tpm?: number;
}

export function rateLimitHeaders(
  face: ProtocolName,
  limits: Limits,
  result: TakeResult,
  now = Date.now(),
): Record<string, string> {
  const headers: Record<string, string> = {};
  const put = (kind: "requests" | "tokens", limit: number | undefined, level: number) => {
    if (!limit) return;
    const remaining = String(Math.max(0, Math.floor(level)));
    const resetMs = refillMs(level, limit, limit);
    if (face === "anthropic") {
      headers[`anthropic-ratelimit-${kind}-limit`] = String(limit);
      headers[`anthropic-ratelimit-${kind}-remaining`] = remaining;
      headers[`anthropic-ratelimit-${kind}-reset`] = new Date(now + resetMs)
        .toISOString()
        .replace(/\.\d+Z$/, "Z");
    } else {
      headers[`x-ratelimit-limit-${kind}`] = String(limit);
      headers[`x-ratelimit-remaining-${kind}`] = remaining;
      headers[`x-ratelimit-reset-${kind}`] = duration(resetMs);
    }
  };
  put("requests", limits.rpm, result.requestsLevel);
  put("tokens", limits.tpm, result.tokensLevel);
  return headers;
}

/** `retry-after` in whole seconds (at least 1) and `retry-after-ms`, which both OpenAI's and Anthropic's SDKs prefer. */
export function retryHeaders(waitMs: number): Record<string, string> {
  return { "retry-after": String(Math.max(1, Math.ceil(waitMs / 1000))), "retry-after-ms": String(waitMs) };
}

/** A duration as OpenAI writes it: "250ms", "1.5s", "6m0s". */
export function duration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)}ms`;
  const seconds = ms / 1000;
  if (seconds < 60) return `${Number(seconds.toFixed(3))}s`;
  const minutes = Math.floor(seconds / 60);
  return `${minutes}m${Number((seconds - minutes * 60).toFixed(3))}s`;
}
