// Metering and exact pricing end to end, per protocol: an official SDK calls the gateway, a fake
// upstream reports known usage (cached and reasoning tokens), and the lookup returns nativeTokens
// and a cost equal to the one computed here by hand from the configured prices.

import assert from "node:assert/strict";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import Anthropic from "@anthropic-ai/sdk";
import { GoogleGenAI } from "@google/genai";
import OpenAI from "openai";
import { type FakeUpstream, startFakeUpstream } from "../../fakes/index.ts";
import { baseConfig, PAYG_KEY, type RunningGateway, SUB_KEY, startGateway } from "../../support/gateway.ts";
import { billedItems, lookupSettled, rawNumber } from "../../support/lookup.ts";
import { usd } from "../../support/money.ts";

const PRICES = { prompt: "2", completion: "8", cacheRead: "0.5", cacheWrite5m: "2.5", cacheWrite1h: "4" };
const TIER = { lowPrompt: "1.25", highPrompt: "2.5", lowCompletion: "10", highCompletion: "15" };

function pricedModel(id: string, provider: string) {
  const item = (value: string) => [{ value: Number(value), unit: "perMTokens", currency: "USD" }];
  return {
    id,
    display_name: id,
    created: "2025-01-01",
    input_modalities: ["text"],
    output_modalities: ["text"],
    reasoning: true,
    context_length: 1000000,
    max_output_tokens: 8192,
    pricings: {
      prompt: item(PRICES.prompt),
      completion: item(PRICES.completion),
      input_cache_read: item(PRICES.cacheRead),
      input_cache_write_5_min: item(PRICES.cacheWrite5m),
      input_cache_write_1_h: item(PRICES.cacheWrite1h),
    },
    endpoints: [{ provider, model: "upstream-model" }],
  };
}

function tieredModel(id: string, provider: string) {
  const tier = (low: string, high: string) => [
    {
      value: Number(low),
      unit: "perMTokens",
      currency: "USD",
      conditions: { prompt_tokens: { unit: "kTokens", lte: 200 } },
    },
    {
      value: Number(high),
      unit: "perMTokens",
      currency: "USD",
      conditions: { prompt_tokens: { unit: "kTokens", gt: 200 } },
    },
  ];
  return {
    ...pricedModel(id, provider),
    pricings: {
      prompt: tier(TIER.lowPrompt, TIER.highPrompt),
      completion: tier(TIER.lowCompletion, TIER.highCompletion),
    },
  };
}

let gw: RunningGateway;
let fo: FakeUpstream;
let fa: FakeUpstream;
let fg: FakeUpstream;
let fr: FakeUpstream;

before(async () => {
  [fo, fa, fg, fr] = await Promise.all([
    startFakeUpstream("openai"),
    startFakeUpstream("anthropic"),
    startFakeUpstream("gemini"),
    startFakeUpstream("openai-responses"),
  ]);
  const dir = mkdtempSync(join(tmpdir(), "switchyard-cost-"));
  gw = await startGateway(
    baseConfig(dir, {
      providers: [
        { id: "fo", protocol: "openai", base_url: fo.url, api_key: "k" },
        { id: "fa", protocol: "anthropic", base_url: fa.url, api_key: "k" },
        { id: "fg", protocol: "gemini", base_url: fg.url, api_key: "k" },
        { id: "fr", protocol: "openai-responses", base_url: fr.url, api_key: "k" },
      ],
      models: [
        pricedModel("fo/priced", "fo"),
        pricedModel("fa/priced", "fa"),
        pricedModel("fg/priced", "fg"),
        pricedModel("fr/priced", "fr"),
        tieredModel("fg/tiered", "fg"),
      ],
    }),
    { dir },
  );
});
after(async () => {
  await gw?.stop();
  await Promise.all([fo?.close(), fa?.close(), fg?.close(), fr?.close()]);
});

const m = (tokens: number, price: string) => usd.perMillion(tokens, price);

