// The clouds' embedding models through the gateway (docs/embeddings.md, "Cloud platforms"): the
// official `openai` SDK's embeddings.create (and `@google/genai`'s embedContent) against Bedrock's
// InvokeModel with Titan's and Cohere's bodies, every call SigV4-signed, and Vertex AI's `:predict`
// with its metadata server's tokens. The vectors are the fakes' own, in order, batches cut to each
// API's limit; the lookup prices the tokens exactly.

import assert from "node:assert/strict";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, beforeEach, test } from "node:test";
import { GoogleGenAI } from "@google/genai";
import OpenAI from "openai";
import { type FakeBedrock, startFakeBedrock } from "../../fakes/bedrock.ts";
import { sigV4Authorizer } from "../../fakes/bedrock-auth.ts";
import { fakeInputTokens, fakeVector } from "../../fakes/embeddings.ts";
import {
  type FakeGoogleTokens,
  type FakePlatform,
  startFakeGoogleTokens,
  startFakeVertex,
} from "../../fakes/platforms.ts";
import { platformEnv } from "../../support/config.ts";
import { baseConfig, PAYG_KEY, type RunningGateway, startGateway } from "../../support/gateway.ts";
import { lookupSettled, rawNumber } from "../../support/lookup.ts";
import { usd } from "../../support/money.ts";
import { vertexGenAI } from "./asks.ts";

const CREDENTIALS = {
  accessKeyId: "AKIDEMBED0123456789",
  secretAccessKey: "embedSecretKey/K7MDENG+bPxRfiCYEXAMPLE",
};
const PROJECT = "embed-project";
const LOCATION = "us-central1";
const PREDICT = `/v1/projects/${PROJECT}/locations/${LOCATION}/publishers/google/models`;

/** An embedding model of the config file, served by one platform endpoint. */
function embeddingModel(id: string, provider: string, upstream: string, prompt: number, dimensions: number) {
  return {
    id,
    output_modalities: ["embeddings"],
    context_length: 8192,
    max_output_tokens: 1,
    dimensions,
    pricings: { prompt: [{ value: prompt, unit: "perMTokens", currency: "USD" }] },
    endpoints: [{ provider, model: upstream }],
  };
}

let bedrock: FakeBedrock;
let tokens: FakeGoogleTokens;
let vertex: FakePlatform;
let gw: RunningGateway;
let openai: OpenAI;

before(async () => {
  bedrock = await startFakeBedrock({ authorize: sigV4Authorizer(CREDENTIALS) });
  tokens = await startFakeGoogleTokens();
  vertex = await startFakeVertex({ project: PROJECT, location: LOCATION, tokens });
  const dir = mkdtempSync(join(tmpdir(), "switchyard-cloud-embed-"));
  const aws = { access_key_id: CREDENTIALS.accessKeyId, secret_access_key: CREDENTIALS.secretAccessKey };
  gw = await startGateway(
    baseConfig(dir, {
      providers: [
        { id: "bedrock", platform: "aws-bedrock", region: "us-east-1", base_url: bedrock.url, aws },
        {
          id: "vertex",
          platform: "google-vertex",
          project: PROJECT,
          location: LOCATION,
          base_url: vertex.url,
        },
      ],
      models: [
        embeddingModel("amazon/titan-embed-text-v2", "bedrock", "amazon.titan-embed-text-v2:0", 0.02, 1024),
        embeddingModel("cohere/embed-english-v3", "bedrock", "cohere.embed-english-v3", 0.1, 1024),
        embeddingModel("bedrock/nova", "bedrock", "amazon.nova-pro-v1:0", 1, 1024),
        embeddingModel("google/text-embedding-005", "vertex", "text-embedding-005", 0.025, 768),
        embeddingModel("google/gemini-embedding-001", "vertex", "gemini-embedding-001", 0.15, 3072),
      ],
    }),
    {
      dir,
      env: platformEnv(dir, tokens.host),
    },
  );
  openai = new OpenAI({ apiKey: PAYG_KEY, baseURL: `${gw.url}/v1`, maxRetries: 0 });
});
after(async () => {
  await gw?.stop();
  await Promise.all([bedrock?.close(), vertex?.close(), tokens?.close()]);
});
beforeEach(() => {
  bedrock.reset();
  vertex.requests.length = 0;
});

