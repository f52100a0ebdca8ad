// Azure OpenAI through the gateway (docs/clouds.md): the official SDKs of every client protocol against
// the fake Azure (test/fakes/platforms.ts), which checks the `api-key`, the v1 and the deployments
// paths and `api-version`; and Azure's content filter, as a filtered answer and as a refused prompt.

import assert from "node:assert/strict";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import Anthropic from "@anthropic-ai/sdk";
import { GoogleGenAI } from "@google/genai";
import OpenAI, { AzureOpenAI } from "openai";
import {
  AZURE_PROMPT_FILTERED,
  type FakeAzureIdentity,
  type FakePlatform,
  startFakeAzure,
  startFakeAzureIdentity,
} from "../../fakes/platforms.ts";
import { endpointsModel as model } from "../../support/config.ts";
import { baseConfig, PAYG_KEY, type RunningGateway, startGateway } from "../../support/gateway.ts";
import { postMessages, textOf } from "./asks.ts";

const KEY = "azure-resource-key-0123456789abcdef";
let azure: FakePlatform;
let identity: FakeAzureIdentity;
let gw: RunningGateway;
let openai: OpenAI;

before(async () => {
  identity = await startFakeAzureIdentity();
  azure = await startFakeAzure({
    apiKey: KEY,
    bearerTokens: () => identity.issued.map((t) => t.token).filter((t) => identity.valid(t)),
  });
  const dir = mkdtempSync(join(tmpdir(), "switchyard-azure-"));
  gw = await startGateway(
    baseConfig(dir, {
      providers: [
        { id: "azure", platform: "azure-openai", base_url: azure.url, api_key: KEY },
        {
          id: "azure-dated",
          platform: "azure-openai",
          base_url: azure.url,
          api_key: KEY,
          api_version: "2024-10-21",
        },
        { id: "azure-wrong", platform: "azure-openai", base_url: azure.url, api_key: "not-the-key" },
        { id: "azure-entra", platform: "azure-openai", base_url: azure.url },
      ],
      models: [
        model("openai/gpt-4.1", [{ provider: "azure", model: "my-gpt41" }]),
        model("openai/gpt-dated", [{ provider: "azure-dated", model: "dated-deployment" }]),
        model("openai/gpt-twice", [
          { provider: "azure", model: "first" },
          { provider: "azure-dated", model: "second" },
        ]),
        model("openai/gpt-wrong", [{ provider: "azure-wrong", model: "w" }]),
        model("openai/gpt-entra", [{ provider: "azure-entra", model: "entra-deployment" }]),
      ],
    }),
    // Entra ID through an App Service managed identity, the fake's.
    { dir, env: { IDENTITY_ENDPOINT: identity.endpoint, IDENTITY_HEADER: identity.secret } },
  );
  openai = new OpenAI({ apiKey: PAYG_KEY, baseURL: `${gw.url}/v1`, maxRetries: 0 });
});
after(async () => {
  await gw?.stop();
  await azure?.close();
  await identity?.close();
});

const lastAzure = () => azure.requests.at(-1)!;

test("the official AzureOpenAI client speaks the fake's wire (v1 and deployments APIs)", async () => {
  const v1 = new OpenAI({
    apiKey: "unused",
    baseURL: `${azure.url}/openai/v1`,
    defaultHeaders: { "api-key": KEY },
  });
  azure.vendor.openai!.script({ blocks: [{ type: "text", text: "v1 ok" }] });
  const a = await v1.chat.completions.create({ model: "d", messages: [{ role: "user", content: "hi" }] });
  assert.equal(a.choices[0]?.message.content, "v1 ok");
  const dated = new AzureOpenAI({
    apiKey: KEY,
    endpoint: azure.url,
    apiVersion: "2024-10-21",
    deployment: "dep",
  });
  azure.vendor.openai!.script({ blocks: [{ type: "text", text: "dated ok" }] });
  const b = await dated.chat.completions.create({ model: "", messages: [{ role: "user", content: "hi" }] });
  assert.equal(b.choices[0]?.message.content, "dated ok");
  assert.equal(lastAzure().path, "/openai/deployments/dep/chat/completions?api-version=2024-10-21");
  const wrong = new AzureOpenAI({
    apiKey: "bad",
    endpoint: azure.url,
    apiVersion: "2024-10-21",
    deployment: "dep",
    maxRetries: 0,
  });
  await assert.rejects(
    wrong.chat.completions.create({ model: "", messages: [{ role: "user", content: "x" }] }),
    { status: 401 },
  );
});

