// GET /api/v1/management/generation: the record of docs/architecture.md §6 for generations made through each
// protocol; billing fields for pay-as-you-go keys only; another account's id is a 404.

import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import Anthropic from "@anthropic-ai/sdk";
import { GoogleGenAI } from "@google/genai";
import OpenAI from "openai";
import { OTHER_KEY, PAYG_KEY, type RunningGateway, SUB_KEY, startGateway } from "../support/gateway.ts";
import { lookupSettled, rawNumber } from "../support/lookup.ts";
import { usd } from "../support/money.ts";

let gw: RunningGateway;

before(async () => {
  gw = await startGateway();
});
after(() => gw?.stop());

async function lookup(id: string, key = PAYG_KEY, path = "/api/v1/management/generation") {
  if (path === "/api/v1/management/generation" && key === PAYG_KEY) {
    const body = await lookupSettled(gw.url, id, key).catch(() => undefined);
    if (body) return { res: { status: 200 } as Response, body };
  }
  const res = await fetch(`${gw.url}${path}?id=${encodeURIComponent(id)}`, {
    headers: { authorization: `Bearer ${key}` },
  });
  return { res, body: (await res.json()) as any };
}

async function echoPrices() {
  const res = await fetch(`${gw.url}/v1/models/local/echo-1`);
  const model = (await res.json()) as any;
  return {
    prompt: String(model.pricings.prompt[0].value),
    completion: String(model.pricings.completion[0].value),
  };
}

/** The cost of a call from its token counts and the catalog's per-million prices, in exact decimals. */
function expectedCost(
  prompt: number,
  completion: number,
  prices: { prompt: string; completion: string },
): string {
  return usd.add(usd.perMillion(prompt, prices.prompt), usd.perMillion(completion, prices.completion));
}

describe("generation lookup", () => {
  test("a chat completion is looked up with its tokens and exact cost", async () => {
    const client = new OpenAI({ apiKey: PAYG_KEY, baseURL: `${gw.url}/v1`, maxRetries: 0 });
    const res = await client.chat.completions.create({
      model: "local/echo-1",
      messages: [{ role: "user", content: "count my tokens" }],
    });
    const { res: http, body } = await lookup(res.id);
    assert.equal(http.status, 200);
    assert.equal(body.api, "chat.completions");
    assert.equal(body.generationId, res.id);
    assert.equal(body.model, "local/echo-1");
    assert.equal(body.streamed, false);
    assert.equal(body.finishReason, "stop");
    assert.equal(typeof body.createAt, "string");
    assert.equal(typeof body.latency, "number");
    assert.equal(typeof body.generationTime, "number");
    assert.equal(body.requestRetryTimes, 0);
    assert.equal(body.finalRetry, true);
    assert.deepEqual(body.nativeTokens, {
      prompt_tokens: res.usage!.prompt_tokens,
      completion_tokens: res.usage!.completion_tokens,
      total_tokens: res.usage!.total_tokens,
      completion_tokens_details: { reasoning_tokens: 0 },
      prompt_tokens_details: { cached_tokens: 0 },
    });
    const cost = expectedCost(res.usage!.prompt_tokens, res.usage!.completion_tokens, await echoPrices());
    assert.equal(usd.normalize(rawNumber(body, "usage")), cost);
    assert.equal(usd.normalize(rawNumber(body, "billAmount")), cost);
    const codes = body.ratingResponses.ratingDetails.map((d: any) => d.feeItemCode).sort();
    assert.deepEqual(codes, ["completion", "prompt"]);
    assert.equal(typeof body.ratingResponses.priceVersion, "string");
  });

  test("a streamed message is recorded as streamed with its tokens", async () => {
    const client = new Anthropic({ apiKey: PAYG_KEY, baseURL: gw.url, maxRetries: 0 });
    const msg = await client.messages
      .stream({
        model: "local/echo-1",
        max_tokens: 100,
        messages: [{ role: "user", content: "stream and record" }],
      })
      .finalMessage();
    const { body } = await lookup(msg.id);
    assert.equal(body.api, "messages");
    assert.equal(body.streamed, true);
    assert.equal(body.nativeTokens.completion_tokens, msg.usage.output_tokens);
    assert.equal(body.nativeTokens.prompt_tokens, msg.usage.input_tokens);
    assert.ok(body.latency >= 0 && body.generationTime >= 0);
  });

  test("a generateContent call is looked up too", async () => {
    const ai = new GoogleGenAI({ apiKey: PAYG_KEY, httpOptions: { baseUrl: gw.url } });
    const res = await ai.models.generateContent({ model: "local/echo-1", contents: "record me" });
    const { body } = await lookup(res.responseId!);
    assert.equal(body.api, "generateContent");
    assert.equal(body.nativeTokens.prompt_tokens, res.usageMetadata!.promptTokenCount);
  });

  test("a subscription key sees metering but never billing fields", async () => {
    const client = new OpenAI({ apiKey: SUB_KEY, baseURL: `${gw.url}/v1`, maxRetries: 0 });
    const res = await client.chat.completions.create({
      model: "local/echo-1",
      messages: [{ role: "user", content: "sub" }],
    });
    await new Promise((r) => setTimeout(r, 100));
    const { res: http, body } = await lookup(res.id, SUB_KEY);
    assert.equal(http.status, 200);
    assert.equal(body.nativeTokens.prompt_tokens, res.usage!.prompt_tokens);
    assert.equal("usage" in body, false);
    assert.equal("ratingResponses" in body, false);
  });

  test("another account's generation and an unknown id are both 404; no or bad key is 401", async () => {
    const client = new OpenAI({ apiKey: PAYG_KEY, baseURL: `${gw.url}/v1`, maxRetries: 0 });
    const res = await client.chat.completions.create({
      model: "local/echo-1",
      messages: [{ role: "user", content: "mine" }],
    });
    assert.equal((await lookup(res.id, OTHER_KEY)).res.status, 404);
    assert.equal((await lookup("gen-doesnotexist")).res.status, 404);
    const noKey = await fetch(`${gw.url}/api/v1/management/generation?id=${res.id}`);
    assert.equal(noKey.status, 401);
    assert.equal((await lookup(res.id, "sk-wrong-key")).res.status, 401);
  });

  test("the deprecated path answers the same with a Deprecation header", async () => {
    const client = new OpenAI({ apiKey: PAYG_KEY, baseURL: `${gw.url}/v1`, maxRetries: 0 });
    const res = await client.chat.completions.create({
      model: "local/echo-1",
      messages: [{ role: "user", content: "old" }],
    });
    const current = await lookup(res.id);
    const old = await lookup(res.id, PAYG_KEY, "/api/v1/generation");
    assert.equal(old.res.status, 200);
    assert.ok(old.res.headers.get("deprecation"));
    assert.deepEqual(JSON.parse(JSON.stringify(old.body)), JSON.parse(JSON.stringify(current.body)));
  });
});
