// Google Vertex AI through the gateway (docs/clouds.md): the official SDKs against the fake Vertex
// (test/fakes/platforms.ts), which takes only tokens its fake metadata server issued and not yet
// expired. The gateway finds them by Application Default Credentials (GCE_METADATA_HOST), keeps a
// token while it is good and renews it before it expires. Gemini models are relayed to a
// content-generation client, Claude models to a messages client.

import assert from "node:assert/strict";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { GoogleGenAI } from "@google/genai";
import OpenAI from "openai";
import {
  type FakeGoogleTokens,
  type FakePlatform,
  startFakeGoogleTokens,
  startFakeVertex,
} from "../../fakes/platforms.ts";
import { endpointsModel as model } from "../../support/config.ts";
import { baseConfig, PAYG_KEY, type RunningGateway, startGateway } from "../../support/gateway.ts";
import { anthropicAt, askClaudeWithBeta, postMessages, streamClaude, textOf, vertexGenAI } from "./asks.ts";

const PROJECT = "acme-prod";
const ADMIN_KEY = "sk-admin-vertex-test-0123456789";
const LOCATION = "us-east5";
const PREFIX = `/v1/projects/${PROJECT}/locations/${LOCATION}/publishers`;
/** google-auth-library renews a token 5 minutes before it expires: these are due for renewal 0.8 s after issue. */
const TOKEN_LIFETIME_S = 300.8;
/** Past it, the token the gateway holds is due for renewal. */
const DUE_MS = 850;

let tokens: FakeGoogleTokens;
let vertex: FakePlatform;
let gw: RunningGateway;

before(async () => {
  tokens = await startFakeGoogleTokens(TOKEN_LIFETIME_S);
  vertex = await startFakeVertex({ project: PROJECT, location: LOCATION, tokens });
  const dir = mkdtempSync(join(tmpdir(), "switchyard-vertex-"));
  const vertexProvider = {
    platform: "google-vertex",
    project: PROJECT,
    location: LOCATION,
    base_url: vertex.url,
  };
  gw = await startGateway(
    baseConfig(dir, {
      admin: { keys: [ADMIN_KEY] },
      providers: [
        { id: "vertex", ...vertexProvider },
        { id: "vertex-nocreds", ...vertexProvider, google: { credentials_file: join(dir, "missing.json") } },
      ],
      models: [
        model("google/gemini-2.5-pro", [{ provider: "vertex", model: "gemini-2.5-pro" }]),
        model("anthropic/claude-sonnet-4-6", [{ provider: "vertex", model: "claude-sonnet-4-6" }]),
        model("anthropic/claude-dated", [{ provider: "vertex", model: "claude-sonnet-4-5@20250929" }]),
        model("anthropic/claude-fallback", [
          { provider: "vertex-nocreds", model: "claude-sonnet-4-6" },
          { provider: "vertex", model: "claude-sonnet-4-6" },
        ]),
        model("anthropic/claude-nocreds", [{ provider: "vertex-nocreds", model: "claude-sonnet-4-6" }]),
      ],
    }),
    // No ADC file (HOME is the test's own), the metadata server the fake's.
    {
      dir,
      env: {
        HOME: dir,
        GCE_METADATA_HOST: tokens.host,
        METADATA_SERVER_DETECTION: "ping-only",
        GOOGLE_APPLICATION_CREDENTIALS: "",
      },
    },
  );
});
after(async () => {
  await gw?.stop();
  await vertex?.close();
  await tokens?.close();
});

const last = () => vertex.requests.at(-1)!;
const askNoCreds = () =>
  postMessages(gw.url, {
    model: "anthropic/claude-nocreds",
    max_tokens: 10,
    messages: [{ role: "user", content: "hi" }],
  });
const anthropic = () => anthropicAt(gw.url);
const genai = () => new GoogleGenAI({ apiKey: PAYG_KEY, httpOptions: { baseUrl: gw.url } });

test("the official @google/genai client (vertexai) speaks the fake's wire", async () => {
  const ai = await vertexGenAI(tokens, vertex.url, PROJECT, LOCATION);
  vertex.vendor.gemini!.script({ blocks: [{ type: "text", text: "vertex direct" }] });
  const answer = await ai.models.generateContent({ model: "gemini-2.5-pro", contents: "hi" });
  assert.equal(answer.text, "vertex direct");
  assert.equal(last().path, `${PREFIX}/google/models/gemini-2.5-pro:generateContent`);
});