describe("the lookup prices every generation exactly", () => {
  test("chat-completions (relayed to a chat upstream): cached and reasoning tokens", async () => {
    fo.script({
      blocks: [{ type: "text", text: "hi" }],
      usage: { input: 1000, cacheRead: 4000, output: 300, reasoning: 200 },
    });
    const client = new OpenAI({ apiKey: PAYG_KEY, baseURL: `${gw.url}/v1`, maxRetries: 0 });
    const res = await client.chat.completions.create({
      model: "fo/priced",
      messages: [{ role: "user", content: "x" }],
    });
    const body = await lookupSettled(gw.url, res.id, PAYG_KEY);
    assert.deepEqual(body.nativeTokens, {
      prompt_tokens: 5000,
      completion_tokens: 500,
      total_tokens: 5500,
      completion_tokens_details: { reasoning_tokens: 200 },
      prompt_tokens_details: { cached_tokens: 4000 },
    });
    // 1000 uncached at the prompt rate, 4000 cache reads at the read rate, 500 completion (reasoning included).
    const expected = usd.add(m(1000, PRICES.prompt), m(4000, PRICES.cacheRead), m(500, PRICES.completion));
    assert.equal(expected, "0.008");
    assert.equal(usd.normalize(rawNumber(body, "usage")), expected);
    assert.deepEqual(billedItems(body), {
      prompt: m(1000, PRICES.prompt),
      input_cache_read: m(4000, PRICES.cacheRead),
      completion: m(500, PRICES.completion),
    });
  });

  test("messages (streamed, relayed): cache reads, 5-minute and 1-hour cache writes, thinking", async () => {
    fa.script({
      blocks: [
        { type: "thinking", text: "hmm", signature: "sig-1" },
        { type: "text", text: "done" },
      ],
      usage: {
        input: 1000,
        cacheRead: 4000,
        cacheWrite5m: 2000,
        cacheWrite1h: 500,
        output: 300,
        reasoning: 200,
      },
    });
    const client = new Anthropic({ apiKey: PAYG_KEY, baseURL: gw.url, maxRetries: 0 });
    const msg = await client.messages
      .stream({ model: "fa/priced", max_tokens: 2000, messages: [{ role: "user", content: "x" }] })
      .finalMessage();
    assert.equal(msg.usage.input_tokens, 1000);
    assert.equal(msg.usage.cache_read_input_tokens, 4000);
    const body = await lookupSettled(gw.url, msg.id, PAYG_KEY);
    assert.equal(body.streamed, true);
    assert.deepEqual(body.nativeTokens, {
      prompt_tokens: 7500,
      completion_tokens: 500,
      total_tokens: 8000,
      completion_tokens_details: { reasoning_tokens: 0 },
      prompt_tokens_details: { cached_tokens: 4000 },
    });
    const expected = usd.add(
      m(1000, PRICES.prompt),
      m(4000, PRICES.cacheRead),
      m(2000, PRICES.cacheWrite5m),
      m(500, PRICES.cacheWrite1h),
      m(500, PRICES.completion),
    );
    assert.equal(expected, "0.015");
    assert.equal(usd.normalize(rawNumber(body, "usage")), expected);
    assert.deepEqual(billedItems(body), {
      prompt: m(1000, PRICES.prompt),
      input_cache_read: m(4000, PRICES.cacheRead),
      input_cache_write_5_min: m(2000, PRICES.cacheWrite5m),
      input_cache_write_1_h: m(500, PRICES.cacheWrite1h),
      completion: m(500, PRICES.completion),
    });
  });

  test("content-generation (streamed, relayed): cached content and thoughts outside candidates", async () => {
    fg.script({
      blocks: [{ type: "text", text: "ok" }],
      usage: { input: 1000, cacheRead: 4000, output: 300, reasoning: 200 },
    });
    const ai = new GoogleGenAI({ apiKey: PAYG_KEY, httpOptions: { baseUrl: gw.url } });
    let id = "";
    for await (const chunk of await ai.models.generateContentStream({ model: "fg/priced", contents: "x" }))
      id = chunk.responseId ?? id;
    const body = await lookupSettled(gw.url, id, PAYG_KEY);
    assert.equal(body.api, "generateContent");
    assert.deepEqual(body.nativeTokens, {
      prompt_tokens: 5000,
      completion_tokens: 500,
      total_tokens: 5500,
      completion_tokens_details: { reasoning_tokens: 200 },
      prompt_tokens_details: { cached_tokens: 4000 },
    });
    const expected = usd.add(m(1000, PRICES.prompt), m(4000, PRICES.cacheRead), m(500, PRICES.completion));
    assert.equal(usd.normalize(rawNumber(body, "usage")), expected);
  });

  test("translated (messages client → chat upstream): the same usage is priced the same", async () => {
    fo.script({
      blocks: [{ type: "text", text: "hi" }],
      usage: { input: 1000, cacheRead: 4000, output: 300, reasoning: 200 },
    });
    const client = new Anthropic({ apiKey: PAYG_KEY, baseURL: gw.url, maxRetries: 0 });
    const msg = await client.messages.create({
      model: "fo/priced",
      max_tokens: 100,
      messages: [{ role: "user", content: "x" }],
    });
    // The messages protocol reports input excluding cache reads.
    assert.equal(msg.usage.input_tokens, 1000);
    assert.equal(msg.usage.cache_read_input_tokens, 4000);
    assert.equal(msg.usage.output_tokens, 500);
    const body = await lookupSettled(gw.url, msg.id, PAYG_KEY);
    assert.equal(body.nativeTokens.prompt_tokens, 5000);
    assert.equal(usd.normalize(rawNumber(body, "usage")), "0.008");
  });

  test("responses (streamed, relayed to a Responses upstream): cached and reasoning tokens, api responses", async () => {
    fr.script({
      blocks: [{ type: "text", text: "ok" }],
      usage: { input: 1000, cacheRead: 4000, cacheWrite5m: 2000, output: 300, reasoning: 200 },
    });
    const client = new OpenAI({ apiKey: PAYG_KEY, baseURL: `${gw.url}/v1`, maxRetries: 0 });
    const res = await client.responses
      .stream({ model: "fr/priced", input: "x", store: false })
      .finalResponse();
    // input_tokens includes cached tokens and cache writes; output_tokens includes reasoning.
    assert.equal(res.usage?.input_tokens, 7000);
    assert.equal(res.usage?.input_tokens_details.cached_tokens, 4000);
    assert.equal(res.usage?.output_tokens_details.reasoning_tokens, 200);
    const body = await lookupSettled(gw.url, res.id, PAYG_KEY);
    assert.equal(body.api, "responses");
    assert.equal(body.streamed, true);
    assert.deepEqual(body.nativeTokens, {
      prompt_tokens: 7000,
      completion_tokens: 500,
      total_tokens: 7500,
      completion_tokens_details: { reasoning_tokens: 200 },
      prompt_tokens_details: { cached_tokens: 4000 },
    });
    // Cache writes are one total in this protocol: priced at the 5-minute write rate.
    const expected = usd.add(
      m(1000, PRICES.prompt),
      m(4000, PRICES.cacheRead),
      m(2000, PRICES.cacheWrite5m),
      m(500, PRICES.completion),
    );
    assert.equal(expected, "0.013");
    assert.equal(usd.normalize(rawNumber(body, "usage")), expected);
    assert.deepEqual(billedItems(body), {
      prompt: m(1000, PRICES.prompt),
      input_cache_read: m(4000, PRICES.cacheRead),
      input_cache_write_5_min: m(2000, PRICES.cacheWrite5m),
      completion: m(500, PRICES.completion),
    });
  });

  test("translated (responses client → messages upstream): the same usage is priced the same", async () => {
    fa.script({
      blocks: [{ type: "text", text: "hi" }],
      usage: { input: 1000, cacheRead: 4000, output: 300, reasoning: 200 },
    });
    const client = new OpenAI({ apiKey: PAYG_KEY, baseURL: `${gw.url}/v1`, maxRetries: 0 });
    const res = await client.responses.create({ model: "fa/priced", input: "x", store: false });
    // The Responses API reports input including cache reads (the messages upstream excluded them).
    assert.equal(res.usage?.input_tokens, 5000);
    assert.equal(res.usage?.input_tokens_details.cached_tokens, 4000);
    assert.equal(res.usage?.output_tokens, 500);
    const body = await lookupSettled(gw.url, res.id, PAYG_KEY);
    assert.equal(body.api, "responses");
    assert.equal(body.nativeTokens.prompt_tokens, 5000);
    assert.equal(usd.normalize(rawNumber(body, "usage")), "0.008");
  });

  test("a prompt over 200k tokens is priced at the high tier for prompt and completion alike", async () => {
    const ai = new GoogleGenAI({ apiKey: PAYG_KEY, httpOptions: { baseUrl: gw.url } });
    fg.script({ blocks: [{ type: "text", text: "big" }], usage: { input: 200_000, output: 1000 } });
    const low = await ai.models.generateContent({ model: "fg/tiered", contents: "x" });
    fg.script({ blocks: [{ type: "text", text: "bigger" }], usage: { input: 200_001, output: 1000 } });
    const high = await ai.models.generateContent({ model: "fg/tiered", contents: "x" });
    const lowBody = await lookupSettled(gw.url, low.responseId!, PAYG_KEY);
    const highBody = await lookupSettled(gw.url, high.responseId!, PAYG_KEY);
    // Exactly 200k (200 kTokens, lte 200) is still the low tier.
    assert.equal(
      usd.normalize(rawNumber(lowBody, "usage")),
      usd.add(m(200_000, TIER.lowPrompt), m(1000, TIER.lowCompletion)),
    );
    assert.equal(
      usd.normalize(rawNumber(highBody, "usage")),
      usd.add(m(200_001, TIER.highPrompt), m(1000, TIER.highCompletion)),
    );
    assert.equal(usd.normalize(rawNumber(highBody, "usage")), "0.5150025");
  });

  test("a subscription key's lookup has metering but no billing fields", async () => {
    fo.script({ blocks: [{ type: "text", text: "hi" }], usage: { input: 10, output: 5 } });
    const client = new OpenAI({ apiKey: SUB_KEY, baseURL: `${gw.url}/v1`, maxRetries: 0 });
    const res = await client.chat.completions.create({
      model: "fo/priced",
      messages: [{ role: "user", content: "x" }],
    });
    const body = await lookupSettled(gw.url, res.id, SUB_KEY);
    assert.equal(body.nativeTokens.prompt_tokens, 10);
    assert.equal("usage" in body || "ratingResponses" in body, false);
  });
});

/** feeItemCode → billAmount, exactly as written. */
