// Issue 12 item 3: every category a model's pricings list is billed when used. A fake upstream
// answers with generated images (Gemini `inlineData`) and a web search (Gemini grounding, the
// messages protocol's server_tool_use count); the lookup bills `image` and `web_search` per count,
// besides the tokens, whichever protocol the client speaks and whether or not it streams.

import assert from "node:assert/strict";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import Anthropic from "@anthropic-ai/sdk";
import { GoogleGenAI } from "@google/genai";
import OpenAI from "openai";
import { type FakeUpstream, startFakeUpstream } from "../../fakes/index.ts";
import type { Reply } from "../../fakes/reply.ts";
import { baseConfig, PAYG_KEY, type RunningGateway, startGateway } from "../../support/gateway.ts";
import { billedItems, lookupSettled } from "../../support/lookup.ts";
import { usd } from "../../support/money.ts";

const PRICE = {
  prompt: "2",
  completion: "8",
  image: "0.039",
  search3: "0.014",
  search25: "0.035",
  claude: "0.01",
};

function model(id: string, provider: string, upstream: string, search: string) {
  const tokens = (value: string) => [{ value: Number(value), unit: "perMTokens", currency: "USD" }];
  const count = (value: string) => [{ value: Number(value), unit: "perCount", currency: "USD" }];
  return {
    id,
    display_name: id,
    created: "2025-01-01",
    input_modalities: ["text"],
    output_modalities: ["text", "image"],
    reasoning: false,
    context_length: 1000000,
    max_output_tokens: 8192,
    pricings: {
      prompt: tokens(PRICE.prompt),
      completion: tokens(PRICE.completion),
      image: count(PRICE.image),
      web_search: count(search),
    },
    endpoints: [{ provider, model: upstream }],
  };
}

let gw: RunningGateway;
let fg: FakeUpstream;
let fa: FakeUpstream;

before(async () => {
  [fg, fa] = await Promise.all([startFakeUpstream("gemini"), startFakeUpstream("anthropic")]);
  const dir = mkdtempSync(join(tmpdir(), "switchyard-media-"));
  gw = await startGateway(
    baseConfig(dir, {
      providers: [
        { id: "fg", protocol: "gemini", base_url: fg.url, api_key: "k" },
        { id: "fa", protocol: "anthropic", base_url: fa.url, api_key: "k" },
      ],
      models: [
        // Gemini 3 bills grounding per search query, 2.5 per grounded prompt.
        model("fg/image-3", "fg", "gemini-3-pro-image-preview", PRICE.search3),
        model("fg/flash-25", "fg", "gemini-2.5-flash", PRICE.search25),
        model("fa/search", "fa", "claude-sonnet-4-5", PRICE.claude),
      ],
    }),
    { dir },
  );
});
after(async () => {
  await gw?.stop();
  await Promise.all([fg?.close(), fa?.close()]);
});

const PNG = Buffer.from("fake png bytes").toString("base64");
const USAGE = { input: 1000, output: 2000 };
const SEARCH = {
  queries: ["weather paris", "weather paris tomorrow"],
  results: [{ url: "https://example.com/paris", title: "Paris weather", cited: "sunny" }],
};
const IMAGES_AND_SEARCH: Reply = {
  blocks: [
    { type: "text", text: "Here it is, sunny." },
    { type: "image", mediaType: "image/png", data: PNG },
    { type: "image", mediaType: "image/png", data: PNG },
  ],
  search: SEARCH,
  usage: USAGE,
};

const tokensCost = {
  prompt: usd.perMillion(1000, PRICE.prompt),
  completion: usd.perMillion(2000, PRICE.completion),
};

function assertBilled(body: any, expected: Record<string, string>): void {
  const all = { ...tokensCost, ...expected };
  assert.deepEqual(billedItems(body), all);
  assert.equal(usd.normalize(String(body.usage)), usd.add(...Object.values(all)));
}