test("a content-generation client is relayed to Vertex's Gemini, whole and streamed", async () => {
  vertex.vendor.gemini!.script({ blocks: [{ type: "text", text: "gemini on vertex" }] });
  const answer = await genai().models.generateContent({ model: "google/gemini-2.5-pro", contents: "hi" });
  assert.equal(answer.text, "gemini on vertex");
  assert.equal(last().path, `${PREFIX}/google/models/gemini-2.5-pro:generateContent`);
  assert.match(String(last().headers.authorization), /^Bearer ya29\.fake-/);
  assert.equal(last().headers["x-goog-api-key"], undefined);

  vertex.vendor.gemini!.script({ blocks: [{ type: "text", text: "streamed gemini" }], chunks: 3 });
  let text = "";
  for await (const chunk of await genai().models.generateContentStream({
    model: "google/gemini-2.5-pro",
    contents: "hi",
  }))
    text += chunk.text ?? "";
  assert.equal(text, "streamed gemini");
  assert.equal(last().path, `${PREFIX}/google/models/gemini-2.5-pro:streamGenerateContent?alt=sse`);
});

test("a messages client is relayed to Claude's rawPredict: vertex version, no model, betas in the body", async () => {
  vertex.vendor.anthropic!.script({ blocks: [{ type: "text", text: "claude on vertex" }] });
  await askClaudeWithBeta(gw.url, "anthropic/claude-sonnet-4-6", "context-1m-2025-08-07", "claude on vertex");
  const sent = last();
  assert.equal(sent.path, `${PREFIX}/anthropic/models/claude-sonnet-4-6:rawPredict`);
  assert.equal(sent.body.anthropic_version, "vertex-2023-10-16");
  assert.equal(sent.body.model, undefined);
  assert.deepEqual(sent.body.anthropic_beta, ["context-1m-2025-08-07"]);
  assert.deepEqual(sent.body.messages[0].content[0].cache_control, { type: "ephemeral" });
  assert.equal(sent.headers["anthropic-beta"], undefined);
});

test("a streamed messages answer comes from streamRawPredict", async () => {
  vertex.vendor.anthropic!.script({ blocks: [{ type: "text", text: "streamed claude" }], chunks: 3 });
  await streamClaude(gw.url, "anthropic/claude-sonnet-4-6", "streamed claude");
  assert.equal(last().path, `${PREFIX}/anthropic/models/claude-sonnet-4-6:streamRawPredict`);
  assert.equal(last().body.stream, true);
});

test("a chat client is translated to Claude on Vertex, and to Gemini on Vertex", async () => {
  const openai = new OpenAI({ apiKey: PAYG_KEY, baseURL: `${gw.url}/v1`, maxRetries: 0 });
  vertex.vendor.anthropic!.script({ blocks: [{ type: "text", text: "translated claude" }] });
  const claude = await openai.chat.completions.create({
    model: "anthropic/claude-sonnet-4-6",
    messages: [{ role: "user", content: "hi" }],
  });
  assert.equal(claude.choices[0]?.message.content, "translated claude");
  assert.equal(last().path, `${PREFIX}/anthropic/models/claude-sonnet-4-6:rawPredict`);
  vertex.vendor.gemini!.script({ blocks: [{ type: "text", text: "translated gemini" }] });
  const gemini = await openai.chat.completions.create({
    model: "google/gemini-2.5-pro",
    messages: [{ role: "user", content: "hi" }],
    stream: true,
  });
  let text = "";
  for await (const chunk of gemini) text += chunk.choices[0]?.delta.content ?? "";
  assert.equal(text, "translated gemini");
});

test("messages token counts go to Vertex's Claude count-tokens", async () => {
  const counted = await anthropic().messages.countTokens({
    model: "anthropic/claude-sonnet-4-6",
    messages: [{ role: "user", content: "count me" }],
  });
  const sent = last();
  assert.equal(sent.path, `${PREFIX}/anthropic/models/count-tokens:rawPredict`);
  assert.equal(sent.body.model, "claude-sonnet-4-6");
  assert.equal(sent.body.anthropic_version, "vertex-2023-10-16");
  assert.ok(counted.input_tokens > 0);
});

test("the access token is kept while good and renewed before it expires", async () => {
  const ask = () =>
    genai()
      .models.generateContent({ model: "google/gemini-2.5-pro", contents: "hi" })
      .then(() => last());
  await sleep(DUE_MS); // whatever token the gateway holds is now due for renewal
  const first = await ask();
  const second = await ask();
  assert.equal(second.headers.authorization, first.headers.authorization, "kept, not fetched per request");
  await sleep(DUE_MS);
  const third = await ask();
  assert.notEqual(third.headers.authorization, first.headers.authorization, "renewed before it expired");
  assert.equal(tokens.issued.at(-1), String(third.headers.authorization).slice("Bearer ".length));
});

