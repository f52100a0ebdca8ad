// Per-key limits and budgets through the official SDKs (retries off, so each refusal is seen as it
// comes): requests per minute in each protocol, concurrency on streams, tokens per minute settled on
// the real usage, and a daily budget refused once spent.

import assert from "node:assert/strict";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import Anthropic from "@anthropic-ai/sdk";
import { ApiError, GoogleGenAI } from "@google/genai";
import OpenAI from "openai";
import { baseConfig, type RunningGateway, startGateway } from "../../support/gateway.ts";
import { lookupSettled } from "../../support/lookup.ts";
import { BUDGET_KEY, CONCURRENCY_KEY, limitsConfig, RPM_KEYS, TPM_KEY } from "./support.ts";

let gw: RunningGateway;

before(async () => {
  const dir = mkdtempSync(join(tmpdir(), "switchyard-limits-"));
  const base = baseConfig(dir);
  const extra = limitsConfig();
  gw = await startGateway(
    { ...base, ...extra, keys: [...(base.keys as unknown[]), ...(extra.keys as unknown[])] },
    { dir },
  );
});
after(() => gw?.stop());

const openai = (apiKey: string) => new OpenAI({ apiKey, baseURL: `${gw.url}/v1`, maxRetries: 0 });
const anthropic = (apiKey: string) =>
  new Anthropic({
    apiKey,
    baseURL: gw.url,
    maxRetries: 0,
    defaultHeaders: { "anthropic-version": "2023-06-01" },
  });
const gemini = (apiKey: string) => new GoogleGenAI({ apiKey, httpOptions: { baseUrl: gw.url } });
/** The error a refused request rejects with (a request that is admitted fails the test). */
const refusal = (request: Promise<unknown>): Promise<unknown> =>
  request.then(
    () => assert.fail("the request was admitted"),
    (e: unknown) => e,
  );
const user = (text: string) => [{ role: "user" as const, content: text }];

/** Asserts a whole-second retry-after and the given headers are on a refusal. */
function assertRetryAfter(headers: Headers, names: string[]): void {
  const retryAfter = Number(headers.get("retry-after"));
  assert.ok(Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= 60, `retry-after ${retryAfter}`);
  for (const name of names) assert.ok(headers.get(name) !== null, `${name} missing`);
}

