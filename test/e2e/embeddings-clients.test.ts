// The embedding clients × upstreams matrix: each client, unmodified and given the gateway's base URL
// alone, embeds the same texts through local/embed-1, an OpenAI-compatible fake and a Gemini fake.
// Clients: the openai SDK (its default base64), @google/genai, the AI SDK's embedMany through
// @ai-sdk/openai and @ai-sdk/google, LangChain's OpenAIEmbeddings and GoogleGenerativeAIEmbeddings.
// Each must get exactly the vectors the upstream made, in order: for a fake, `fakeVector` of each
// text; for the local model, what the openai SDK gets asking for floats.

import assert from "node:assert/strict";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { createGoogleGenerativeAI } from "@ai-sdk/google";
import { createOpenAI } from "@ai-sdk/openai";
import { GoogleGenAI } from "@google/genai";
import { GoogleGenerativeAIEmbeddings } from "@langchain/google-genai";
import { OpenAIEmbeddings } from "@langchain/openai";
import { embed, embedMany } from "ai";
import OpenAI from "openai";
import { fakeVector } from "../fakes/embeddings.ts";
import { type FakeUpstream, startFakeUpstream } from "../fakes/index.ts";
import { fakeProvider } from "../support/config.ts";
import { baseConfig, PAYG_KEY, type RunningGateway, startGateway } from "../support/gateway.ts";

const TEXTS = ["red apples and green pears", "a basket of green apples", "the stock market closed lower"];

/** One client: the vectors it gets for `texts` from `model`, through the gateway at `url`. */
type Client = (url: string, model: string, texts: string[]) => Promise<number[][]>;

const CLIENTS: Record<string, Client> = {
  async "openai SDK (base64, its default)"(url, model, texts) {
    const openai = new OpenAI({ apiKey: PAYG_KEY, baseURL: `${url}/v1`, maxRetries: 0 });
    return (await openai.embeddings.create({ model, input: texts })).data.map((d) => d.embedding);
  },
  async "@google/genai embedContent"(url, model, texts) {
    const ai = new GoogleGenAI({ apiKey: PAYG_KEY, httpOptions: { baseUrl: url } });
    const res = await ai.models.embedContent({ model, contents: texts });
    return (res.embeddings ?? []).map((e) => e.values ?? []);
  },
  async "AI SDK embedMany, @ai-sdk/openai"(url, model, texts) {
    const provider = createOpenAI({ apiKey: PAYG_KEY, baseURL: `${url}/v1` });
    return (await embedMany({ model: provider.embedding(model), values: texts, maxRetries: 0 })).embeddings;
  },
  async "AI SDK embedMany, @ai-sdk/google"(url, model, texts) {
    const provider = createGoogleGenerativeAI({ apiKey: PAYG_KEY, baseURL: `${url}/v1beta` });
    return (await embedMany({ model: provider.embedding(model), values: texts, maxRetries: 0 })).embeddings;
  },
  async "LangChain OpenAIEmbeddings"(url, model, texts) {
    const client = new OpenAIEmbeddings({
      model,
      apiKey: PAYG_KEY,
      configuration: { baseURL: `${url}/v1` },
      maxRetries: 0,
    });
    return client.embedDocuments(texts);
  },
  async "LangChain GoogleGenerativeAIEmbeddings"(url, model, texts) {
    // (A failed batch comes back as empty vectors: LangChain swallows the error.)
    const client = new GoogleGenerativeAIEmbeddings({ model, apiKey: PAYG_KEY, baseUrl: url, maxRetries: 0 });
    return client.embedDocuments(texts);
  },
};

/** The columns: the model each client asks for, and the vectors it must get. */
const COLUMNS: Record<string, { model: string; expected: () => number[][] }> = {
  "local/embed-1": { model: "local/embed-1", expected: () => localVectors },
  "OpenAI-compatible upstream": { model: "fo/embed", expected: () => TEXTS.map((t) => fakeVector(t)) },
  "Gemini upstream": { model: "fg/embed", expected: () => TEXTS.map((t) => fakeVector(t)) },
};

let gw: RunningGateway;
let fakes: FakeUpstream[];
let localVectors: number[][];

before(async () => {
  fakes = await Promise.all([startFakeUpstream("openai"), startFakeUpstream("gemini")]);
  const dir = mkdtempSync(join(tmpdir(), "switchyard-embed-clients-"));
  const model = (id: string, provider: string, upstream: string) => ({
    id,
    output_modalities: ["embeddings"],
    pricings: { prompt: [{ value: 0.02, unit: "perMTokens", currency: "USD" }] },
    endpoints: [{ provider, model: upstream }],
  });
  gw = await startGateway(
    baseConfig(dir, {
      providers: [fakeProvider("fo", fakes[0]), fakeProvider("fg", fakes[1])],
      models: [
        model("fo/embed", "fo", "text-embedding-3-small"),
        model("fg/embed", "fg", "gemini-embedding-001"),
      ],
    }),
    { dir },
  );
  const openai = new OpenAI({ apiKey: PAYG_KEY, baseURL: `${gw.url}/v1`, maxRetries: 0 });
  const res = await openai.embeddings.create({
    model: "local/embed-1",
    input: TEXTS,
    encoding_format: "float",
  });
  localVectors = res.data.map((d) => d.embedding);
});
after(async () => {
  await gw?.stop();
  await Promise.all((fakes ?? []).map((f) => f.close()));
});

for (const [client, run] of Object.entries(CLIENTS))
  describe(client, () => {
    for (const [column, { model, expected }] of Object.entries(COLUMNS))
      test(`× ${column}: the upstream's vectors, in order`, async () => {
        assert.deepEqual(await run(gw.url, model, TEXTS), expected());
      });
  });

test("the AI SDK's embed: one value, with its token usage", async () => {
  const provider = createOpenAI({ apiKey: PAYG_KEY, baseURL: `${gw.url}/v1` });
  const one = await embed({ model: provider.embedding("local/embed-1"), value: TEXTS[0], maxRetries: 0 });
  assert.deepEqual(one.embedding, localVectors[0]);
  assert.equal(one.usage.tokens, 5);
});
