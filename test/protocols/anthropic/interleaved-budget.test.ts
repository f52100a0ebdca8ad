// budget_tokens against max_tokens, and under the interleaved-thinking beta against the context window.

import assert from "node:assert/strict";
import { test } from "node:test";
import type { GatewayError } from "../../../src/ir/errors.ts";
import { anthropic } from "../../../src/protocols/anthropic/index.ts";
import type { IncomingHeaders } from "../../../src/protocols/types.ts";

const body = {
  model: "anthropic/claude-sonnet-4-5",
  max_tokens: 32_000,
  thinking: { type: "enabled", budget_tokens: 32_000 },
  messages: [{ role: "user", content: "Hi" }],
};
const version = { "anthropic-version": "2023-06-01" };
const model = { id: "anthropic/claude-sonnet-4-5", reasoning: true, contextLength: 200_000, endpoints: [] };

function decode(headers: IncomingHeaders, budget = 32_000) {
  const request = anthropic.decodeRequest(
    { ...body, thinking: { type: "enabled", budget_tokens: budget } },
    {
      headers: { ...version, ...headers },
    },
  );
  anthropic.checkModel?.(request, model);
  return request;
}

test("the beta, under either name and among others, lets the budget reach the context window", () => {
  for (const headers of [
    { "anthropic-beta": "interleaved-thinking-2025-05-14" },
    { "anthropic-beta": "claude-code-20250219, interleaved-thinking-2025-05-14" },
    { "vendora-beta": "interleaved-thinking-2025-05-14" },
  ]) {
    assert.equal(decode(headers).reasoning?.budgetTokens, 32_000);
    assert.equal(decode(headers, 200_000).reasoning?.budgetTokens, 200_000);
    assert.throws(
      () => decode(headers, 200_001),
      (e: GatewayError) =>
        e.param === "thinking.budget_tokens" && /context window \(200000\)/.test(e.message),
    );
  }
});

test("without it, budget_tokens must be less than max_tokens, and the message names the beta", () => {
  assert.throws(
    () => decode({ "anthropic-beta": "context-1m-2025-08-07" }),
    (e: GatewayError) =>
      e.param === "thinking.budget_tokens" &&
      /less than max_tokens \(32000\).*interleaved-thinking/.test(e.message),
  );
  assert.equal(decode({}, 31_999).reasoning?.budgetTokens, 31_999);
});