const sum = (texts: string[]) => texts.reduce((n, text) => n + fakeInputTokens(text), 0);

test("Titan v2 on Bedrock: one signed InvokeModel per text, Titan's body; the vectors in order, its token counts priced", async () => {
  const input = ["alpha text", "beta", "gamma words here"];
  const res = await openai.embeddings
    .create({ model: "amazon/titan-embed-text-v2", input, dimensions: 256, encoding_format: "float" })
    .withResponse();
  assert.deepEqual(
    res.data.data.map((d) => d.embedding),
    input.map((text) => fakeVector(text, 256)),
  );
  assert.equal(res.data.usage.prompt_tokens, sum(input));
  const calls = bedrock.requests;
  assert.deepEqual(
    calls.map((r) => r.path).sort(),
    input.map(() => `/model/${encodeURIComponent("amazon.titan-embed-text-v2:0")}/invoke`),
  );
  assert.deepEqual(
    calls.map((r) => r.body).sort((a, b) => input.indexOf(a.inputText) - input.indexOf(b.inputText)),
    input.map((inputText) => ({ inputText, normalize: true, dimensions: 256 })),
  );
  for (const call of calls) assert.equal(await sigV4Authorizer(CREDENTIALS)(call), undefined);
  const record = await lookupSettled(gw.url, res.response.headers.get("x-generation-id")!, PAYG_KEY);
  assert.equal(record.api, "embeddings");
  assert.equal(record.provider, "bedrock");
  assert.equal(usd.normalize(rawNumber(record, "usage")), usd.normalize(usd.perMillion(sum(input), "0.02")));
});

test("Titan v2 takes 256, 512 or 1024 dimensions: another is a 400 naming dimensions, no call made", async () => {
  const err = await openai.embeddings
    .create({ model: "amazon/titan-embed-text-v2", input: "x", dimensions: 300 })
    .catch((e: unknown) => e);
  assert.ok(err instanceof OpenAI.BadRequestError);
  assert.equal((err.error as { param?: string }).param, "dimensions");
  assert.equal(bedrock.requests.length, 0);
});

test("Cohere Embed v3 on Bedrock: 100 texts in calls of at most 96, joined in order; Gemini's taskType as input_type", async () => {
  const input = Array.from({ length: 100 }, (_, i) => `text number ${i}`);
  const res = await openai.embeddings.create({
    model: "cohere/embed-english-v3",
    input,
    encoding_format: "float",
  });
  assert.deepEqual(
    res.data.map((d) => d.embedding),
    input.map((text) => fakeVector(text, 1024)),
  );
  assert.ok(res.usage.prompt_tokens > 0, "the gateway counts what Cohere's body does not");
  const bodies = bedrock.requests.map((r) => r.body).sort((a, b) => b.texts.length - a.texts.length);
  assert.deepEqual(
    bodies,
    [input.slice(0, 96), input.slice(96)].map((texts) => ({ texts, input_type: "search_document" })),
  );

  bedrock.reset();
  const genai = new GoogleGenAI({ apiKey: PAYG_KEY, httpOptions: { baseUrl: gw.url } });
  const query = await genai.models.embedContent({
    model: "cohere/embed-english-v3",
    contents: "where is Paris?",
    config: { taskType: "RETRIEVAL_QUERY" },
  });
  assert.deepEqual(query.embeddings?.[0]?.values, fakeVector("where is Paris?", 1024));
  assert.deepEqual(bedrock.requests[0]!.body, { texts: ["where is Paris?"], input_type: "search_query" });
});

test("a Bedrock model without an embedding API is refused upstream of any call as serving no embeddings", async () => {
  const res = await fetch(`${gw.url}/v1/embeddings`, {
    method: "POST",
    headers: { authorization: `Bearer ${PAYG_KEY}`, "content-type": "application/json" },
    body: JSON.stringify({ model: "bedrock/nova", input: "x" }),
  });
  assert.ok(res.status >= 500 && res.status < 600, `status ${res.status}`);
  assert.match(await res.text(), /serves no embeddings/);
  assert.equal(bedrock.requests.length, 0);
});

