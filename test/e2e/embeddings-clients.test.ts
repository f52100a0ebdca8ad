// Embedding clients by base URL alone against a running gateway and local/embed-1: the AI SDK's
// `embed` and `embedMany` through @ai-sdk/openai and @ai-sdk/google, and LangChain's
// `OpenAIEmbeddings` and `GoogleGenerativeAIEmbeddings`. Each must get the vectors the openai SDK
// gets for the same texts (the gateway's, whichever face it spoke).

import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { createGoogleGenerativeAI } from "@ai-sdk/google";
import { createOpenAI } from "@ai-sdk/openai";
import { GoogleGenerativeAIEmbeddings } from "@langchain/google-genai";
import { OpenAIEmbeddings } from "@langchain/openai";
import { embed, embedMany } from "ai";
import OpenAI from "openai";
import { PAYG_KEY, type RunningGateway, startGateway } from "../support/gateway.ts";

const MODEL = "local/embed-1";
const TEXTS = ["red apples and green pears", "a basket of green apples", "the stock market closed lower"];

let gw: RunningGateway;
/** The vectors of TEXTS as the openai SDK gets them: what every other client must get too. */
let expected: number[][];

before(async () => {
  gw = await startGateway();
  const openai = new OpenAI({ apiKey: PAYG_KEY, baseURL: `${gw.url}/v1`, maxRetries: 0 });
  const res = await openai.embeddings.create({ model: MODEL, input: TEXTS, encoding_format: "float" });
  expected = res.data.map((d) => d.embedding);
});
after(() => gw?.stop());

describe("the AI SDK", () => {
  test("@ai-sdk/openai: embed and embedMany, with usage", async () => {
    const provider = createOpenAI({ apiKey: PAYG_KEY, baseURL: `${gw.url}/v1` });
    const one = await embed({ model: provider.embedding(MODEL), value: TEXTS[0], maxRetries: 0 });
    assert.deepEqual(one.embedding, expected[0]);
    assert.ok(one.usage.tokens > 0);
    const many = await embedMany({ model: provider.embedding(MODEL), values: TEXTS, maxRetries: 0 });
    assert.deepEqual(many.embeddings, expected);
  });

  test("@ai-sdk/google: embed and embedMany", async () => {
    const provider = createGoogleGenerativeAI({ apiKey: PAYG_KEY, baseURL: `${gw.url}/v1beta` });
    const one = await embed({ model: provider.embedding(MODEL), value: TEXTS[1], maxRetries: 0 });
    assert.deepEqual(one.embedding, expected[1]);
    const many = await embedMany({ model: provider.embedding(MODEL), values: TEXTS, maxRetries: 0 });
    assert.deepEqual(many.embeddings, expected);
  });
});

describe("LangChain", () => {
  test("OpenAIEmbeddings: embedQuery and embedDocuments", async () => {
    const embeddings = new OpenAIEmbeddings({
      model: MODEL,
      apiKey: PAYG_KEY,
      configuration: { baseURL: `${gw.url}/v1` },
      maxRetries: 0,
    });
    assert.deepEqual(await embeddings.embedQuery(TEXTS[2]), expected[2]);
    assert.deepEqual(await embeddings.embedDocuments(TEXTS), expected);
  });

  test("GoogleGenerativeAIEmbeddings: embedQuery and embedDocuments", async () => {
    const embeddings = new GoogleGenerativeAIEmbeddings({
      model: MODEL,
      apiKey: PAYG_KEY,
      baseUrl: gw.url,
      maxRetries: 0,
    });
    assert.deepEqual(await embeddings.embedQuery(TEXTS[0]), expected[0]);
    // (A failed batch would come back as empty vectors: LangChain swallows the error.)
    assert.deepEqual(await embeddings.embedDocuments(TEXTS), expected);
  });
});
