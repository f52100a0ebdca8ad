// AWS Bedrock through the gateway (docs/clouds.md): the official SDKs against the fake Bedrock
// Runtime (test/fakes/bedrock.ts), which refuses any request whose SigV4 signature is not right for the
// test's known credentials (test/fakes/bedrock-auth.ts) or that lacks its Bedrock API key. Claude goes
// through InvokeModel (a relay for a messages client), other models through Converse; Bedrock's faults
// are each client's.

import assert from "node:assert/strict";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { BedrockRuntimeClient, InvokeModelCommand } from "@aws-sdk/client-bedrock-runtime";
import { GoogleGenAI } from "@google/genai";
import { NodeHttpHandler } from "@smithy/node-http-handler";
import OpenAI from "openai";
import { type BedrockRequest, type FakeBedrock, startFakeBedrock } from "../../fakes/bedrock.ts";
import { apiKeyAuthorizer, sigV4Authorizer } from "../../fakes/bedrock-auth.ts";
import { endpointsModel as model } from "../../support/config.ts";
import { baseConfig, PAYG_KEY, type RunningGateway, startGateway } from "../../support/gateway.ts";
import { lookupSettled, rawNumber } from "../../support/lookup.ts";
import { anthropicAt, askClaudeWithBeta, postMessages, streamClaude, textOf } from "./asks.ts";

const REGION = "us-east-1";
const CREDENTIALS = {
  accessKeyId: "AKIDEXAMPLE0123456789",
  secretAccessKey: "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY",
  sessionToken: "FwoGZXIvYXdzEXAMPLESESSIONTOKEN",
};
const API_KEY = "bedrock-api-key-ABSKQmVkcm9ja0FQSUtleS0";
const CLAUDE = "us.anthropic.claude-sonnet-4-6-v1:0";
const REGIONAL_PRICES = {
  prompt: [{ value: 3.3, unit: "perMTokens", currency: "USD" }],
  completion: [{ value: 16.5, unit: "perMTokens", currency: "USD" }],
};
const NOVA = "amazon.nova-pro-v1:0";

let bedrock: FakeBedrock;
let gw: RunningGateway;

before(async () => {
  // Every request is refused unless signed with the test's credentials or carrying its API key.
  const signed = sigV4Authorizer(CREDENTIALS);
  const keyed = apiKeyAuthorizer(API_KEY);
  bedrock = await startFakeBedrock({
    authorize: (request) =>
      String(request.headers.authorization).startsWith("Bearer ") ? keyed(request) : signed(request),
  });
  const dir = mkdtempSync(join(tmpdir(), "switchyard-bedrock-"));
  const aws = {
    access_key_id: CREDENTIALS.accessKeyId,
    secret_access_key: CREDENTIALS.secretAccessKey,
    session_token: CREDENTIALS.sessionToken,
  };
  gw = await startGateway(
    baseConfig(dir, {
      providers: [
        // Credentials named in the file win over the Bedrock API key in the environment.
        { id: "bedrock", platform: "aws-bedrock", region: REGION, base_url: bedrock.url, aws },
        { id: "bedrock-key", platform: "aws-bedrock", region: REGION, base_url: bedrock.url },
        {
          id: "bedrock-wrong",
          platform: "aws-bedrock",
          region: REGION,
          base_url: bedrock.url,
          aws: { ...aws, secret_access_key: "not-the-secret" },
        },
      ],
      models: [
        model("anthropic/claude-sonnet-4-6", [{ provider: "bedrock", model: CLAUDE }]),
        model("amazon/nova-pro", [{ provider: "bedrock", model: NOVA }]),
        model("anthropic/claude-arn", [
          {
            provider: "bedrock",
            model:
              "arn:aws:bedrock:us-east-1:123456789012:inference-profile/global.anthropic.claude-sonnet-4-6",
          },
        ]),
        model("anthropic/claude-wrong", [{ provider: "bedrock-wrong", model: CLAUDE }]),
        // A regional endpoint priced above the model's own prices ($1 and $2 a million tokens).
        model("anthropic/claude-regional", [
          { provider: "bedrock", model: CLAUDE, pricings: REGIONAL_PRICES },
        ]),
        model("anthropic/claude-twice", [
          { provider: "bedrock", model: CLAUDE },
          { provider: "bedrock-key", model: CLAUDE },
        ]),
      ],
    }),
    {
      dir,
      env: { AWS_BEARER_TOKEN_BEDROCK: API_KEY, AWS_ACCESS_KEY_ID: "", AWS_SECRET_ACCESS_KEY: "", HOME: dir },
    },
  );
});
after(async () => {
  await gw?.stop();
  await bedrock?.close();
});

