// Our bytes fed to the real @anthropic-ai/sdk client through a custom fetch: the request the SDK
// builds must decode, and the response and stream we encode must assemble into the message we meant.

import assert from "node:assert/strict";
import { describe, test } from "node:test";
import Anthropic from "@anthropic-ai/sdk";
import { GatewayError } from "../../../src/ir/errors.ts";
import type { Request as IrRequest } from "../../../src/ir/request.ts";
import type { Response as IrResponse } from "../../../src/ir/response.ts";
import type { StreamEvent } from "../../../src/ir/stream.ts";
import { packToolCallId } from "../../../src/ir/tool-call-id.ts";
import { emptyUsage, type Usage } from "../../../src/ir/usage.ts";
import { anthropic } from "../../../src/protocols/anthropic/index.ts";
import { encodeContext } from "./helpers.ts";

const usage: Usage = {
  ...emptyUsage(),
  promptTokens: 1000,
  cacheReadTokens: 600,
  cacheWrite5mTokens: 100,
  cacheWrite1hTokens: 50,
  completionTokens: 80,
  reasoningTokens: 30,
  webSearchRequests: 2,
};

interface Answer {
  response?: IrResponse;
  events?: StreamEvent[];
}

/** A client whose every call is answered by our encoders; it records the decoded IR requests. */
function clientAnswering(answer: Answer) {
  const seen: IrRequest[] = [];
  const fetch = async (_url: string | URL | globalThis.Request, init?: RequestInit) => {
    const headers = Object.fromEntries(new Headers(init?.headers).entries());
    const req = anthropic.decodeRequest(JSON.parse(String(init?.body)), { headers });
    seen.push(req);
    const ctx = encodeContext({ request: req });
    if (req.stream) {
      const encoder = anthropic.streamEncoder(ctx);
      const sse = (answer.events ?? []).map((e) => encoder.encode(e)).join("") + encoder.end();
      return new globalThis.Response(sse, { headers: { "content-type": "text/event-stream" } });
    }
    const body = JSON.stringify(anthropic.encodeResponse(answer.response!, ctx));
    return new globalThis.Response(body, { headers: { "content-type": "application/json" } });
  };
  const client = new Anthropic({ apiKey: "x", baseURL: "http://gateway.test", fetch, maxRetries: 0 });
  return { client, seen };
}

const params = {
  model: "anthropic/claude-sonnet-4-5",
  max_tokens: 4096,
  messages: [{ role: "user" as const, content: "What is the weather in Paris?" }],
  tools: [
    {
      name: "get_weather",
      input_schema: { type: "object" as const, properties: { city: { type: "string" } } },
    },
  ],
};

describe("@anthropic-ai/sdk reads our non-streamed message", () => {
  test("messages.create returns the blocks, stop reason and usage we encoded", async () => {
    const { client, seen } = clientAnswering({
      response: {
        id: "upstream-id",
        model: "upstream-model",
        content: [
          { type: "thinking", text: "", signature: "sig-empty" },
          { type: "text", text: "" },
          { type: "text", text: "Let me check." },
          {
            type: "tool_call",
            id: "call_1",
            name: "get_weather",
            arguments: '{"city":"Paris"}',
            signature: "g-sig",
          },
          { type: "tool_call", id: "call_2", name: "get_weather", arguments: "" },
        ],
        finishReason: "tool_calls",
        usage,
      },
    });
    const message = await client.messages.create(params);
    assert.equal(seen[0].tools[0].name, "get_weather");
    assert.equal(message.id, "gen-01TEST");
    assert.equal(message.model, "anthropic/claude-sonnet-4-5");
    assert.equal(message.type, "message");
    assert.equal(message.role, "assistant");
    assert.equal(message.stop_reason, "tool_use");
    assert.equal(message.stop_sequence, null);
    assert.deepEqual(
      message.content.map((b) => b.type),
      ["thinking", "text", "tool_use", "tool_use"],
    );
    assert.deepEqual(message.content[0], { type: "thinking", thinking: "", signature: "sig-empty" });
    const call = message.content[2];
    assert.ok(call.type === "tool_use");
    assert.equal(call.id, packToolCallId("call_1", "g-sig"));
    assert.deepEqual(call.input, { city: "Paris" });
    const noArgs = message.content[3];
    assert.ok(noArgs.type === "tool_use");
    assert.deepEqual(noArgs.input, {});
    assert.equal(message.usage.input_tokens, 250);
    assert.equal(message.usage.output_tokens, 80);
    assert.equal(message.usage.cache_read_input_tokens, 600);
    assert.equal(message.usage.cache_creation_input_tokens, 150);
    assert.deepEqual(message.usage.cache_creation, {
      ephemeral_5m_input_tokens: 100,
      ephemeral_1h_input_tokens: 50,
    });
    assert.equal(message.usage.server_tool_use?.web_search_requests, 2);
    assert.equal(message.usage.service_tier, "standard");
  });

  test("a stop sequence is reported with its stop_reason", async () => {
    const { client } = clientAnswering({
      response: {
        id: "",
        model: "",
        content: [{ type: "text", text: "1, 2" }],
        finishReason: "stop_sequence",
        stopSequence: ", 3",
        usage,
      },
    });
    const message = await client.messages.create({ ...params, stop_sequences: [", 3"] });
    assert.equal(message.stop_reason, "stop_sequence");
    assert.equal(message.stop_sequence, ", 3");
  });
});

