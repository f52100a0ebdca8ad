// Embeddings end to end (docs/architecture.md §12): the official `openai` SDK's embeddings.create and
// `@google/genai`'s models.embedContent against a running gateway, served by local/embed-1, by a fake
// upstream of the client's own protocol, and by the other protocol's fake (batches split to Gemini's
// 100, `dimensions` ↔ `outputDimensionality`); fallback on a 503; the lookup's usage and exact cost;
// rpm and budget refusals and bad inputs in each face's protocol.

import assert from "node:assert/strict";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { createOpenAI } from "@ai-sdk/openai";
import { GoogleGenAI } from "@google/genai";
import { embed } from "ai";
import OpenAI from "openai";
import { FAKE_DIMENSIONS, fakeInputTokens, fakeVector } from "../fakes/embeddings.ts";
import { type FakeUpstream, startFakeUpstream } from "../fakes/index.ts";
import { fakeProvider } from "../support/config.ts";
import { baseConfig, PAYG_KEY, type RunningGateway, startGateway } from "../support/gateway.ts";
import { lookupSettled, rawNumber } from "../support/lookup.ts";
import { usd } from "../support/money.ts";

const RPM_KEY = "sk-test-embed-rpm-0123456789";
const BUDGET_KEY = "sk-test-embed-budget-0123456789";

/** An embedding model of the config file, served by the given providers under `upstream`. */
function embeddingModel(id: string, providers: string[], upstream: string, prompt = 0.02) {
  return {
    id,
    output_modalities: ["embeddings"],
    context_length: 8191,
    max_output_tokens: 1,
    dimensions: 64,
    pricings: { prompt: [{ value: prompt, unit: "perMTokens", currency: "USD" }] },
    endpoints: providers.map((provider) => ({ provider, model: upstream })),
  };
}

let gw: RunningGateway;
let oai: FakeUpstream;
let oaiBackup: FakeUpstream;
let gem: FakeUpstream;
let gemSlow: FakeUpstream;
let openai: OpenAI;
let genai: GoogleGenAI;

before(async () => {
  [oai, oaiBackup, gem, gemSlow] = await Promise.all([
    startFakeUpstream("openai"),
    startFakeUpstream("openai"),
    startFakeUpstream("gemini"),
    startFakeUpstream("gemini", { embeddingDelayMs: 50 }),
  ]);
  const dir = mkdtempSync(join(tmpdir(), "switchyard-embed-"));
  const config = baseConfig(dir, {
    providers: [
      fakeProvider("oai", oai),
      fakeProvider("oai-backup", oaiBackup),
      fakeProvider("gem", gem),
      fakeProvider("gem-slow", gemSlow),
    ],
    models: [
      embeddingModel("oai/embed-small", ["oai"], "text-embedding-3-small"),
      embeddingModel("gem/embed", ["gem"], "gemini-embedding-001", 0.15),
      embeddingModel("gem/slow-embed", ["gem-slow"], "gemini-embedding-001", 0.15),
      embeddingModel("fb/embed", ["oai", "oai-backup"], "text-embedding-3-small"),
      embeddingModel("local/pricey-embed", ["local"], "embed-1", 100),
    ],
  });
  (config.keys as object[]).push(
    { key: RPM_KEY, account: "acme", limits: { rpm: 1 } },
    { key: BUDGET_KEY, account: "acme", budget: { usd: 0.01, period: "day" } },
  );
  gw = await startGateway(config, { dir });
  openai = new OpenAI({ apiKey: PAYG_KEY, baseURL: `${gw.url}/v1`, maxRetries: 0 });
  genai = new GoogleGenAI({ apiKey: PAYG_KEY, httpOptions: { baseUrl: gw.url } });
});
after(async () => {
  await gw?.stop();
  await Promise.all([oai?.close(), oaiBackup?.close(), gem?.close(), gemSlow?.close()]);
});

function float32s(base64: string): number[] {
  const bytes = Buffer.from(base64, "base64");
  return Array.from({ length: bytes.length / 4 }, (_, i) => bytes.readFloatLE(i * 4));
}

const norm = (v: number[]) => Math.sqrt(v.reduce((s, x) => s + x * x, 0));
const cosine = (a: number[], b: number[]) => a.reduce((s, x, i) => s + x * b[i], 0) / (norm(a) * norm(b));