const last = () => bedrock.requests.at(-1)!;
const anthropic = () => anthropicAt(gw.url);
const openai = () => new OpenAI({ apiKey: PAYG_KEY, baseURL: `${gw.url}/v1`, maxRetries: 0 });

/** The fake refuses what is not signed right; this checks that a request it took was signed with the file's credentials. */
async function assertSigned(request: BedrockRequest): Promise<void> {
  assert.equal(await sigV4Authorizer(CREDENTIALS)(request), undefined);
}

test("the signature check accepts the official AWS SDK's signing, and refuses another secret", async () => {
  const client = new BedrockRuntimeClient({
    region: REGION,
    endpoint: bedrock.url,
    credentials: CREDENTIALS,
    maxAttempts: 1,
    // The fake speaks HTTP/1.1; this client's default handler would use HTTP/2.
    requestHandler: new NodeHttpHandler(),
  });
  bedrock.script({ blocks: [{ type: "text", text: "sdk" }] });
  await client.send(
    new InvokeModelCommand({
      modelId: CLAUDE,
      contentType: "application/json",
      body: JSON.stringify({
        anthropic_version: "bedrock-2023-05-31",
        max_tokens: 10,
        messages: [{ role: "user", content: "hi" }],
      }),
    }),
  );
  client.destroy();
  await assertSigned(last());
  const refusal = await sigV4Authorizer({ ...CREDENTIALS, secretAccessKey: "another" })(last());
  assert.equal(refusal?.exceptionName, "InvalidSignatureException");
});

test("a messages client is relayed to InvokeModel: signed, bedrock version, betas in the body, no model or stream", async () => {
  bedrock.script({ blocks: [{ type: "text", text: "claude on bedrock" }], usage: { input: 11, output: 4 } });
  await askClaudeWithBeta(
    gw.url,
    "anthropic/claude-sonnet-4-6",
    "interleaved-thinking-2025-05-14",
    "claude on bedrock",
  );
  const sent = last();
  assert.equal(sent.path, `/model/${encodeURIComponent(CLAUDE)}/invoke`);
  assert.equal(sent.body.anthropic_version, "bedrock-2023-05-31");
  assert.deepEqual(sent.body.anthropic_beta, ["interleaved-thinking-2025-05-14"]);
  assert.equal("model" in sent.body || "stream" in sent.body, false);
  assert.deepEqual(sent.body.messages[0].content[0].cache_control, { type: "ephemeral" });
  await assertSigned(sent);
});

test("a streamed messages answer: event-stream chunks relayed as the messages stream", async () => {
  bedrock.script({ blocks: [{ type: "text", text: "streamed from bedrock" }], chunks: 3 });
  await streamClaude(gw.url, "anthropic/claude-sonnet-4-6", "streamed from bedrock");
  assert.equal(last().path, `/model/${encodeURIComponent(CLAUDE)}/invoke-with-response-stream`);
  await assertSigned(last());
});

test("an inference-profile ARN goes URL-encoded in the path", async () => {
  bedrock.script({ blocks: [{ type: "text", text: "arn" }] });
  await anthropic().messages.create({
    model: "anthropic/claude-arn",
    max_tokens: 10,
    messages: [{ role: "user", content: "hi" }],
  });
  assert.equal(
    last().modelId,
    "arn:aws:bedrock:us-east-1:123456789012:inference-profile/global.anthropic.claude-sonnet-4-6",
  );
  assert.match(
    last().path,
    /^\/model\/arn%3Aaws%3Abedrock%3A.*%2Fglobal\.anthropic\.claude-sonnet-4-6\/invoke$/,
  );
  await assertSigned(last());
});