describe("@anthropic-ai/sdk assembles our stream", () => {
  test("thinking, text and a tool call whose arguments arrive in pieces, with final usage", async () => {
    const events: StreamEvent[] = [
      { type: "start", id: "up", model: "up" },
      { type: "usage", usage: { ...usage, completionTokens: 1, reasoningTokens: 0 } },
      { type: "block_start", index: 0, block: { type: "thinking" } },
      { type: "block_delta", index: 0, delta: { type: "thinking", text: "The user wants " } },
      { type: "block_delta", index: 0, delta: { type: "thinking", text: "weather." } },
      { type: "block_delta", index: 0, delta: { type: "signature", signature: "sig-" } },
      { type: "block_delta", index: 0, delta: { type: "signature", signature: "whole" } },
      { type: "block_stop", index: 0 },
      // An IR text block that never gets text must not become an (empty) client block.
      { type: "block_start", index: 1, block: { type: "text" } },
      { type: "block_delta", index: 1, delta: { type: "text", text: "" } },
      { type: "block_stop", index: 1 },
      { type: "block_start", index: 2, block: { type: "text" } },
      { type: "block_delta", index: 2, delta: { type: "text", text: "Checking" } },
      { type: "block_delta", index: 2, delta: { type: "text", text: " now." } },
      { type: "block_stop", index: 2 },
      {
        type: "block_start",
        index: 3,
        block: { type: "tool_call", id: "call_9", name: "get_weather", signature: "gs" },
      },
      { type: "block_delta", index: 3, delta: { type: "tool_arguments", json: '{"ci' } },
      { type: "block_delta", index: 3, delta: { type: "tool_arguments", json: 'ty": "Pa' } },
      { type: "block_delta", index: 3, delta: { type: "tool_arguments", json: 'ris"}' } },
      { type: "block_stop", index: 3 },
      { type: "finish", reason: "tool_calls" },
      { type: "usage", usage },
    ];
    const { client } = clientAnswering({ events });
    const stream = client.messages.stream(params);
    const jsonPieces: string[] = [];
    stream.on("inputJson", (piece) => jsonPieces.push(piece));
    const message = await stream.finalMessage();
    assert.equal(message.id, "gen-01TEST");
    assert.deepEqual(
      message.content.map((b) => b.type),
      ["thinking", "text", "tool_use"],
    );
    assert.deepEqual(message.content[0], {
      type: "thinking",
      thinking: "The user wants weather.",
      signature: "sig-whole",
    });
    assert.equal(message.content[1].type === "text" && message.content[1].text, "Checking now.");
    const call = message.content[2];
    assert.ok(call.type === "tool_use");
    assert.equal(call.id, packToolCallId("call_9", "gs"));
    assert.deepEqual(call.input, { city: "Paris" });
    assert.deepEqual(jsonPieces, ['{"ci', 'ty": "Pa', 'ris"}']);
    assert.equal(message.stop_reason, "tool_use");
    assert.equal(message.usage.output_tokens, 80);
    assert.equal(message.usage.input_tokens, 250);
    assert.equal(message.usage.cache_read_input_tokens, 600);
    assert.deepEqual(message.usage.cache_creation, {
      ephemeral_5m_input_tokens: 100,
      ephemeral_1h_input_tokens: 50,
    });
  });

  test("interleaved IR blocks reach the client one at a time, in order, with contiguous indexes", async () => {
    const events: StreamEvent[] = [
      { type: "start" },
      { type: "block_start", index: 5, block: { type: "tool_call", id: "a", name: "get_weather" } },
      { type: "block_start", index: 7, block: { type: "tool_call", id: "b", name: "get_weather" } },
      { type: "block_delta", index: 7, delta: { type: "tool_arguments", json: '{"city":"Rome"}' } },
      { type: "block_delta", index: 5, delta: { type: "tool_arguments", json: '{"city":' } },
      { type: "block_stop", index: 7 },
      { type: "block_delta", index: 5, delta: { type: "tool_arguments", json: '"Oslo"}' } },
      { type: "block_stop", index: 5 },
      { type: "finish", reason: "tool_calls" },
    ];
    const { client } = clientAnswering({ events });
    const message = await client.messages.stream(params).finalMessage();
    assert.deepEqual(
      message.content.map((b) => (b.type === "tool_use" ? [b.id, b.input] : b.type)),
      [
        ["a", { city: "Oslo" }],
        ["b", { city: "Rome" }],
      ],
    );
  });

  test("create({stream: true}) yields the raw events the SDK types", async () => {
    const { client } = clientAnswering({
      events: [
        { type: "start" },
        { type: "block_start", index: 0, block: { type: "text" } },
        { type: "block_delta", index: 0, delta: { type: "text", text: "Hi" } },
        { type: "block_stop", index: 0 },
        { type: "usage", usage },
        { type: "finish", reason: "length" },
      ],
    });
    const stream = await client.messages.create({ ...params, stream: true });
    const types: string[] = [];
    for await (const event of stream) {
      types.push(event.type);
      if (event.type === "message_delta") {
        assert.equal(event.delta.stop_reason, "max_tokens");
        assert.equal(event.usage.output_tokens, 80);
      }
    }
    assert.deepEqual(types, [
      "message_start",
      "content_block_start",
      "content_block_delta",
      "content_block_stop",
      "message_delta",
      "message_stop",
    ]);
  });

  test("an error in the middle of the stream reaches the client as an API error of its type", async () => {
    const { client } = clientAnswering({
      events: [
        { type: "start" },
        { type: "block_start", index: 0, block: { type: "text" } },
        { type: "block_delta", index: 0, delta: { type: "text", text: "partial" } },
        { type: "error", error: new GatewayError("overloaded", "Overloaded", { status: 529 }) },
      ],
    });
    await assert.rejects(client.messages.stream(params).finalMessage(), (error: unknown) => {
      assert.ok(error instanceof Anthropic.APIError);
      assert.match(error.message, /Overloaded/);
      assert.equal((error.error as any)?.error?.type, "overloaded_error");
      return true;
    });
  });
});
