// The Bedrock fake's wire, proven with the official client (@aws-sdk/client-bedrock-runtime,
// unmodified): it signs each request with SigV4, reads Converse answers, event-stream frames and
// Bedrock's errors exactly as it reads the real service's. (Its HTTP handler is the SDK's HTTP/1.1 one.)

import assert from "node:assert/strict";
import { after, before, beforeEach, test } from "node:test";
import {
  BedrockRuntimeClient,
  ConverseCommand,
  ConverseStreamCommand,
  CountTokensCommand,
  InvokeModelCommand,
  InvokeModelWithResponseStreamCommand,
  ModelStreamErrorException,
  ThrottlingException,
  ValidationException,
} from "@aws-sdk/client-bedrock-runtime";
import { NodeHttpHandler } from "@smithy/node-http-handler";
import { type FakeBedrock, startFakeBedrock } from "./bedrock.ts";
import { apiKeyAuthorizer, sigV4Authorizer } from "./bedrock-auth.ts";
import { fakeInputTokens, fakeVector } from "./embeddings.ts";

let bedrock: FakeBedrock;
let client: BedrockRuntimeClient;

const NOVA = "us.amazon.nova-pro-v1:0";
const CLAUDE_ARN =
  "arn:aws:bedrock:us-east-1:123456789012:inference-profile/global.anthropic.claude-sonnet-4-5-20250929-v1:0";

before(async () => {
  bedrock = await startFakeBedrock();
  client = new BedrockRuntimeClient({
    region: "us-east-1",
    endpoint: bedrock.url,
    credentials: {
      accessKeyId: "AKIDEXAMPLE",
      secretAccessKey: "wJalrXUtnFEMI/K7MDENG",
      sessionToken: "session-token",
    },
    maxAttempts: 1,
    // The fake speaks HTTP/1.1 (as the gateway's pool does by default); the client would use HTTP/2.
    requestHandler: new NodeHttpHandler(),
  });
});
after(async () => {
  client.destroy();
  await bedrock.close();
});
beforeEach(() => bedrock.reset());

test("Converse: text, reasoning with its signature, a tool call, usage with cache counts", async () => {
  bedrock.script({
    blocks: [
      { type: "thinking", text: "Let me think.", signature: "sig-1" },
      { type: "text", text: "Checking the weather." },
      { type: "tool_call", id: "tooluse_1", name: "get_weather", args: { city: "Paris" } },
    ],
    usage: { input: 12, cacheRead: 100, cacheWrite1h: 50, cacheWrite5m: 20, output: 7, reasoning: 3 },
  });
  const answer = await client.send(
    new ConverseCommand({
      modelId: NOVA,
      messages: [{ role: "user", content: [{ text: "Weather in Paris?" }] }],
      toolConfig: {
        tools: [{ toolSpec: { name: "get_weather", inputSchema: { json: { type: "object" } } } }],
      },
    }),
  );
  const content = answer.output?.message?.content ?? [];
  assert.deepEqual(content[0].reasoningContent?.reasoningText, { text: "Let me think.", signature: "sig-1" });
  assert.equal(content[1].text, "Checking the weather.");
  assert.deepEqual(content[2].toolUse, {
    toolUseId: "tooluse_1",
    name: "get_weather",
    input: { city: "Paris" },
  });
  assert.equal(answer.stopReason, "tool_use");
  assert.deepEqual(answer.usage, {
    inputTokens: 12,
    outputTokens: 10,
    totalTokens: 192,
    cacheReadInputTokens: 100,
    cacheWriteInputTokens: 70,
    cacheDetails: [
      { ttl: "1h", inputTokens: 50 },
      { ttl: "5m", inputTokens: 20 },
    ],
  });
  const [request] = bedrock.requests;
  assert.equal(request.operation, "converse");
  assert.equal(request.modelId, NOVA);
  assert.match(
    String(request.headers.authorization),
    /^AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE\/\d{8}\/us-east-1\/bedrock\/aws4_request/,
  );
  assert.equal(request.headers["x-amz-security-token"], "session-token");
  assert.deepEqual(JSON.parse(request.rawBody.toString()).messages[0].content, [
    { text: "Weather in Paris?" },
  ]);
});