test("Vertex text-embedding-005: one :predict for the batch, instances and outputDimensionality; its token counts", async () => {
  const input = ["first passage", "second", "third one"];
  const res = await openai.embeddings
    .create({ model: "google/text-embedding-005", input, dimensions: 64, encoding_format: "float" })
    .withResponse();
  assert.deepEqual(
    res.data.data.map((d) => d.embedding),
    input.map((text) => fakeVector(text, 64)),
  );
  assert.equal(res.data.usage.prompt_tokens, sum(input));
  assert.equal(vertex.requests.length, 1);
  const [call] = vertex.requests;
  assert.equal(call!.path, `${PREDICT}/text-embedding-005:predict`);
  assert.match(String(call!.headers.authorization), /^Bearer ya29\.fake-/);
  assert.deepEqual(call!.body, {
    instances: input.map((content) => ({ content })),
    parameters: { outputDimensionality: 64 },
  });
  const record = await lookupSettled(gw.url, res.response.headers.get("x-generation-id")!, PAYG_KEY);
  assert.equal(record.provider, "vertex");
  assert.equal(usd.normalize(rawNumber(record, "usage")), usd.normalize(usd.perMillion(sum(input), "0.025")));
});

test("Vertex gemini-embedding-001 takes one instance a request: a batch of three is three calls, in order", async () => {
  const genai = new GoogleGenAI({ apiKey: PAYG_KEY, httpOptions: { baseUrl: gw.url } });
  const contents = ["uno", "dos", "tres"];
  const res = await genai.models.embedContent({
    model: "google/gemini-embedding-001",
    contents,
    config: { taskType: "SEMANTIC_SIMILARITY", outputDimensionality: 16 },
  });
  assert.deepEqual(
    res.embeddings?.map((e) => e.values),
    contents.map((text) => fakeVector(text, 16)),
  );
  assert.equal(vertex.requests.length, 3);
  for (const call of vertex.requests) {
    assert.equal(call.path, `${PREDICT}/gemini-embedding-001:predict`);
    assert.equal(call.body.instances.length, 1);
    assert.equal(call.body.instances[0].task_type, "SEMANTIC_SIMILARITY");
  }
});

test("the official @google/genai client (vertexai) embeds against the fake's :predict", async () => {
  const ai = await vertexGenAI(tokens, vertex.url, PROJECT, LOCATION);
  const answer = await ai.models.embedContent({
    model: "text-embedding-005",
    contents: ["one", "two"],
    config: { outputDimensionality: 32, taskType: "RETRIEVAL_DOCUMENT" },
  });
  assert.deepEqual(
    answer.embeddings?.map((e) => e.values),
    [fakeVector("one", 32), fakeVector("two", 32)],
  );
  assert.equal(vertex.requests.at(-1)!.path, `${PREDICT}/text-embedding-005:predict`);
});

test("a Vertex :predict error reaches the client as Google's message and status, its retry delay kept", async () => {
  const message = "Quota exceeded for aiplatform.googleapis.com/online_prediction_requests_per_base_model";
  vertex.refuseNext(429, {
    error: {
      code: 429,
      message,
      status: "RESOURCE_EXHAUSTED",
      details: [{ "@type": "type.googleapis.com/google.rpc.RetryInfo", retryDelay: "7s" }],
    },
  });
  const limited = await openai.embeddings
    .create({ model: "google/text-embedding-005", input: "x" })
    .catch((e: unknown) => e);
  assert.ok(limited instanceof OpenAI.RateLimitError, String(limited));
  assert.equal(limited.message, `429 ${message}`);
  assert.equal(limited.headers?.get("retry-after"), "7");

  vertex.refuseNext(400, {
    error: {
      code: 400,
      message: "Unable to submit request because it has an empty text parameter.",
      status: "INVALID_ARGUMENT",
    },
  });
  const genai = new GoogleGenAI({ apiKey: PAYG_KEY, httpOptions: { baseUrl: gw.url } });
  const refused = await genai.models
    .embedContent({ model: "google/gemini-embedding-001", contents: "y" })
    .catch((e: unknown) => e);
  assert.match(String(refused), /Unable to submit request because it has an empty text parameter\./);
  assert.equal((refused as { status?: number }).status, 400);
});