describe("local/embed-1", () => {
  test("the openai SDK: one string as floats, 1024 unit-length dimensions, real token counts", async () => {
    const res = await openai.embeddings
      .create({ model: "local/embed-1", input: "The quick brown fox", encoding_format: "float" })
      .withResponse();
    assert.match(res.response.headers.get("x-generation-id") ?? "", /^gen-/);
    const { data, model, usage, object } = res.data;
    assert.equal(object, "list");
    assert.equal(model, "local/embed-1");
    assert.equal(data.length, 1);
    assert.equal(data[0].object, "embedding");
    assert.equal(data[0].embedding.length, 1024);
    assert.ok(Math.abs(norm(data[0].embedding) - 1) < 1e-6);
    // o200k: "The", " quick", " brown", " fox".
    assert.deepEqual(usage, { prompt_tokens: 4, total_tokens: 4 });
  });

  test("the openai SDK's default (base64) gives the same float32 vectors; texts sharing words score closer", async () => {
    const input = ["the cat sat on the mat", "a cat on a mat", "quarterly revenue projections"];
    const floats = await openai.embeddings.create({
      model: "local/embed-1",
      input,
      encoding_format: "float",
    });
    const decoded = await openai.embeddings.create({ model: "local/embed-1", input });
    assert.deepEqual(
      decoded.data.map((d) => d.embedding),
      floats.data.map((d) => d.embedding),
    );
    const [a, b, c] = floats.data.map((d) => d.embedding);
    assert.ok(cosine(a, b) > cosine(a, c) + 0.2, `${cosine(a, b)} vs ${cosine(a, c)}`);
    assert.deepEqual(
      floats.data.map((d) => d.index),
      [0, 1, 2],
    );
  });

  test("dimensions gives a shorter unit vector; the same text always gives the same vector", async () => {
    const one = await openai.embeddings.create({ model: "local/embed-1", input: "hello", dimensions: 256 });
    const two = await openai.embeddings.create({ model: "local/embed-1", input: ["hello"], dimensions: 256 });
    assert.equal(one.data[0].embedding.length, 256);
    assert.ok(Math.abs(norm(one.data[0].embedding) - 1) < 1e-6);
    assert.deepEqual(one.data[0].embedding, two.data[0].embedding);
  });

  test("@google/genai embedContent: one content and several, outputDimensionality", async () => {
    const one = await genai.models.embedContent({
      model: "local/embed-1",
      contents: "Hello from Gemini land",
      config: { outputDimensionality: 32 },
    });
    assert.equal(one.embeddings?.length, 1);
    assert.equal(one.embeddings?.[0].values?.length, 32);
    const several = await genai.models.embedContent({
      model: "local/embed-1",
      contents: ["first text", "second text", "third"],
    });
    assert.equal(several.embeddings?.length, 3);
    for (const e of several.embeddings ?? []) assert.equal(e.values?.length, 1024);
    const direct = await openai.embeddings.create({ model: "local/embed-1", input: "second text" });
    assert.deepEqual(several.embeddings?.[1].values, direct.data[0].embedding);
  });

  test("the AI SDK's embed: one value, with its token usage", async () => {
    const provider = createOpenAI({ apiKey: PAYG_KEY, baseURL: `${gw.url}/v1` });
    const one = await embed({
      model: provider.embedding("local/embed-1"),
      value: "red apples and green pears",
    });
    const direct = await openai.embeddings.create({
      model: "local/embed-1",
      input: "red apples and green pears",
    });
    assert.deepEqual(one.embedding, direct.data[0].embedding);
    assert.equal(one.usage.tokens, 5);
  });

  test(":embedContent answers `embedding.values`", async () => {
    const res = await fetch(`${gw.url}/v1beta/models/local/embed-1:embedContent`, {
      method: "POST",
      headers: { "x-goog-api-key": PAYG_KEY, "content-type": "application/json" },
      body: JSON.stringify({ content: { parts: [{ text: "hi" }] }, outputDimensionality: 4 }),
    });
    assert.equal(res.status, 200);
    assert.match(res.headers.get("x-generation-id") ?? "", /^gen-/);
    const body = (await res.json()) as any;
    assert.equal(body.embedding.values.length, 4);
  });
});