test("a chat client reaches the v1 API with the api-key, the model being the deployment", async () => {
  azure.vendor.openai!.script({
    blocks: [{ type: "text", text: "hello from azure" }],
    usage: { input: 7, output: 3 },
  });
  const answer = await openai.chat.completions.create({
    model: "openai/gpt-4.1",
    messages: [{ role: "user", content: "hi" }],
  });
  assert.equal(answer.choices[0]?.message.content, "hello from azure");
  assert.equal(answer.model, "openai/gpt-4.1");
  const sent = lastAzure();
  assert.equal(sent.path, "/openai/v1/chat/completions");
  assert.equal(sent.headers["api-key"], KEY);
  assert.equal(sent.headers.authorization, undefined);
  assert.equal(sent.body.model, "my-gpt41");
});

test("a streamed chat answer comes through the v1 API", async () => {
  azure.vendor.openai!.script({ blocks: [{ type: "text", text: "streamed azure" }], chunks: 3 });
  const stream = await openai.chat.completions.create({
    model: "openai/gpt-4.1",
    messages: [{ role: "user", content: "hi" }],
    stream: true,
  });
  let text = "";
  for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? "";
  assert.equal(text, "streamed azure");
  assert.equal(lastAzure().body.stream, true);
});

test("with api_version, the deployments API: the deployment in the path, api-version in the query", async () => {
  azure.vendor.openai!.script({ blocks: [{ type: "text", text: "dated" }] });
  const answer = await openai.chat.completions.create({
    model: "openai/gpt-dated",
    messages: [{ role: "user", content: "hi" }],
  });
  assert.equal(answer.choices[0]?.message.content, "dated");
  assert.equal(
    lastAzure().path,
    "/openai/deployments/dated-deployment/chat/completions?api-version=2024-10-21",
  );
});

test("a Responses client is relayed to Azure's Responses API", async () => {
  azure.vendor["openai-responses"]!.script({ blocks: [{ type: "text", text: "responses on azure" }] });
  const answer = await openai.responses.create({ model: "openai/gpt-4.1", input: "hi", store: false });
  assert.equal(answer.output_text, "responses on azure");
  const sent = lastAzure();
  assert.equal(sent.path, "/openai/v1/responses");
  assert.equal(sent.body.model, "my-gpt41");
  assert.equal(sent.body.store, false);
});

test("a messages client is translated to Azure's chat-completions, streamed", async () => {
  azure.vendor.openai!.script({ blocks: [{ type: "text", text: "claude-shaped" }], chunks: 2 });
  const anthropic = new Anthropic({ apiKey: PAYG_KEY, baseURL: gw.url, maxRetries: 0 });
  const stream = anthropic.messages.stream({
    model: "openai/gpt-4.1",
    max_tokens: 100,
    messages: [{ role: "user", content: "hi" }],
  });
  const message = await stream.finalMessage();
  assert.equal(textOf(message.content), "claude-shaped");
  assert.equal(lastAzure().path, "/openai/v1/chat/completions");
});

test("a filtered answer is each client's content-filter finish: chat content_filter, messages refusal", async () => {
  azure.vendor.openai!.script({ blocks: [{ type: "text", text: "" }], finish: "content_filter" });
  const chat = await openai.chat.completions.create({
    model: "openai/gpt-4.1",
    messages: [{ role: "user", content: "x" }],
  });
  assert.equal(chat.choices[0]?.finish_reason, "content_filter");
  azure.vendor.openai!.script({ blocks: [{ type: "text", text: "" }], finish: "content_filter" });
  const anthropic = new Anthropic({ apiKey: PAYG_KEY, baseURL: gw.url, maxRetries: 0 });
  const message = await anthropic.messages.create({
    model: "openai/gpt-4.1",
    max_tokens: 100,
    messages: [{ role: "user", content: "x" }],
  });
  assert.equal(message.stop_reason, "refusal");
});