describe("rpm: 2 — the third request in a minute is refused in the caller's protocol", () => {
  test("chat-completions: the openai SDK's RateLimitError, x-ratelimit-* headers", async () => {
    const client = openai(RPM_KEYS.chat);
    const first = await client.chat.completions
      .create({ model: "local/echo-1", messages: user("one") })
      .withResponse();
    assert.equal(first.response.headers.get("x-ratelimit-limit-requests"), "2");
    assert.equal(first.response.headers.get("x-ratelimit-remaining-requests"), "1");
    await client.chat.completions.create({ model: "local/echo-1", messages: user("two") });
    const err = await refusal(
      client.chat.completions.create({ model: "local/echo-1", messages: user("three") }),
    );
    assert.ok(err instanceof OpenAI.RateLimitError, String(err));
    assert.equal(err.status, 429);
    assert.equal(err.code, "rate_limit_exceeded");
    assertRetryAfter(err.headers, ["x-ratelimit-reset-requests", "x-ratelimit-remaining-requests"]);
    assert.equal(err.headers.get("x-ratelimit-remaining-requests"), "0");
    assert.match(err.message, /2 requests per minute/);
  });

  test("Responses API (streamed): the openai SDK's RateLimitError", async () => {
    const client = openai(RPM_KEYS.responses);
    for (const input of ["one", "two"]) {
      const stream = await client.responses.create({ model: "local/echo-1", input, stream: true });
      for await (const _ of stream);
    }
    const err = await refusal(
      client.responses.create({ model: "local/echo-1", input: "three", stream: true }),
    );
    assert.ok(err instanceof OpenAI.RateLimitError, String(err));
    assertRetryAfter(err.headers, ["x-ratelimit-limit-requests"]);
  });

  test("messages: the Anthropic SDK's RateLimitError, anthropic-ratelimit-* headers", async () => {
    const client = anthropic(RPM_KEYS.messages);
    const first = await client.messages
      .create({ model: "local/echo-1", max_tokens: 50, messages: user("one") })
      .withResponse();
    assert.equal(first.response.headers.get("anthropic-ratelimit-requests-limit"), "2");
    assert.match(
      first.response.headers.get("anthropic-ratelimit-requests-reset") ?? "",
      /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/,
    );
    await client.messages
      .stream({ model: "local/echo-1", max_tokens: 50, messages: user("two") })
      .finalMessage();
    const err = await refusal(
      client.messages.create({ model: "local/echo-1", max_tokens: 50, messages: user("three") }),
    );
    assert.ok(err instanceof Anthropic.RateLimitError, String(err));
    assert.equal((err.error as any).error.type, "rate_limit_error");
    assertRetryAfter(err.headers, [
      "anthropic-ratelimit-requests-remaining",
      "anthropic-ratelimit-requests-reset",
    ]);
  });

  test("content-generation: @google/genai's ApiError 429 RESOURCE_EXHAUSTED", async () => {
    const ai = gemini(RPM_KEYS.gemini);
    await ai.models.generateContent({ model: "local/echo-1", contents: "one" });
    for await (const _ of await ai.models.generateContentStream({ model: "local/echo-1", contents: "two" }));
    const err = await refusal(ai.models.generateContent({ model: "local/echo-1", contents: "three" }));
    assert.ok(err instanceof ApiError, String(err));
    assert.equal(err.status, 429);
    assert.match(err.message, /RESOURCE_EXHAUSTED/);
    // The SDK's error has no headers: read them off the wire.
    const res = await fetch(`${gw.url}/v1beta/models/local/echo-1:generateContent`, {
      method: "POST",
      headers: { "x-goog-api-key": RPM_KEYS.gemini, "content-type": "application/json" },
      body: JSON.stringify({ contents: [{ parts: [{ text: "four" }] }] }),
    });
    assert.equal(res.status, 429);
    assertRetryAfter(res.headers, ["x-ratelimit-limit-requests"]);
  });
});

test("concurrency: 1 — a second concurrent stream is refused while the first completes", async () => {
  const client = openai(CONCURRENCY_KEY);
  const prompt = "a slow stream of several words that the echo model repeats one piece at a time";
  const first = await client.chat.completions.create({
    model: "slow/echo-1",
    messages: user(prompt),
    stream: true,
  });
  const pieces: string[] = [];
  const iterator = first[Symbol.asyncIterator]();
  const firstPiece = await iterator.next();
  assert.equal(firstPiece.done, false);
  const err = await refusal(
    client.chat.completions.create({ model: "slow/echo-1", messages: user("second"), stream: true }),
  );
  assert.ok(err instanceof OpenAI.RateLimitError, String(err));
  assert.match(err.message, /1 concurrent requests/);
  for (let r = await iterator.next(); !r.done; r = await iterator.next())
    pieces.push(r.value.choices[0]?.delta?.content ?? "");
  assert.ok(pieces.join("").length > 0, "the first stream completed");
  // Its slot is freed at its end: the next request is admitted.
  const next = await client.chat.completions.create({ model: "slow/echo-1", messages: user("after") });
  assert.ok(next.choices[0].message.content);
});

