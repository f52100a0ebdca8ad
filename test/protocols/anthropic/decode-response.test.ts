import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { GatewayError } from "../../../src/ir/errors.ts";
import { anthropic } from "../../../src/protocols/anthropic/index.ts";
import { JSON_TOOL_NAME } from "../../../src/protocols/anthropic/json-mode.ts";
import { fixtureJson } from "./helpers.ts";

describe("decodeResponse (Anthropic-protocol upstream, non-streamed)", () => {
  test("the docs' tool-use message", () => {
    const response = anthropic.decodeResponse(fixtureJson("message-tool-use.json"));
    assert.equal(response.id, "msg_01Aq9w938a90dw8q");
    assert.equal(response.model, "claude-opus-4-6");
    assert.equal(response.finishReason, "tool_calls");
    assert.deepEqual(response.content, [
      { type: "text", text: "I'll check the current weather in San Francisco for you." },
      {
        type: "tool_call",
        id: "toolu_01A09q90qw90lq917835lq9",
        name: "get_weather",
        arguments: '{"location":"San Francisco, CA","unit":"celsius"}',
      },
    ]);
    assert.equal(response.usage.promptTokens, 0, "no usage in this example: zeros, not a crash");
  });

  test("the docs' thinking message, with the prompt-caching usage example", () => {
    const response = anthropic.decodeResponse(fixtureJson("message-thinking.json"));
    assert.equal(response.finishReason, "stop");
    assert.equal(response.stopSequence, undefined);
    assert.deepEqual(response.content[0], {
      type: "thinking",
      text: "Let me analyze this step by step...",
      signature: "WaUjzkypQ2mUEVM36O2TxuC06KN8xyfbJwyem2dw3URve/op91XWHOEBLLqIOMfFG/UvLEczmEsUjavL....",
    });
    assert.equal(response.content[1].type, "redacted_thinking");
    assert.deepEqual(response.content[2], { type: "text", text: "Based on my analysis..." });
    // input 2048 excludes the cache; promptTokens includes reads (1800) and writes (248).
    assert.deepEqual(response.usage, {
      promptTokens: 2048 + 1800 + 248,
      cacheReadTokens: 1800,
      cacheWrite5mTokens: 148,
      cacheWrite1hTokens: 100,
      completionTokens: 503,
      reasoningTokens: 0,
      webSearchRequests: 0,
    });
  });

  test("cache writes without a split count as 5-minute writes; a web search is a block and counted", () => {
    const response = anthropic.decodeResponse({
      id: "m",
      model: "c",
      content: [
        { type: "server_tool_use", id: "srvtoolu_1", name: "web_search", input: { query: "q" } },
        { type: "web_search_tool_result", tool_use_id: "srvtoolu_1", content: [] },
        { type: "text", text: "found", citations: null },
      ],
      stop_reason: "max_tokens",
      usage: {
        input_tokens: 10,
        cache_creation_input_tokens: 30,
        cache_read_input_tokens: 5,
        output_tokens: 7,
        server_tool_use: { web_search_requests: 3 },
      },
    });
    assert.deepEqual(response.content, [
      { type: "web_search", id: "srvtoolu_1", query: "q", results: [] },
      { type: "text", text: "found" },
    ]);
    assert.equal(response.finishReason, "length");
    assert.equal(response.usage.promptTokens, 45);
    assert.equal(response.usage.cacheWrite5mTokens, 30);
    assert.equal(response.usage.cacheWrite1hTokens, 0);
    assert.equal(response.usage.webSearchRequests, 3);
  });

  test("stop sequences and refusals", () => {
    const stopped = anthropic.decodeResponse({
      content: [],
      stop_reason: "stop_sequence",
      stop_sequence: "###",
      usage: {},
    });
    assert.equal(stopped.finishReason, "stop_sequence");
    assert.equal(stopped.stopSequence, "###");
    assert.equal(anthropic.decodeResponse({ content: [], stop_reason: "refusal" }).finishReason, "refusal");
    assert.equal(anthropic.decodeResponse({ content: [], stop_reason: "pause_turn" }).finishReason, "pause");
  });

  test("JSON mode: the reserved tool's input comes back as the text answer, and the turn is a normal stop", () => {
    const response = anthropic.decodeResponse({
      content: [{ type: "tool_use", id: "toolu_1", name: JSON_TOOL_NAME, input: { answer: 42 } }],
      stop_reason: "tool_use",
      usage: { input_tokens: 1, output_tokens: 1 },
    });
    assert.deepEqual(response.content, [{ type: "text", text: '{"answer":42}' }]);
    assert.equal(response.finishReason, "stop");
  });

  test("a body that is not a message is an upstream error, not a crash", () => {
    assert.throws(
      () => anthropic.decodeResponse("oops"),
      (e: GatewayError) => e.status === 502,
    );
  });
});
