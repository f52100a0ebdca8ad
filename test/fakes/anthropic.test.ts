// The fake Anthropic upstream driven by the official `@anthropic-ai/sdk` (no gateway).

import assert from "node:assert/strict";
import { after, before, beforeEach, describe, test } from "node:test";
import Anthropic, { InternalServerError, RateLimitError } from "@anthropic-ai/sdk";
import { type FakeUpstream, type Reply, startFakeUpstream } from "./index.ts";
import { post } from "./read-frames.ts";

const INPUT = { query: "weather in Paris", filters: { unit: "celsius" } };
const RICH: Reply = {
  blocks: [
    { type: "thinking", text: "I should look the weather up.", signature: "EqQBsig-anthropic" },
    { type: "redacted_thinking", data: "EmwKAhgBredacted" },
    { type: "text", text: "Checking now." },
    { type: "tool_call", id: "toolu_fake_1", name: "search", args: INPUT },
  ],
  usage: { input: 50, cacheRead: 1000, cacheWrite5m: 200, cacheWrite1h: 30, output: 40, reasoning: 12 },
};

let fake: FakeUpstream;
let client: Anthropic;
before(async () => {
  fake = await startFakeUpstream("anthropic");
  client = new Anthropic({ apiKey: "sk-ant-fake", baseURL: fake.url, maxRetries: 0 });
});
after(() => fake.close());
beforeEach(() => fake.reset());

const params = {
  model: "claude-fake",
  max_tokens: 1024,
  messages: [{ role: "user" as const, content: "weather?" }],
};
const HEADERS = { "x-api-key": "k", "anthropic-version": "2023-06-01" };

describe("anthropic fake, whole messages", () => {
  test("messages.create: thinking with signature, redacted thinking, tool_use, cache usage", async () => {
    fake.script(RICH);
    const message = await client.messages.create(params);
    assert.equal(message.type, "message");
    assert.equal(message.role, "assistant");
    assert.match(message.id, /^msg_/);
    assert.equal(message.model, "claude-fake");
    assert.equal(message.stop_reason, "tool_use");
    assert.equal(message.stop_sequence, null);
    assert.deepEqual(message.content, [
      { type: "thinking", thinking: "I should look the weather up.", signature: "EqQBsig-anthropic" },
      { type: "redacted_thinking", data: "EmwKAhgBredacted" },
      { type: "text", text: "Checking now." },
      { type: "tool_use", id: "toolu_fake_1", name: "search", input: INPUT },
    ]);
    // input_tokens excludes cache reads and writes; output_tokens includes reasoning.
    assert.equal(message.usage.input_tokens, 50);
    assert.equal(message.usage.cache_read_input_tokens, 1000);
    assert.equal(message.usage.cache_creation_input_tokens, 230);
    assert.deepEqual(message.usage.cache_creation, {
      ephemeral_5m_input_tokens: 200,
      ephemeral_1h_input_tokens: 30,
    });
    assert.equal(message.usage.output_tokens, 52);

    const recorded = fake.requests.at(-1)!;
    assert.equal(recorded.path, "/v1/messages");
    assert.equal(recorded.headers["x-api-key"], "sk-ant-fake");
    assert.equal(recorded.headers["anthropic-version"], "2023-06-01");
    assert.equal(recorded.body.max_tokens, 1024);
  });

  test("stop_sequence finish reports the sequence", async () => {
    fake.script({ blocks: [{ type: "text", text: "1, 2, 3" }], finish: "stop_sequence", stopSequence: "4" });
    const message = await client.messages.create(params);
    assert.equal(message.stop_reason, "stop_sequence");
    assert.equal(message.stop_sequence, "4");
  });

  test("missing headers and fields get the API's native errors", async () => {
    const noKey = await post(`${fake.url}/v1/messages`, params, { "anthropic-version": "2023-06-01" });
    assert.equal(noKey.status, 401);
    assert.equal(JSON.parse(noKey.text).error.type, "authentication_error");
    const noVersion = await post(`${fake.url}/v1/messages`, params, { "x-api-key": "k" });
    assert.equal(noVersion.status, 400);
    const body = JSON.parse(noVersion.text);
    assert.equal(body.type, "error");
    assert.equal(body.error.type, "invalid_request_error");
    assert.match(body.error.message, /anthropic-version/);
    const { max_tokens: _, ...noMax } = params;
    const noMaxTokens = await post(`${fake.url}/v1/messages`, noMax, HEADERS);
    assert.equal(noMaxTokens.status, 400);
    assert.match(JSON.parse(noMaxTokens.text).error.message, /max_tokens/);
  });

  test("status 429 and 529 are the SDK's RateLimitError and an overloaded_error", async () => {
    fake.script({ status: 429, headers: { "retry-after": "7" } }, { status: 529 });
    await assert.rejects(client.messages.create(params), (err: unknown) => {
      assert.ok(err instanceof RateLimitError);
      assert.equal(err.headers?.get("retry-after"), "7");
      return true;
    });
    await assert.rejects(client.messages.create(params), (err: unknown) => {
      assert.ok(err instanceof InternalServerError);
      assert.equal(err.status, 529);
      assert.equal((err.error as any).error.type, "overloaded_error");
      return true;
    });
  });
});