test("concurrency: a client that disconnects mid-stream frees its slot", async () => {
  const client = openai(CONCURRENCY_KEY);
  const controller = new AbortController();
  const stream = await client.chat.completions.create(
    { model: "slow/echo-1", messages: user("words ".repeat(40)), stream: true },
    { signal: controller.signal },
  );
  await stream[Symbol.asyncIterator]().next();
  await assert.rejects(
    client.chat.completions.create({ model: "slow/echo-1", messages: user("meanwhile") }),
    OpenAI.RateLimitError,
  );
  controller.abort();
  // The slot is freed once the gateway sees the disconnect: admitted within a moment.
  for (let i = 0; ; i++) {
    try {
      await client.chat.completions.create({ model: "slow/echo-1", messages: user("next") });
      break;
    } catch (err) {
      assert.ok(err instanceof OpenAI.RateLimitError && i < 50, String(err));
      await new Promise((r) => setTimeout(r, 20));
    }
  }
});

test("tpm: admitted on the estimate (prompt + max output), settled on the real usage", async () => {
  const client = anthropic(TPM_KEY);
  // 200 of 300 tokens reserved (max_tokens) while it runs; it uses far fewer, and gives them back.
  const first = await client.messages.create({
    model: "local/echo-1",
    max_tokens: 200,
    messages: user("hi"),
  });
  const used = first.usage.input_tokens + first.usage.output_tokens;
  assert.ok(used < 50, `used ${used}`);
  // Settled: a second request of the same estimate fits in what is left (300 - used ≥ 200).
  const second = await client.messages
    .create({ model: "local/echo-1", max_tokens: 200, messages: user("hi") })
    .withResponse();
  const remaining = Number(second.response.headers.get("anthropic-ratelimit-tokens-remaining"));
  assert.ok(remaining < 300 - used - 200 + 5, `remaining ${remaining} counts the second's estimate`);
  // Settled again; now an estimate over what is left is refused.
  const err = await refusal(
    client.messages.create({ model: "local/echo-1", max_tokens: 290, messages: user("hi") }),
  );
  assert.ok(err instanceof Anthropic.RateLimitError, String(err));
  assert.match(err.message, /300 tokens per minute/);
  assert.ok(err.headers.get("anthropic-ratelimit-tokens-reset"));
});

test("a $0.01 daily budget: requests are refused once it is spent, naming it and its reset", async () => {
  const client = openai(BUDGET_KEY);
  let spent = 0n; // in 10^-12 USD, exact
  const scale = (usd: string) => {
    const [whole, frac = ""] = usd.split(".");
    return BigInt(whole) * 10n ** 12n + BigInt((frac + "0".repeat(12)).slice(0, 12));
  };
  const budget = scale("0.01");
  let admitted = 0;
  for (;;) {
    try {
      const chat = await client.chat.completions.create({
        model: "local/pricey-1",
        messages: user("spend a little"),
      });
      admitted++;
      const record = await lookupSettled(gw.url, chat.id, BUDGET_KEY);
      assert.ok(spent < budget, "admitted although the budget was already spent");
      spent += scale(String(record.usage));
    } catch (err) {
      assert.ok(err instanceof OpenAI.RateLimitError, String(err));
      assert.equal(err.status, 429);
      assert.equal(err.code, "insufficient_quota");
      assert.match(err.message, /day budget of \$0\.01 is spent/);
      assert.match(err.message, /resets at \d{4}-\d\d-\d\dT00:00:00\.000Z/);
      assert.equal(err.headers.get("x-should-retry"), "false");
      break;
    }
    assert.ok(admitted < 20, "never refused");
  }
  assert.ok(admitted >= 2, `admitted ${admitted}`);
  assert.ok(spent >= budget, "refused before the budget was spent");
  // Past this process's one-second cache, the spend read back from the ledger still refuses; and in the
  // messages protocol it is Anthropic's billing error, 402.
  await new Promise((r) => setTimeout(r, 1_100));
  const err = await refusal(
    anthropic(BUDGET_KEY).messages.create({
      model: "local/pricey-1",
      max_tokens: 20,
      messages: user("more"),
    }),
  );
  assert.ok(err instanceof Anthropic.APIError && err.status === 402, String(err));
  assert.equal((err.error as any).error.type, "billing_error");
});