test("credentials that cannot be found: a 502 naming the provider, and the next endpoint answers", async () => {
  const res = await askNoCreds();
  const text = await res.text();
  assert.equal(res.status, 502, text);
  assert.match(text, /Provider 'vertex-nocreds' has no usable credentials \(.*missing\.json/);
  const ready = await fetch(`${gw.url}/readyz`);
  const readiness = (await ready.json()) as { status: string; provider_credentials?: Record<string, string> };
  assert.equal(ready.status, 200, "the other providers are served");
  assert.match(String(readiness.provider_credentials?.["vertex-nocreds"]), /no usable credentials/);
  const admin = await fetch(`${gw.url}/api/v1/admin/providers`, {
    headers: { authorization: `Bearer ${ADMIN_KEY}` },
  });
  const listed = ((await admin.json()) as { data: any[] }).data.find((p) => p.id === "vertex-nocreds");
  assert.equal(listed.platform, "google-vertex");
  assert.match(JSON.stringify(listed.recentErrors), /no usable credentials/);
  vertex.vendor.anthropic!.script({ blocks: [{ type: "text", text: "from the good one" }] });
  const answer = await anthropic().messages.create({
    model: "anthropic/claude-fallback",
    max_tokens: 10,
    messages: [{ role: "user", content: "hi" }],
  });
  assert.equal(textOf(answer.content), "from the good one");
});

test("failing credentials are logged once a minute at most, however many calls fail", async () => {
  await (await askNoCreds()).text();
  await (await askNoCreds()).text();
  const logged = gw
    .output()
    .split("\n")
    .filter((line) => line.includes("has no usable credentials"));
  assert.equal(logged.length, 1, gw.output());
  assert.match(logged[0]!, /"provider":"vertex-nocreds"/);
});

test("a Responses client reaches Gemini on Vertex; content-generation token counts go to :countTokens", async () => {
  vertex.vendor.gemini!.script({ blocks: [{ type: "text", text: "responses to gemini" }] });
  const openai = new OpenAI({ apiKey: PAYG_KEY, baseURL: `${gw.url}/v1`, maxRetries: 0 });
  const answer = await openai.responses.create({ model: "google/gemini-2.5-pro", input: "hi" });
  assert.equal(answer.output_text, "responses to gemini");
  assert.equal(last().path, `${PREFIX}/google/models/gemini-2.5-pro:generateContent`);
  const counted = await genai().models.countTokens({
    model: "google/gemini-2.5-pro",
    contents: "count these",
  });
  assert.equal(last().path, `${PREFIX}/google/models/gemini-2.5-pro:countTokens`);
  assert.ok((counted.totalTokens ?? 0) > 0);
});

test("a token Vertex refuses is a 502 naming the provider, and the next call gets a new token", async () => {
  tokens.revokeAll();
  const refused = await fetch(`${gw.url}/v1beta/models/google/gemini-2.5-pro:generateContent`, {
    method: "POST",
    headers: { "x-goog-api-key": PAYG_KEY, "content-type": "application/json" },
    body: JSON.stringify({ contents: [{ role: "user", parts: [{ text: "hi" }] }] }),
  });
  const text = await refused.text();
  assert.equal(refused.status, 502, text);
  assert.match(text, /Provider 'vertex' refused the gateway's credentials/);
  const issued = tokens.issued.length;
  vertex.vendor.gemini!.script({ blocks: [{ type: "text", text: "new token" }] });
  const answer = await genai().models.generateContent({ model: "google/gemini-2.5-pro", contents: "hi" });
  assert.equal(answer.text, "new token");
  assert.equal(tokens.issued.length, issued + 1);
});

test("a versioned Claude id keeps its @ in the path", async () => {
  vertex.vendor.anthropic!.script({ blocks: [{ type: "text", text: "dated" }] });
  const answer = await anthropic().messages.create({
    model: "anthropic/claude-dated",
    max_tokens: 10,
    messages: [{ role: "user", content: "hi" }],
  });
  assert.equal(textOf(answer.content), "dated");
  assert.equal(last().path, `${PREFIX}/anthropic/models/claude-sonnet-4-5@20250929:rawPredict`);
  assert.equal(vertex.vendor.anthropic!.requests.at(-1)?.body.model, "claude-sonnet-4-5@20250929");
});