describe("media units and searches are billed (issue 12 item 3)", () => {
  test("content-generation relay: two generated images and two search queries (Gemini 3)", async () => {
    fg.script(IMAGES_AND_SEARCH);
    const ai = new GoogleGenAI({ apiKey: PAYG_KEY, httpOptions: { baseUrl: gw.url } });
    const res = await ai.models.generateContent({ model: "fg/image-3", contents: "draw" });
    const body = await lookupSettled(gw.url, res.responseId!, PAYG_KEY);
    assertBilled(body, { image: usd.times(2, PRICE.image), web_search: usd.times(2, PRICE.search3) });
  });

  test("content-generation relay, streamed: the same units, read chunk by chunk", async () => {
    fg.script(IMAGES_AND_SEARCH);
    const ai = new GoogleGenAI({ apiKey: PAYG_KEY, httpOptions: { baseUrl: gw.url } });
    let id = "";
    for await (const chunk of await ai.models.generateContentStream({
      model: "fg/image-3",
      contents: "draw",
    }))
      id = chunk.responseId ?? id;
    const body = await lookupSettled(gw.url, id, PAYG_KEY);
    assertBilled(body, { image: usd.times(2, PRICE.image), web_search: usd.times(2, PRICE.search3) });
  });

  test("chat-completions to a Gemini upstream: images counted, grounding once per prompt on 2.5", async () => {
    fg.script({ ...IMAGES_AND_SEARCH, search: { ...SEARCH, queries: ["a", "b", "c"] } });
    const client = new OpenAI({ apiKey: PAYG_KEY, baseURL: `${gw.url}/v1`, maxRetries: 0 });
    const res = await client.chat.completions.create({
      model: "fg/flash-25",
      messages: [{ role: "user", content: "draw" }],
    });
    const body = await lookupSettled(gw.url, res.id, PAYG_KEY);
    assertBilled(body, { image: usd.times(2, PRICE.image), web_search: usd.times(1, PRICE.search25) });
  });

  test("Responses API to a Gemini upstream, streamed: images and searches", async () => {
    fg.script(IMAGES_AND_SEARCH);
    const client = new OpenAI({ apiKey: PAYG_KEY, baseURL: `${gw.url}/v1`, maxRetries: 0 });
    const stream = await client.responses.create({ model: "fg/image-3", input: "draw", stream: true });
    let id = "";
    for await (const event of stream) if (event.type === "response.completed") id = event.response.id;
    const body = await lookupSettled(gw.url, id, PAYG_KEY);
    assertBilled(body, { image: usd.times(2, PRICE.image), web_search: usd.times(2, PRICE.search3) });
  });

  test("chat-completions to a messages upstream, streamed: server_tool_use.web_search_requests", async () => {
    fa.script({ blocks: [{ type: "text", text: "It is sunny." }], search: SEARCH, usage: USAGE });
    const client = new OpenAI({ apiKey: PAYG_KEY, baseURL: `${gw.url}/v1`, maxRetries: 0 });
    const stream = await client.chat.completions.create({
      model: "fa/search",
      messages: [{ role: "user", content: "weather?" }],
      stream: true,
    });
    let id = "";
    for await (const chunk of stream) id = chunk.id;
    const body = await lookupSettled(gw.url, id, PAYG_KEY);
    assertBilled(body, { web_search: usd.times(2, PRICE.claude) });
  });

  test("messages relay: the search count the upstream reports", async () => {
    fa.script({ blocks: [{ type: "text", text: "It is sunny." }], search: SEARCH, usage: USAGE });
    const client = new Anthropic({ apiKey: PAYG_KEY, baseURL: gw.url, maxRetries: 0 });
    const msg = await client.messages.create({
      model: "fa/search",
      max_tokens: 100,
      messages: [{ role: "user", content: "weather?" }],
    });
    assert.equal(msg.usage.server_tool_use?.web_search_requests, 2);
    const body = await lookupSettled(gw.url, msg.id, PAYG_KEY);
    assertBilled(body, { web_search: usd.times(2, PRICE.claude) });
  });
});