describe("upstreams", () => {
  test("the openai SDK to an OpenAI-compatible upstream (relayed): exactly the fake's vectors, in order, float and base64", async () => {
    const input = ["alpha", "beta", "gamma"];
    const before = oai.requests.length;
    // Asked for explicitly, base64 comes back as the SDK received it: little-endian float32 bytes.
    for (const encoding_format of ["float", "base64"] as const) {
      const res = await openai.embeddings.create({
        model: "oai/embed-small",
        input,
        dimensions: 16,
        encoding_format,
      });
      const vectors = res.data.map((d) =>
        typeof d.embedding === "string" ? float32s(d.embedding) : d.embedding,
      );
      assert.deepEqual(
        vectors,
        input.map((text) => fakeVector(text, 16)),
      );
      assert.equal(res.model, "oai/embed-small");
      const tokens = input.reduce((s, t) => s + fakeInputTokens(t), 0);
      assert.deepEqual(res.usage, { prompt_tokens: tokens, total_tokens: tokens });
    }
    // Relayed: the client's body as it sent it, but for the upstream's model name.
    const sent = oai.requests.slice(before).map((r) => r.body);
    assert.deepEqual(sent, [
      { model: "text-embedding-3-small", input, dimensions: 16, encoding_format: "float" },
      { model: "text-embedding-3-small", input, dimensions: 16, encoding_format: "base64" },
    ]);
  });

  test("a member the gateway does not know is not relayed, and is named ignored", async () => {
    const before = oai.requests.length;
    const res = await fetch(`${gw.url}/v1/embeddings`, {
      method: "POST",
      headers: { authorization: `Bearer ${PAYG_KEY}`, "content-type": "application/json" },
      body: JSON.stringify({ model: "oai/embed-small", input: "x", novel_option: true }),
    });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get("x-switchyard-ignored"), "novel_option");
    assert.deepEqual(oai.requests.slice(before)[0].body, { model: "text-embedding-3-small", input: "x" });
    assert.equal(((await res.json()) as any).model, "oai/embed-small");
  });

  test("token-id inputs reach an OpenAI-compatible upstream as ids", async () => {
    const res = await openai.embeddings.create({
      model: "oai/embed-small",
      input: [[1, 2, 3], [4]],
      encoding_format: "float",
    });
    assert.deepEqual(
      res.data.map((d) => d.embedding),
      [fakeVector([1, 2, 3]), fakeVector([4])],
    );
    assert.equal(res.usage.prompt_tokens, 4);
  });

  test("the openai SDK to a Gemini upstream: 150 inputs split into batches of 100 and 50, joined in order", async () => {
    const input = Array.from({ length: 150 }, (_, i) => `text number ${i}`);
    const before = gem.requests.length;
    const res = await openai.embeddings.create({ model: "gem/embed", input, dimensions: 12 });
    assert.deepEqual(
      res.data.map((d) => d.embedding),
      input.map((text) => fakeVector(text, 12)),
    );
    const sent = gem.requests.slice(before);
    assert.deepEqual(
      sent.map((r) => r.pathname),
      [
        "/v1beta/models/gemini-embedding-001:batchEmbedContents",
        "/v1beta/models/gemini-embedding-001:batchEmbedContents",
      ],
    );
    assert.deepEqual(sent.map((r) => r.body.requests.length).sort(), [100, 50].sort());
    assert.deepEqual(sent[0].body.requests[0], {
      model: "models/gemini-embedding-001",
      content: { parts: [{ text: sent[0].body.requests[0].content.parts[0].text }] },
      outputDimensionality: 12,
    });
    // Gemini reports no usage: the gateway counts the inputs (o200k) itself.
    assert.ok(res.usage.prompt_tokens >= 150 * 3, String(res.usage.prompt_tokens));
  });

  test("1000 inputs to Gemini's 100 a call: ten calls, never more than four at the upstream at once, joined in order", async () => {
    const input = Array.from({ length: 1000 }, (_, i) => `input ${i}`);
    gemSlow.reset();
    const res = await openai.embeddings.create({ model: "gem/slow-embed", input, dimensions: 4 });
    assert.deepEqual(
      res.data.map((d) => d.embedding),
      input.map((text) => fakeVector(text, 4)),
    );
    assert.equal(gemSlow.requests.length, 10);
    // Four at a time (EMBEDDING_CALLS_AT_ONCE), not all ten; more than one, or they would not overlap.
    assert.ok(gemSlow.peakInFlight <= 4 && gemSlow.peakInFlight > 1, `peak ${gemSlow.peakInFlight}`);
  });

  test("@google/genai to a Gemini upstream: taskType and title carried, the fake's vectors", async () => {
    const before = gem.requests.length;
    const res = await genai.models.embedContent({
      model: "gem/embed",
      contents: ["doc one", "doc two"],
      config: { taskType: "RETRIEVAL_DOCUMENT", title: "A title", outputDimensionality: 5 },
    });
    assert.deepEqual(
      res.embeddings?.map((e) => e.values),
      [fakeVector("doc one", 5), fakeVector("doc two", 5)],
    );
    const sent = gem.requests.slice(before)[0].body.requests;
    assert.equal(sent[1].taskType, "RETRIEVAL_DOCUMENT");
    assert.equal(sent[1].title, "A title");
  });

  test("Gemini's face to an OpenAI upstream: outputDimensionality → dimensions, taskType dropped and named", async () => {
    const before = oai.requests.length;
    const res = await fetch(`${gw.url}/v1beta/models/oai/embed-small:batchEmbedContents`, {
      method: "POST",
      headers: { "x-goog-api-key": PAYG_KEY, "content-type": "application/json" },
      body: JSON.stringify({
        requests: ["one", "two"].map((text) => ({
          model: "models/oai/embed-small",
          content: { parts: [{ text }] },
          taskType: "RETRIEVAL_QUERY",
          outputDimensionality: 6,
        })),
      }),
    });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get("x-switchyard-ignored"), "taskType");
    const body = (await res.json()) as any;
    assert.deepEqual(body, {
      embeddings: [{ values: fakeVector("one", 6) }, { values: fakeVector("two", 6) }],
    });
    assert.deepEqual(oai.requests.slice(before)[0].body, {
      model: "text-embedding-3-small",
      input: ["one", "two"],
      encoding_format: "float",
      dimensions: 6,
    });
  });

  test("token ids to a Gemini upstream are a 400 naming input, before any call", async () => {
    const before = gem.requests.length;
    await assert.rejects(
      openai.embeddings.create({ model: "gem/embed", input: [1, 2, 3] }),
      (err: any) => err instanceof OpenAI.BadRequestError && err.param === "input",
    );
    assert.equal(gem.requests.length, before);
  });

  test("a 503 from the first endpoint falls back to the next; the lookup names the provider that answered", async () => {
    oai.script({ status: 503 });
    const res = await openai.embeddings
      .create({ model: "fb/embed", input: "fall back", encoding_format: "float" })
      .withResponse();
    assert.deepEqual(res.data.data[0].embedding, fakeVector("fall back"));
    assert.equal(res.response.headers.get("x-switchyard-provider"), "oai-backup");
    const record = await lookupSettled(gw.url, res.response.headers.get("x-generation-id")!, PAYG_KEY);
    assert.equal(record.provider, "oai-backup");
    assert.equal(record.requestRetryTimes, 1);
  });
});