test("a chat client reaches Claude translated, streamed, and Nova through Converse", async () => {
  bedrock.script({ blocks: [{ type: "text", text: "translated claude" }], chunks: 2 });
  const stream = await openai().chat.completions.create({
    model: "anthropic/claude-sonnet-4-6",
    messages: [{ role: "user", content: "hi" }],
    stream: true,
  });
  let text = "";
  for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? "";
  assert.equal(text, "translated claude");
  bedrock.script({ blocks: [{ type: "text", text: "nova speaks" }] });
  const nova = await openai().chat.completions.create({
    model: "amazon/nova-pro",
    messages: [{ role: "user", content: "hi" }],
  });
  assert.equal(nova.choices[0]?.message.content, "nova speaks");
  assert.equal(last().path, `/model/${encodeURIComponent(NOVA)}/converse`);
  await assertSigned(last());
  bedrock.script({ blocks: [{ type: "text", text: "nova streams" }], chunks: 3 });
  let streamed = "";
  for await (const event of anthropic().messages.stream({
    model: "amazon/nova-pro",
    max_tokens: 50,
    messages: [{ role: "user", content: "hi" }],
  }))
    if (event.type === "content_block_delta" && event.delta.type === "text_delta")
      streamed += event.delta.text;
  assert.equal(streamed, "nova streams");
  assert.equal(last().path, `/model/${encodeURIComponent(NOVA)}/converse-stream`);
});

test("an image and a document on S3 reach Converse as s3Location, the format from the key's extension", async () => {
  bedrock.script({ blocks: [{ type: "text", text: "a cat" }] });
  const chat = await openai().chat.completions.create({
    model: "amazon/nova-pro",
    messages: [
      {
        role: "user",
        content: [
          { type: "text", text: "what is this?" },
          { type: "image_url", image_url: { url: "s3://my-bucket/photos/cat.jpg" } },
        ],
      },
    ],
  });
  assert.equal(chat.choices[0]?.message.content, "a cat");
  assert.deepEqual(last().body.messages[0].content[1], {
    image: { format: "jpeg", source: { s3Location: { uri: "s3://my-bucket/photos/cat.jpg" } } },
  });

  bedrock.script({ blocks: [{ type: "text", text: "a report" }] });
  await anthropic().messages.create({
    model: "amazon/nova-pro",
    max_tokens: 50,
    messages: [
      {
        role: "user",
        content: [
          { type: "document", source: { type: "url", url: "s3://my-bucket/q3.pdf" } },
          { type: "text", text: "summarise" },
        ],
      },
    ],
  });
  const document = last().body.messages[0].content[0].document;
  assert.equal(document.format, "pdf");
  assert.deepEqual(document.source, { s3Location: { uri: "s3://my-bucket/q3.pdf" } });
});

test("throttling falls back to the model's next endpoint, which sends the Bedrock API key", async () => {
  bedrock.script({ status: 429 }, { blocks: [{ type: "text", text: "second endpoint" }] });
  const answer = await anthropic().messages.create({
    model: "anthropic/claude-twice",
    max_tokens: 10,
    messages: [{ role: "user", content: "hi" }],
  });
  assert.equal(textOf(answer.content), "second endpoint");
  assert.equal(last().headers.authorization, `Bearer ${API_KEY}`);
  await assertSigned(bedrock.requests.at(-2)!);
});

test("a ValidationException is the caller's 400", async () => {
  bedrock.script({ status: 400, errorBody: { message: "messages: roles must alternate" } });
  const res = await fetch(`${gw.url}/v1/chat/completions`, {
    method: "POST",
    headers: { authorization: `Bearer ${PAYG_KEY}`, "content-type": "application/json" },
    body: JSON.stringify({ model: "amazon/nova-pro", messages: [{ role: "user", content: "hi" }] }),
  });
  assert.equal(res.status, 400, await res.clone().text());
  assert.match(await res.text(), /roles must alternate/);
});