test("ConverseStream: event-stream frames decode to the SDK's events, tool input and reasoning deltas included", async () => {
  bedrock.script({
    blocks: [
      { type: "thinking", text: "Hmm, fine.", signature: "sig-2" },
      { type: "text", text: "Hello there, friend." },
      { type: "tool_call", id: "tooluse_2", name: "lookup", args: { q: "x" } },
    ],
    usage: { input: 5, output: 4, cacheRead: 2 },
  });
  const answer = await client.send(
    new ConverseStreamCommand({ modelId: NOVA, messages: [{ role: "user", content: [{ text: "hi" }] }] }),
  );
  const seen: string[] = [];
  let text = "";
  let reasoning = "";
  let signature = "";
  let input = "";
  let usage: unknown;
  for await (const event of answer.stream ?? []) {
    const name =
      Object.keys(event).find((key) => (event as unknown as Record<string, unknown>)[key] !== undefined) ??
      "";
    seen.push(name);
    text += event.contentBlockDelta?.delta?.text ?? "";
    reasoning += event.contentBlockDelta?.delta?.reasoningContent?.text ?? "";
    signature += event.contentBlockDelta?.delta?.reasoningContent?.signature ?? "";
    input += event.contentBlockDelta?.delta?.toolUse?.input ?? "";
    if (event.contentBlockStart)
      assert.deepEqual(event.contentBlockStart.start?.toolUse, { toolUseId: "tooluse_2", name: "lookup" });
    if (event.messageStop) assert.equal(event.messageStop.stopReason, "tool_use");
    if (event.metadata) usage = event.metadata.usage;
  }
  assert.equal(seen[0], "messageStart");
  assert.deepEqual(seen.slice(-2), ["messageStop", "metadata"]);
  assert.equal(text, "Hello there, friend.");
  assert.equal(reasoning, "Hmm, fine.");
  assert.equal(signature, "sig-2");
  assert.deepEqual(JSON.parse(input), { q: "x" });
  assert.deepEqual(usage, {
    inputTokens: 5,
    outputTokens: 4,
    totalTokens: 11,
    cacheReadInputTokens: 2,
    cacheWriteInputTokens: 0,
  });
  assert.equal(bedrock.requests[0].operation, "converse-stream");
});

test("InvokeModel with a Claude messages body, the model named by an inference-profile ARN", async () => {
  bedrock.script({ blocks: [{ type: "text", text: "Hi from Claude." }], usage: { input: 9, output: 4 } });
  const body = {
    anthropic_version: "bedrock-2023-05-31",
    max_tokens: 100,
    messages: [{ role: "user", content: "hi" }],
  };
  const answer = await client.send(
    new InvokeModelCommand({
      modelId: CLAUDE_ARN,
      contentType: "application/json",
      body: JSON.stringify(body),
    }),
  );
  const message = JSON.parse(new TextDecoder().decode(answer.body));
  assert.equal(message.type, "message");
  assert.equal(message.model, "claude-sonnet-4-5-20250929");
  assert.deepEqual(message.content, [{ type: "text", text: "Hi from Claude." }]);
  assert.deepEqual(message.usage, {
    input_tokens: 9,
    cache_creation_input_tokens: 0,
    cache_read_input_tokens: 0,
    output_tokens: 4,
  });
  const [request] = bedrock.requests;
  assert.equal(request.modelId, CLAUDE_ARN);
  assert.match(
    request.path,
    /^\/model\/arn%3Aaws%3Abedrock%3Aus-east-1%3A123456789012%3Ainference-profile%2Fglobal\./,
  );
});

