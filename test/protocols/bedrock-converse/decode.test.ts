// Converse answers, ConverseStream events and Bedrock's errors → the IR. The fixtures follow the
// shapes of AWS's Converse API reference (ConverseResponse, ConverseStreamOutput, TokenUsage) and its
// prompt-caching guide (cache counts beside, not inside, inputTokens).

import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { bedrockConverse } from "../../../src/protocols/bedrock-converse/index.ts";
import { decodeStream } from "./helpers.ts";

const CONVERSE_ANSWER = {
  output: {
    message: {
      role: "assistant",
      content: [
        {
          reasoningContent: {
            reasoningText: { text: "The user wants the weather.", signature: "ErcBCkgIAhABGAIiQM" },
          },
        },
        { text: "I'll check." },
        {
          toolUse: { toolUseId: "tooluse_kZJMlvQmRJ6eAyJE5GIl7Q", name: "top_song", input: { sign: "WZPZ" } },
        },
      ],
    },
  },
  stopReason: "tool_use",
  usage: {
    inputTokens: 24,
    outputTokens: 58,
    totalTokens: 1596,
    cacheReadInputTokens: 1514,
    cacheWriteInputTokens: 0,
  },
  metrics: { latencyMs: 1133 },
};

describe("Converse answer decoding", () => {
  test("reasoning with its signature, text and a tool call; usage counts cache reads inside the prompt", () => {
    const response = bedrockConverse.decodeResponse(CONVERSE_ANSWER);
    assert.deepEqual(response.content, [
      { type: "thinking", text: "The user wants the weather.", signature: "ErcBCkgIAhABGAIiQM" },
      { type: "text", text: "I'll check." },
      {
        type: "tool_call",
        id: "tooluse_kZJMlvQmRJ6eAyJE5GIl7Q",
        name: "top_song",
        arguments: '{"sign":"WZPZ"}',
      },
    ]);
    assert.equal(response.finishReason, "tool_calls");
    assert.equal(response.usage.promptTokens, 24 + 1514);
    assert.equal(response.usage.cacheReadTokens, 1514);
    assert.equal(response.usage.completionTokens, 58);
  });

  test("cache writes split by cacheDetails TTL; redacted reasoning; Claude's stop_sequence", () => {
    const response = bedrockConverse.decodeResponse({
      output: {
        message: {
          role: "assistant",
          content: [{ reasoningContent: { redactedContent: "EmwKAhgB" } }, { text: "ok" }],
        },
      },
      stopReason: "stop_sequence",
      additionalModelResponseFields: { stop_sequence: "END" },
      usage: {
        inputTokens: 5,
        outputTokens: 2,
        totalTokens: 1007,
        cacheReadInputTokens: 0,
        cacheWriteInputTokens: 1000,
        cacheDetails: [
          { ttl: "1h", inputTokens: 600 },
          { ttl: "5m", inputTokens: 400 },
        ],
      },
      metrics: { latencyMs: 10 },
    });
    assert.deepEqual(response.content[0], { type: "redacted_thinking", data: "EmwKAhgB" });
    assert.equal(response.finishReason, "stop_sequence");
    assert.equal(response.stopSequence, "END");
    assert.equal(response.usage.promptTokens, 1005);
    assert.equal(response.usage.cacheWrite1hTokens, 600);
    assert.equal(response.usage.cacheWrite5mTokens, 400);
  });

  test("stop reasons: guardrails and filters are content_filter, a broken tool call is error", () => {
    const reason = (stopReason: string) =>
      bedrockConverse.decodeResponse({ output: { message: { role: "assistant", content: [] } }, stopReason })
        .finishReason;
    assert.equal(reason("end_turn"), "stop");
    assert.equal(reason("max_tokens"), "length");
    assert.equal(reason("guardrail_intervened"), "content_filter");
    assert.equal(reason("content_filtered"), "content_filter");
    assert.equal(reason("malformed_tool_use"), "error");
    assert.equal(reason("model_context_window_exceeded"), "length");
  });

  test("a body that is not a Converse answer is a 502", () => {
    assert.throws(() => bedrockConverse.decodeResponse({ message: "x" }), { status: 502 });
  });
});