describe("anthropic fake, streams", () => {
  test("messages.stream().finalMessage: signature_delta, tool input from pieces, usage", async () => {
    fake.script({ ...RICH, chunks: 3 });
    const pieces: string[] = [];
    const stream = client.messages.stream(params);
    stream.on("streamEvent", (event) => {
      if (event.type === "content_block_delta" && event.delta.type === "input_json_delta") {
        pieces.push(event.delta.partial_json);
      }
    });
    const message = await stream.finalMessage();
    assert.deepEqual(message.content[0], {
      type: "thinking",
      thinking: "I should look the weather up.",
      signature: "EqQBsig-anthropic",
    });
    assert.deepEqual(message.content[1], { type: "redacted_thinking", data: "EmwKAhgBredacted" });
    assert.equal((message.content[2] as { text: string }).text, "Checking now.");
    const tool = message.content[3];
    assert.ok(tool.type === "tool_use");
    assert.equal(tool.id, "toolu_fake_1");
    assert.deepEqual(tool.input, INPUT);
    // The live API opens with an empty piece; then the JSON really is split.
    assert.equal(pieces.length, 4);
    assert.equal(pieces[0], "");
    assert.equal(pieces.join(""), JSON.stringify(INPUT));
    assert.throws(() => JSON.parse(pieces[1]));
    assert.equal(message.stop_reason, "tool_use");
    assert.equal(message.usage.input_tokens, 50);
    assert.equal(message.usage.cache_read_input_tokens, 1000);
    assert.equal(message.usage.cache_creation_input_tokens, 230);
    assert.equal(message.usage.output_tokens, 52);
  });

  test("the raw event sequence: message_start, ping, blocks, message_delta, message_stop", async () => {
    fake.script({
      blocks: [{ type: "text", text: "Hello" }],
      chunks: 2,
      usage: { input: 3, cacheRead: 9, output: 4 },
    });
    const res = await post(`${fake.url}/v1/messages`, { ...params, stream: true }, HEADERS);
    assert.match(res.headers.get("content-type") ?? "", /^text\/event-stream/);
    assert.deepEqual(
      res.frames.map((f) => f.event),
      [
        "message_start",
        "ping",
        "content_block_start",
        "content_block_delta",
        "content_block_delta",
        "content_block_stop",
        "message_delta",
        "message_stop",
      ],
    );
    const data = res.frames.map((f) => JSON.parse(f.data));
    assert.ok(data.every((d, i) => d.type === res.frames[i].event));
    assert.deepEqual(data[0].message.usage, {
      input_tokens: 3,
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: 9,
      cache_creation: { ephemeral_5m_input_tokens: 0, ephemeral_1h_input_tokens: 0 },
      output_tokens: 1,
      service_tier: "standard",
    });
    assert.deepEqual(data[2].content_block, { type: "text", text: "" });
    assert.deepEqual(data[3].delta, { type: "text_delta", text: "Hel" });
    assert.deepEqual(data[6].delta, { stop_reason: "end_turn", stop_sequence: null });
    assert.equal(data[6].usage.output_tokens, 4);
  });

  test("a tool call without arguments streams only the empty opening piece", async () => {
    fake.script({ blocks: [{ type: "tool_call", name: "ping", args: {} }] });
    const res = await post(`${fake.url}/v1/messages`, { ...params, stream: true }, HEADERS);
    const deltas = res.frames
      .filter((f) => f.event === "content_block_delta")
      .map((f) => JSON.parse(f.data).delta);
    assert.deepEqual(deltas, [{ type: "input_json_delta", partial_json: "" }]);
    const start = JSON.parse(res.frames.find((f) => f.event === "content_block_start")!.data);
    assert.match(start.content_block.id, /^toolu_/);
  });

  test("an empty-text signed thinking block still streams its signature", async () => {
    fake.script({ blocks: [{ type: "thinking", text: "", signature: "only-sig" }] });
    const message = await client.messages.stream(params).finalMessage();
    assert.deepEqual(message.content, [{ type: "thinking", thinking: "", signature: "only-sig" }]);
  });
});