describe("metering", () => {
  test("the lookup: api embeddings, the prompt tokens and their exact cost", async () => {
    const input = ["exact", "cost", "please"];
    const res = await openai.embeddings.create({ model: "gem/embed", input }).withResponse();
    const id = res.response.headers.get("x-generation-id")!;
    const record = await lookupSettled(gw.url, id, PAYG_KEY);
    assert.equal(record.api, "embeddings");
    assert.equal(record.model, "gem/embed");
    assert.equal(record.status, "completed");
    assert.equal(record.streamed, false);
    const tokens = res.data.usage.prompt_tokens;
    assert.equal(record.nativeTokens.prompt_tokens, tokens);
    assert.equal(record.nativeTokens.completion_tokens, 0);
    assert.equal(usd.normalize(rawNumber(record, "usage")), usd.normalize(usd.perMillion(tokens, "0.15")));
  });

  test("rpm: the second call in a minute is refused in each face's protocol", async () => {
    const client = new OpenAI({ apiKey: RPM_KEY, baseURL: `${gw.url}/v1`, maxRetries: 0 });
    await client.embeddings.create({ model: "local/embed-1", input: "one" });
    await assert.rejects(
      client.embeddings.create({ model: "local/embed-1", input: "two" }),
      (err: unknown) => err instanceof OpenAI.RateLimitError,
    );
    const res = await fetch(`${gw.url}/v1beta/models/local/embed-1:embedContent`, {
      method: "POST",
      headers: { "x-goog-api-key": RPM_KEY, "content-type": "application/json" },
      body: JSON.stringify({ content: { parts: [{ text: "three" }] } }),
    });
    assert.equal(res.status, 429);
    assert.equal(((await res.json()) as any).error.status, "RESOURCE_EXHAUSTED");
  });

  test("budget: once spent, an embedding is refused in each face's protocol", async () => {
    const client = new OpenAI({ apiKey: BUDGET_KEY, baseURL: `${gw.url}/v1`, maxRetries: 0 });
    // 100 USD per million tokens: a call must fit the 0.01 USD budget to be admitted (its input,
    // estimated at 90 tokens, holds 0.009 USD); once it is spent, a call as large no longer fits.
    const spent = await client.embeddings
      .create({ model: "local/pricey-embed", input: "spend ".repeat(60) })
      .withResponse();
    await lookupSettled(gw.url, spent.response.headers.get("x-generation-id")!, BUDGET_KEY);
    await assert.rejects(
      client.embeddings.create({ model: "local/pricey-embed", input: "more ".repeat(72) }),
      (err: unknown) => err instanceof OpenAI.RateLimitError,
    );
    const res = await fetch(`${gw.url}/v1beta/models/local/pricey-embed:embedContent`, {
      method: "POST",
      headers: { "x-goog-api-key": BUDGET_KEY, "content-type": "application/json" },
      body: JSON.stringify({ content: { parts: [{ text: "more ".repeat(72) }] } }),
    });
    assert.equal(res.status, 429);
    assert.equal(((await res.json()) as any).error.status, "RESOURCE_EXHAUSTED");
  });
});