describe("ConverseStream decoding", () => {
  test("text opens with its first delta; a tool call with its start; reasoning text and signature; usage last", () => {
    const events = decodeStream([
      ["messageStart", { role: "assistant", p: "abcd" }],
      [
        "contentBlockDelta",
        { contentBlockIndex: 0, delta: { reasoningContent: { text: "Thinking" } }, p: "ab" },
      ],
      ["contentBlockDelta", { contentBlockIndex: 0, delta: { reasoningContent: { signature: "sig==" } } }],
      ["contentBlockStop", { contentBlockIndex: 0 }],
      ["contentBlockDelta", { contentBlockIndex: 1, delta: { text: "Hel" } }],
      ["contentBlockDelta", { contentBlockIndex: 1, delta: { text: "lo" } }],
      ["contentBlockStop", { contentBlockIndex: 1 }],
      [
        "contentBlockStart",
        { contentBlockIndex: 2, start: { toolUse: { toolUseId: "tooluse_1", name: "top_song" } } },
      ],
      ["contentBlockDelta", { contentBlockIndex: 2, delta: { toolUse: { input: '{"sign":' } } }],
      ["contentBlockDelta", { contentBlockIndex: 2, delta: { toolUse: { input: '"WZPZ"}' } } }],
      ["contentBlockStop", { contentBlockIndex: 2 }],
      ["messageStop", { stopReason: "tool_use" }],
      [
        "metadata",
        {
          usage: { inputTokens: 10, outputTokens: 20, totalTokens: 40, cacheReadInputTokens: 10 },
          metrics: { latencyMs: 5 },
        },
      ],
    ]);
    assert.deepEqual(events.slice(0, 4), [
      { type: "start" },
      { type: "block_start", index: 0, block: { type: "thinking" } },
      { type: "block_delta", index: 0, delta: { type: "thinking", text: "Thinking" } },
      { type: "block_delta", index: 0, delta: { type: "signature", signature: "sig==" } },
    ]);
    assert.deepEqual(events.slice(5, 8), [
      { type: "block_start", index: 1, block: { type: "text" } },
      { type: "block_delta", index: 1, delta: { type: "text", text: "Hel" } },
      { type: "block_delta", index: 1, delta: { type: "text", text: "lo" } },
    ]);
    assert.deepEqual(events[9], {
      type: "block_start",
      index: 2,
      block: { type: "tool_call", id: "tooluse_1", name: "top_song" },
    });
    const args = events.flatMap((e) =>
      e.type === "block_delta" && e.delta.type === "tool_arguments" ? [e.delta.json] : [],
    );
    assert.equal(args.join(""), '{"sign":"WZPZ"}');
    assert.deepEqual(events.at(-2), { type: "finish", reason: "tool_calls" });
    const last = events.at(-1);
    assert.equal(last?.type, "usage");
    if (last?.type === "usage") {
      assert.equal(last.usage.promptTokens, 20);
      assert.equal(last.usage.cacheReadTokens, 10);
      assert.equal(last.usage.completionTokens, 20);
    }
  });

  test("a mid-stream modelStreamErrorException ends the stream as an error; throttling is a 429", () => {
    const events = decodeStream([
      ["messageStart", { role: "assistant" }],
      ["contentBlockDelta", { contentBlockIndex: 0, delta: { text: "Hi" } }],
      [
        "modelStreamErrorException",
        { message: "The model failed.", originalStatusCode: 500, originalMessage: "boom" },
      ],
    ]);
    const error = events.at(-1);
    assert.equal(error?.type, "error");
    if (error?.type === "error") {
      assert.equal(error.error.status, 502);
      assert.match(error.error.message, /The model failed.: boom/);
    }
    const throttled = decodeStream([["throttlingException", { message: "Too many tokens" }]]);
    assert.equal(throttled[0].type, "error");
    if (throttled[0].type === "error") assert.equal(throttled[0].error.status, 429);
  });

  test("a stream cut before messageStop is a 502; after it (metadata missing) it is complete", () => {
    const cut = decodeStream([
      ["messageStart", { role: "assistant" }],
      ["contentBlockDelta", { contentBlockIndex: 0, delta: { text: "Hi" } }],
    ]);
    assert.equal(cut.at(-1)?.type, "error");
    const done = decodeStream([
      ["messageStart", { role: "assistant" }],
      ["messageStop", { stopReason: "end_turn" }],
    ]);
    assert.deepEqual(done, [{ type: "start" }, { type: "finish", reason: "stop" }]);
  });

  test("redacted reasoning arrives whole as its block's start", () => {
    const events = decodeStream([
      [
        "contentBlockDelta",
        { contentBlockIndex: 0, delta: { reasoningContent: { redactedContent: "EmwK" } } },
      ],
      ["contentBlockStop", { contentBlockIndex: 0 }],
      ["messageStop", { stopReason: "end_turn" }],
    ]);
    assert.deepEqual(events.slice(0, 2), [
      { type: "block_start", index: 0, block: { type: "redacted_thinking", data: "EmwK" } },
      { type: "block_stop", index: 0 },
    ]);
  });
});

describe("Bedrock errors", () => {
  const headers = (name: string) => ({
    "x-amzn-errortype": `${name}:http://internal.amazon.com/coral/com.amazon.bedrock/`,
  });

  test("the exception named in x-amzn-errortype decides kind and status", () => {
    const cases: Array<[number, string, string, number]> = [
      [429, "ThrottlingException", "rate_limit", 429],
      [503, "ServiceUnavailableException", "overloaded", 503],
      [429, "ModelNotReadyException", "overloaded", 429],
      [500, "InternalServerException", "api_error", 500],
      [400, "ServiceQuotaExceededException", "rate_limit", 429],
      [424, "ModelErrorException", "api_error", 502],
      [400, "ValidationException", "invalid_request", 400],
      [403, "AccessDeniedException", "permission", 403],
      [404, "ResourceNotFoundException", "not_found", 404],
    ];
    for (const [status, name, kind, expected] of cases) {
      const error = bedrockConverse.decodeError(status, { message: `${name} happened` }, headers(name));
      assert.equal(error.kind, kind, name);
      assert.equal(error.status, expected, name);
      assert.equal(error.message, `${name} happened`);
    }
  });

  test("the authentication layer's __type and Message are read too; retry-after is kept", () => {
    const error = bedrockConverse.decodeError(
      403,
      {
        __type: "com.amazon.coral.service#UnrecognizedClientException",
        Message: "The security token included in the request is invalid.",
      },
      { "retry-after": "3" },
    );
    assert.equal(error.kind, "authentication");
    assert.equal(error.message, "The security token included in the request is invalid.");
    assert.equal(error.retryAfter, 3);
  });
});