test("InvokeModel with Titan's and Cohere's embedding bodies: their answers, and their refusals as ValidationException", async () => {
  const titan = await client.send(
    new InvokeModelCommand({
      modelId: "amazon.titan-embed-text-v2:0",
      contentType: "application/json",
      body: JSON.stringify({ inputText: "hello world", dimensions: 256, normalize: true }),
    }),
  );
  const embedded = JSON.parse(new TextDecoder().decode(titan.body));
  assert.deepEqual(embedded.embedding, fakeVector("hello world", 256));
  assert.equal(embedded.inputTextTokenCount, fakeInputTokens("hello world"));
  const cohere = await client.send(
    new InvokeModelCommand({
      modelId: "cohere.embed-multilingual-v3",
      contentType: "application/json",
      body: JSON.stringify({ texts: ["a", "b"], input_type: "search_query" }),
    }),
  );
  const answer = JSON.parse(new TextDecoder().decode(cohere.body));
  assert.equal(answer.response_type, "embeddings_floats");
  assert.deepEqual(answer.embeddings, [fakeVector("a", 1024), fakeVector("b", 1024)]);
  for (const body of [
    { inputText: "x", dimensions: 300 },
    { inputText: "x", input_type: "search_query" },
  ])
    await assert.rejects(
      client.send(
        new InvokeModelCommand({ modelId: "amazon.titan-embed-text-v2:0", body: JSON.stringify(body) }),
      ),
      ValidationException,
    );
  await assert.rejects(
    client.send(
      new InvokeModelCommand({ modelId: "cohere.embed-english-v3", body: JSON.stringify({ texts: ["a"] }) }),
    ),
    ValidationException,
  );
});

test("InvokeModelWithResponseStream: chunk events carry the messages stream events as base64", async () => {
  bedrock.script({ blocks: [{ type: "text", text: "Streamed Claude." }], usage: { input: 3, output: 2 } });
  const body = {
    anthropic_version: "bedrock-2023-05-31",
    max_tokens: 50,
    messages: [{ role: "user", content: "hi" }],
  };
  const answer = await client.send(
    new InvokeModelWithResponseStreamCommand({
      modelId: "anthropic.claude-3-5-haiku-20241022-v1:0",
      body: JSON.stringify(body),
    }),
  );
  const types: string[] = [];
  let text = "";
  for await (const event of answer.body ?? []) {
    const data = JSON.parse(new TextDecoder().decode(event.chunk?.bytes));
    types.push(data.type);
    if (data.type === "content_block_delta") text += data.delta.text;
    if (data.type === "message_stop")
      assert.equal(data["amazon-bedrock-invocationMetrics"].inputTokenCount, 3);
  }
  assert.equal(text, "Streamed Claude.");
  assert.equal(types[0], "message_start");
  assert.deepEqual(types.slice(-2), ["message_delta", "message_stop"]);
});

test("errors: x-amzn-errortype names the SDK's exception; a refused body is a ValidationException", async () => {
  bedrock.script({ status: 429 });
  await assert.rejects(
    client.send(
      new ConverseCommand({ modelId: NOVA, messages: [{ role: "user", content: [{ text: "hi" }] }] }),
    ),
    (error: unknown) => error instanceof ThrottlingException && error.$metadata.httpStatusCode === 429,
  );
  const noVersion = { max_tokens: 10, messages: [] };
  await assert.rejects(
    client.send(
      new InvokeModelCommand({
        modelId: "anthropic.claude-3-haiku-20240307-v1:0",
        body: JSON.stringify(noVersion),
      }),
    ),
    (error: unknown) => error instanceof ValidationException && /anthropic_version/.test(error.message),
  );
  await assert.rejects(
    client.send(
      new ConverseCommand({
        modelId: NOVA,
        messages: [{ role: "user", content: [{ toolResult: { toolUseId: "t", content: [{ text: "r" }] } }] }],
      }),
    ),
    (error: unknown) => error instanceof ValidationException && /toolConfig/.test(error.message),
  );
});

