// The rate-limit headers as each SDK family reads them: OpenAI's durations, Anthropic's RFC 3339 times.

import assert from "node:assert/strict";
import { test } from "node:test";
import { duration, rateLimitHeaders, retryHeaders } from "../../src/limits/rate-limit-headers.ts";

test("durations are written as OpenAI writes them", () => {
  assert.deepEqual([0, 12, 999, 1000, 1500, 59_999, 60_000, 360_000, 90_500].map(duration), [
    "0ms",
    "12ms",
    "999ms",
    "1s",
    "1.5s",
    "59.999s",
    "1m0s",
    "6m0s",
    "1m30.5s",
  ]);
});

test("x-ratelimit-* for OpenAI-style and Gemini callers, anthropic-ratelimit-* for messages", () => {
  const result = { waitMs: 0, requestsLevel: 0.5, tokensLevel: -20 };
  const now = Date.UTC(2026, 10, 26, 0, 0, 0);
  assert.deepEqual(rateLimitHeaders("openai-chat", { rpm: 2, tpm: 100 }, result, now), {
    "x-ratelimit-limit-requests": "2",
    "x-ratelimit-remaining-requests": "0",
    "x-ratelimit-reset-requests": "45s",
    "x-ratelimit-limit-tokens": "100",
    "x-ratelimit-remaining-tokens": "0",
    "x-ratelimit-reset-tokens": "1m12s",
  });
  assert.deepEqual(rateLimitHeaders("anthropic", { rpm: 2 }, result, now), {
    "anthropic-ratelimit-requests-limit": "2",
    "anthropic-ratelimit-requests-remaining": "0",
    "anthropic-ratelimit-requests-reset": "2026-11-26T00:00:45Z",
  });
  assert.deepEqual(Object.keys(rateLimitHeaders("gemini", { tpm: 5 }, result, now)), [
    "x-ratelimit-limit-tokens",
    "x-ratelimit-remaining-tokens",
    "x-ratelimit-reset-tokens",
  ]);
});

test("retry-after is whole seconds, at least 1; retry-after-ms is exact", () => {
  assert.deepEqual(retryHeaders(250), { "retry-after": "1", "retry-after-ms": "250" });
  assert.deepEqual(retryHeaders(29_001), { "retry-after": "30", "retry-after-ms": "29001" });
});