describe("bad requests", () => {
  const cases: Array<[string, Record<string, unknown>, string]> = [
    ["an empty input", { input: [] }, "input"],
    ["an empty string", { input: "" }, "input"],
    ["a non-string element", { input: ["ok", 3] }, "input[1]"],
    ["a wrong encoding_format", { input: "x", encoding_format: "int8" }, "encoding_format"],
    ["dimensions above the model's", { input: "x", dimensions: 4096 }, "dimensions"],
    ["a chat model", { model: "local/echo-1", input: "x" }, "model"],
  ];
  for (const [name, body, param] of cases)
    test(`${name} is a 400 naming ${param}`, async () => {
      const res = await fetch(`${gw.url}/v1/embeddings`, {
        method: "POST",
        headers: { authorization: `Bearer ${PAYG_KEY}`, "content-type": "application/json" },
        body: JSON.stringify({ model: "local/embed-1", ...body }),
      });
      assert.equal(res.status, 400);
      assert.match(res.headers.get("x-generation-id") ?? "", /^gen-/);
      const error = ((await res.json()) as any).error;
      assert.equal(error.type, "invalid_request_error");
      assert.equal(error.param, param);
    });

  test("Gemini's face: a bad taskType, an empty batch, a chat model are Gemini 400s", async () => {
    for (const [path, body] of [
      ["local/embed-1:embedContent", { content: { parts: [{ text: "x" }] }, taskType: "NOPE" }],
      ["local/embed-1:batchEmbedContents", { requests: [] }],
      ["local/echo-1:embedContent", { content: { parts: [{ text: "x" }] } }],
    ] as const) {
      const res = await fetch(`${gw.url}/v1beta/models/${path}`, {
        method: "POST",
        headers: { "x-goog-api-key": PAYG_KEY, "content-type": "application/json" },
        body: JSON.stringify(body),
      });
      assert.equal(res.status, 400, path);
      assert.equal(((await res.json()) as any).error.status, "INVALID_ARGUMENT");
    }
  });

  test("a chat completion asked of an embedding model is a 400 naming model", async () => {
    await assert.rejects(
      openai.chat.completions.create({ model: "local/embed-1", messages: [{ role: "user", content: "hi" }] }),
      (err: any) => err instanceof OpenAI.BadRequestError && err.param === "model",
    );
  });

  test("the fakes' default vector length is what a request without dimensions gets", async () => {
    const res = await openai.embeddings.create({ model: "oai/embed-small", input: "x" });
    assert.equal(res.data[0].embedding.length, FAKE_DIMENSIONS);
  });
});