test("a mid-stream failure arrives as the SDK's ModelStreamErrorException (or the exception the reply names)", async () => {
  bedrock.script({ blocks: [{ type: "text", text: "one two three four" }], fault: "midstream-error" });
  const answer = await client.send(
    new ConverseStreamCommand({ modelId: NOVA, messages: [{ role: "user", content: [{ text: "hi" }] }] }),
  );
  await assert.rejects(async () => {
    for await (const _ of answer.stream ?? []);
  }, ModelStreamErrorException);
  bedrock.script({
    blocks: [{ type: "text", text: "one two three four" }],
    fault: "midstream-error",
    headers: { "x-amzn-errortype": "throttlingException" },
    errorBody: { message: "Too many tokens, please wait before trying again." },
  });
  const throttled = await client.send(
    new ConverseStreamCommand({ modelId: NOVA, messages: [{ role: "user", content: [{ text: "hi" }] }] }),
  );
  await assert.rejects(async () => {
    for await (const _ of throttled.stream ?? []);
  }, ThrottlingException);
});

test("CountTokens counts a Converse input and an InvokeModel body", async () => {
  const converse = await client.send(
    new CountTokensCommand({
      modelId: "anthropic.claude-sonnet-4-5-20250929-v1:0",
      input: { converse: { messages: [{ role: "user", content: [{ text: "count me" }] }] } },
    }),
  );
  const sent = bedrock.requests[0].body.input.converse;
  assert.equal(converse.inputTokens, Math.ceil(JSON.stringify(sent).length / 4));
  const body = JSON.stringify({ anthropic_version: "bedrock-2023-05-31", max_tokens: 10, messages: [] });
  const invoke = await client.send(
    new CountTokensCommand({
      modelId: "anthropic.claude-sonnet-4-5-20250929-v1:0",
      input: { invokeModel: { body: new TextEncoder().encode(body) } },
    }),
  );
  assert.equal(invoke.inputTokens, Math.ceil(body.length / 4));
  assert.equal(bedrock.requests[1].operation, "count-tokens");
});

test("with sigV4Authorizer the fake checks each signature and session token as Bedrock does", async () => {
  const credentials = {
    accessKeyId: "AKIDEXAMPLE",
    secretAccessKey: "right-secret",
    sessionToken: "token-1",
  };
  const signed = await startFakeBedrock({ authorize: sigV4Authorizer(credentials) });
  const clientWith = (secretAccessKey: string, sessionToken = "token-1") =>
    new BedrockRuntimeClient({
      region: "eu-west-1",
      endpoint: signed.url,
      credentials: { accessKeyId: "AKIDEXAMPLE", secretAccessKey, sessionToken },
      maxAttempts: 1,
      requestHandler: new NodeHttpHandler(),
    });
  const converse = (c: BedrockRuntimeClient) =>
    c.send(
      new ConverseCommand({
        modelId: "arn:aws:bedrock:eu-west-1:123456789012:inference-profile/eu.amazon.nova-lite-v1:0",
        messages: [{ role: "user", content: [{ text: "signed ünïcode body" }] }],
      }),
    );
  const clients = [
    clientWith("right-secret"),
    clientWith("wrong-secret"),
    clientWith("right-secret", "token-2"),
  ];
  try {
    const answer = await converse(clients[0]);
    assert.equal(answer.output?.message?.content?.[0].text, "Hello from the fake upstream.");
    await assert.rejects(converse(clients[1]), (error: Error) => error.name === "InvalidSignatureException");
    await assert.rejects(
      converse(clients[2]),
      (error: Error) => error.name === "UnrecognizedClientException",
    );
  } finally {
    for (const c of clients) c.destroy();
    await signed.close();
  }
});

test("with apiKeyAuthorizer the fake takes a Bedrock API key as a Bearer token", async () => {
  const keyed = await startFakeBedrock({ authorize: apiKeyAuthorizer("ABSKexample-key") });
  try {
    const send = (key: string) =>
      fetch(`${keyed.url}/model/us.amazon.nova-lite-v1%3A0/converse`, {
        method: "POST",
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
        body: JSON.stringify({ messages: [{ role: "user", content: [{ text: "hi" }] }] }),
      });
    assert.equal((await send("ABSKexample-key")).status, 200);
    const refused = await send("wrong");
    assert.equal(refused.status, 403);
    assert.match(String(refused.headers.get("x-amzn-errortype")), /^UnrecognizedClientException:/);
  } finally {
    await keyed.close();
  }
});