test("a prompt the content filter refuses is the caller's 400 naming the filter, never retried elsewhere", async () => {
  azure.refuseNext(400, AZURE_PROMPT_FILTERED);
  const before = azure.requests.length;
  const err = await openai.chat.completions
    .create({ model: "openai/gpt-twice", messages: [{ role: "user", content: "bad" }] })
    .then(
      () => undefined,
      (e) => e,
    );
  assert.equal(err?.status, 400);
  assert.match(
    String(err?.message),
    /Azure OpenAI's content filter refused the prompt\. The response was filtered/,
  );
  assert.equal(err?.param, "messages");
  assert.equal(azure.requests.length, before + 1, "the second endpoint was not tried");
});

test("a refused key is a 502 naming the provider, never the key", async () => {
  const res = await fetch(`${gw.url}/v1/chat/completions`, {
    method: "POST",
    headers: { authorization: `Bearer ${PAYG_KEY}`, "content-type": "application/json" },
    body: JSON.stringify({ model: "openai/gpt-wrong", messages: [{ role: "user", content: "hi" }] }),
  });
  const text = await res.text();
  assert.equal(res.status, 502);
  assert.match(text, /Provider 'azure-wrong'/);
  assert.ok(!text.includes("not-the-key") && !gw.output().includes("not-the-key"));
});

test("without api_key, an Entra ID token for Azure OpenAI's scope, fetched once and kept", async () => {
  for (const text of ["entra one", "entra two"]) {
    azure.vendor.openai!.script({ blocks: [{ type: "text", text }] });
    const answer = await openai.chat.completions.create({
      model: "openai/gpt-entra",
      messages: [{ role: "user", content: "hi" }],
    });
    assert.equal(answer.choices[0]?.message.content, text);
  }
  assert.equal(identity.issued.length, 1, "one token for both calls");
  assert.equal(lastAzure().headers.authorization, `Bearer ${identity.issued[0]?.token}`);
  assert.equal(lastAzure().headers["api-key"], undefined);
  assert.ok(!gw.output().includes(identity.issued[0]!.token), "the token is never logged");
});

test("with api_version, a Responses client goes to /openai/responses?api-version=, the deployment as model", async () => {
  azure.vendor["openai-responses"]!.script({ blocks: [{ type: "text", text: "dated responses" }] });
  const answer = await openai.responses.create({ model: "openai/gpt-dated", input: "hi" });
  assert.equal(answer.output_text, "dated responses");
  assert.equal(lastAzure().path, "/openai/responses?api-version=2024-10-21");
  assert.equal(lastAzure().body.model, "dated-deployment");
});

test("a filtered answer: content-generation SAFETY, Responses incomplete with content_filter", async () => {
  azure.vendor.openai!.script({ blocks: [{ type: "text", text: "" }], finish: "content_filter" });
  const ai = new GoogleGenAI({ apiKey: PAYG_KEY, httpOptions: { baseUrl: gw.url } });
  const gemini = await ai.models.generateContent({ model: "openai/gpt-4.1", contents: "x" });
  assert.equal(gemini.candidates?.[0]?.finishReason, "SAFETY");
  azure.vendor["openai-responses"]!.script({
    blocks: [{ type: "text", text: "" }],
    finish: "content_filter",
  });
  const responses = await openai.responses.create({ model: "openai/gpt-4.1", input: "x" });
  assert.equal(responses.status, "incomplete");
  assert.equal(responses.incomplete_details?.reason, "content_filter");
});

test("a prompt the content filter refuses is a messages client's 400 too, naming its prompt", async () => {
  azure.refuseNext(400, AZURE_PROMPT_FILTERED);
  const res = await postMessages(gw.url, {
    model: "openai/gpt-4.1",
    max_tokens: 10,
    messages: [{ role: "user", content: "bad" }],
  });
  const body = (await res.json()) as { error: { type: string; message: string } };
  assert.equal(res.status, 400);
  assert.equal(body.error.type, "invalid_request_error");
  assert.match(body.error.message, /content filter/);
});