test("a mid-stream modelStreamErrorException ends each client's stream with its protocol's error", async () => {
  bedrock.script({
    blocks: [{ type: "text", text: "a long answer cut short by the model" }],
    chunks: 6,
    fault: "midstream-error",
  });
  const res = await postMessages(gw.url, {
    model: "anthropic/claude-sonnet-4-6",
    max_tokens: 50,
    stream: true,
    messages: [{ role: "user", content: "hi" }],
  });
  const text = await res.text();
  assert.match(text, /event: error\ndata: \{"type":"error","error":\{"type":"api_error"/);
  assert.ok(!text.includes("message_stop"), text);

  bedrock.script({
    blocks: [{ type: "text", text: "a long answer cut short by the model" }],
    chunks: 6,
    fault: "midstream-error",
  });
  const chat = await fetch(`${gw.url}/v1/chat/completions`, {
    method: "POST",
    headers: { authorization: `Bearer ${PAYG_KEY}`, "content-type": "application/json" },
    body: JSON.stringify({
      model: "amazon/nova-pro",
      stream: true,
      messages: [{ role: "user", content: "hi" }],
    }),
  });
  assert.match(await chat.text(), /data: \{"error":\{/);
});

test("messages token counts go to Bedrock's CountTokens with the InvokeModel body", async () => {
  const res = await fetch(`${gw.url}/v1/messages/count_tokens`, {
    method: "POST",
    headers: { "x-api-key": PAYG_KEY, "anthropic-version": "2023-06-01", "content-type": "application/json" },
    body: JSON.stringify({
      model: "anthropic/claude-sonnet-4-6",
      messages: [{ role: "user", content: "count me" }],
    }),
  });
  const counted = (await res.json()) as { input_tokens: number };
  assert.equal(res.headers.get("x-switchyard-token-count"), "upstream");
  const sent = last();
  assert.equal(sent.path, `/model/${encodeURIComponent(CLAUDE)}/count-tokens`);
  const invoke = Buffer.from(sent.body.input.invokeModel.body, "base64");
  const invokeBody = JSON.parse(invoke.toString("utf8"));
  assert.equal(invokeBody.anthropic_version, "bedrock-2023-05-31");
  assert.equal("model" in invokeBody, false);
  assert.match(JSON.stringify(invokeBody.messages), /count me/);
  assert.equal(counted.input_tokens, Math.ceil(invoke.length / 4));
  await assertSigned(sent);
});

test("a tool round trip through Converse: the result goes back linked to the call's toolUseId", async () => {
  const tools = [
    {
      type: "function" as const,
      function: {
        name: "get_weather",
        parameters: { type: "object", properties: { city: { type: "string" } } },
      },
    },
  ];
  bedrock.script({
    blocks: [{ type: "tool_call", id: "tooluse_abc123", name: "get_weather", args: { city: "Oslo" } }],
  });
  const first = await openai().chat.completions.create({
    model: "amazon/nova-pro",
    messages: [{ role: "user", content: "weather in Oslo?" }],
    tools,
  });
  const call = first.choices[0]?.message.tool_calls?.[0];
  assert.ok(call && call.type === "function");
  assert.deepEqual(JSON.parse(call.function.arguments), { city: "Oslo" });
  bedrock.script({ blocks: [{ type: "text", text: "It is sunny." }] });
  const second = await openai().chat.completions.create({
    model: "amazon/nova-pro",
    messages: [
      { role: "user", content: "weather in Oslo?" },
      first.choices[0]!.message,
      { role: "tool", tool_call_id: call.id, content: "sunny, 21C" },
    ],
    tools,
  });
  assert.equal(second.choices[0]?.message.content, "It is sunny.");
  const sent = last().body;
  const toolUse = sent.messages[1].content.find((b: any) => b.toolUse)?.toolUse;
  const toolResult = sent.messages[2].content.find((b: any) => b.toolResult)?.toolResult;
  assert.equal(toolUse.toolUseId, "tooluse_abc123");
  assert.equal(toolResult.toolUseId, "tooluse_abc123");
  assert.match(JSON.stringify(toolResult.content), /sunny, 21C/);
});

test("a messages client's second turn reaches Claude on Bedrock with its thinking signature unchanged", async () => {
  const signature = "EqQBCkYIBxgCKkBz+/sig==";
  bedrock.script({ blocks: [{ type: "text", text: "second turn" }] });
  await anthropicAt(gw.url).messages.create({
    model: "anthropic/claude-sonnet-4-6",
    max_tokens: 2000,
    thinking: { type: "enabled", budget_tokens: 1024 },
    messages: [
      { role: "user", content: "think" },
      {
        role: "assistant",
        content: [
          { type: "thinking", thinking: "Let me think.", signature },
          { type: "text", text: "42" },
        ],
      },
      { role: "user", content: "again" },
    ],
  });
  assert.ok(last().rawBody.toString("utf8").includes(`"signature":"${signature}"`));
  assert.deepEqual(last().body.thinking, { type: "enabled", budget_tokens: 1024 });
});

test("the lookup names the Bedrock endpoint that served and prices its usage exactly", async () => {
  bedrock.script({ blocks: [{ type: "text", text: "priced" }], usage: { input: 1000, output: 500 } });
  const answer = await openai().chat.completions.create({
    model: "amazon/nova-pro",
    messages: [{ role: "user", content: "hi" }],
  });
  const generation = await lookupSettled(gw.url, answer.id, PAYG_KEY);
  assert.equal(generation.provider, "bedrock");
  // 1000 prompt tokens at $1/M and 500 completion tokens at $2/M (the test catalog's prices).
  assert.equal(rawNumber(generation, "billAmount"), "0.002");
});

test("a signature Bedrock refuses is a 502 naming the provider, never the secret", async () => {
  const res = await postMessages(gw.url, {
    model: "anthropic/claude-wrong",
    max_tokens: 10,
    messages: [{ role: "user", content: "hi" }],
  });
  const text = await res.text();
  assert.equal(res.status, 502, text);
  assert.match(text, /Provider 'bedrock-wrong' refused the gateway's credentials/);
  assert.ok(!text.includes("not-the-secret") && !gw.output().includes("not-the-secret"));
  assert.equal(last().headers.authorization?.includes("not-the-secret"), false);
});

test("a Responses client and a content-generation client reach Claude and Nova on Bedrock, streamed", async () => {
  bedrock.script({ blocks: [{ type: "text", text: "responses to claude" }], chunks: 3 });
  const stream = await openai().responses.create({
    model: "anthropic/claude-sonnet-4-6",
    input: "hi",
    stream: true,
  });
  let text = "";
  for await (const event of stream) if (event.type === "response.output_text.delta") text += event.delta;
  assert.equal(text, "responses to claude");
  assert.equal(last().operation, "invoke-with-response-stream");
  bedrock.script({ blocks: [{ type: "text", text: "gemini-shaped nova" }], chunks: 2 });
  const ai = new GoogleGenAI({ apiKey: PAYG_KEY, httpOptions: { baseUrl: gw.url } });
  let streamed = "";
  for await (const chunk of await ai.models.generateContentStream({
    model: "amazon/nova-pro",
    contents: "hi",
  }))
    streamed += chunk.text ?? "";
  assert.equal(streamed, "gemini-shaped nova");
  assert.equal(last().operation, "converse-stream");
});

test("a token count of a Converse model goes to CountTokens with the Converse prompt", async () => {
  const res = await fetch(`${gw.url}/v1/messages/count_tokens`, {
    method: "POST",
    headers: { "x-api-key": PAYG_KEY, "anthropic-version": "2023-06-01", "content-type": "application/json" },
    body: JSON.stringify({ model: "amazon/nova-pro", messages: [{ role: "user", content: "count nova" }] }),
  });
  const counted = (await res.json()) as { input_tokens: number };
  assert.equal(res.headers.get("x-switchyard-token-count"), "upstream");
  const sent = last();
  assert.equal(sent.path, `/model/${encodeURIComponent(NOVA)}/count-tokens`);
  assert.match(JSON.stringify(sent.body.input.converse.messages), /count nova/);
  assert.equal(
    counted.input_tokens,
    Math.ceil(Buffer.byteLength(JSON.stringify(sent.body.input.converse)) / 4),
  );
  await assertSigned(sent);
});

test("an endpoint with its own prices rates what it answered with them", async () => {
  bedrock.script({ blocks: [{ type: "text", text: "regional" }], usage: { input: 1000, output: 500 } });
  const answer = await anthropicAt(gw.url).messages.create({
    model: "anthropic/claude-regional",
    max_tokens: 600,
    messages: [{ role: "user", content: "hi" }],
  });
  const generation = await lookupSettled(gw.url, answer.id, PAYG_KEY);
  assert.equal(generation.provider, "bedrock");
  assert.equal(generation.model, "anthropic/claude-regional");
  // 1000 × $3.30/M + 500 × $16.50/M, not the model's $1 and $2.
  assert.equal(rawNumber(generation, "billAmount"), "0.01155");
});
