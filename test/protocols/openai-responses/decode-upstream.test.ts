// The upstream face reading OpenAI's Responses API: streams and whole answers, from fixtures in the
// shapes OpenAI sends (test/fixtures/openai-responses/README.md).

import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { collectResponse } from "../../../src/ir/collect.ts";
import { openaiResponses } from "../../../src/protocols/openai-responses/index.ts";
import { relays } from "../../../src/protocols/relays.ts";
import { decodeSse, fixtureJson, fixtureText } from "./helpers.ts";

describe("streams", () => {
  test("text: start with the upstream's id and model, one text block in pieces, usage, stop", () => {
    const events = decodeSse(fixtureText("text.sse"));
    assert.deepEqual(events, [
      { type: "start", id: "resp_68a1f0c2d4e88190a6b3b2f1c9d0e7a1", model: "gpt-4.1-2025-04-14" },
      { type: "block_start", index: 0, block: { type: "text" } },
      { type: "block_delta", index: 0, delta: { type: "text", text: "Hello" } },
      { type: "block_delta", index: 0, delta: { type: "text", text: " there" } },
      { type: "block_delta", index: 0, delta: { type: "text", text: "!" } },
      { type: "block_stop", index: 0 },
      {
        type: "usage",
        usage: {
          promptTokens: 12,
          cacheReadTokens: 0,
          cacheWrite5mTokens: 0,
          cacheWrite1hTokens: 0,
          completionTokens: 4,
          reasoningTokens: 0,
          webSearchRequests: 0,
        },
      },
      { type: "finish", reason: "stop" },
    ]);
  });

  test("reasoning then a call: the summary is the thinking, encrypted_content its signature", () => {
    const response = collectResponse(decodeSse(fixtureText("reasoning-function-call.sse")));
    assert.deepEqual(response.content, [
      {
        type: "thinking",
        text: "**Checking the weather**\n\nThe user asks about Paris; I'll call get_weather.",
        signature: "gAAAAABoqR7xZ2V0X3dlYXRoZXItZW5jcnlwdGVkLXJlYXNvbmluZy1ieXRlcw==",
      },
      {
        type: "tool_call",
        id: "call_Qx7LmN2pR4sT6uV8wY0zA1bC",
        name: "get_weather",
        arguments: '{"city":"Paris","unit":"celsius"}',
      },
    ]);
    assert.equal(response.finishReason, "tool_calls");
    // input_tokens includes the cached ones; output_tokens includes reasoning: the IR's own meaning.
    assert.equal(response.usage.promptTokens, 320);
    assert.equal(response.usage.cacheReadTokens, 256);
    assert.equal(response.usage.completionTokens, 180);
    assert.equal(response.usage.reasoningTokens, 128);
  });

  test("the whole answer decodes to the same response as the stream", () => {
    const whole = openaiResponses.decodeResponse(fixtureJson("reasoning-function-call.json"));
    const streamed = collectResponse(decodeSse(fixtureText("reasoning-function-call.sse")));
    assert.deepEqual(whole.content, streamed.content);
    assert.deepEqual(whole.usage, streamed.usage);
    assert.equal(whole.finishReason, streamed.finishReason);
  });

  test("response.failed mid-stream is an error after the text that came first", () => {
    const events = decodeSse(fixtureText("failed-midstream.sse"));
    const error = events.at(-1);
    assert.equal(error?.type, "error");
    assert.equal(
      error?.type === "error" && error.error.message,
      "The server had an error processing your request.",
    );
    assert.equal(events.filter((e) => e.type === "error").length, 1, "end() adds nothing after the failure");
    assert.ok(
      events.some((e) => e.type === "block_delta" && e.delta.type === "text" && e.delta.text === "Partial"),
    );
  });

  test("a stream cut before response.completed ends with an error", () => {
    const text = fixtureText("text.sse");
    const cut = text.slice(0, text.indexOf("event: response.completed"));
    const events = decodeSse(cut);
    assert.equal(events.at(-1)?.type, "error");
  });

  test("an `error` event and a frame that is not JSON are errors", () => {
    const decoder = openaiResponses.streamDecoder();
    const [error] = decoder.decode({
      event: "error",
      data: '{"type":"error","sequence_number":3,"code":"rate_limit_exceeded","message":"Slow down","param":null}',
    });
    assert.equal(error.type === "error" && error.error.status, 429);
    const other = openaiResponses.streamDecoder();
    assert.equal(other.decode({ data: "{not json" })[0].type, "error");
  });

  test("reasoning nobody summarised still carries its signature; a part with no text opens no block", () => {
    const decoder = openaiResponses.streamDecoder();
    const events = [
      { type: "response.created", response: { id: "r", model: "o3" } },
      {
        type: "response.output_item.added",
        output_index: 0,
        item: { id: "rs", type: "reasoning", summary: [] },
      },
      {
        type: "response.output_item.done",
        output_index: 0,
        item: { id: "rs", type: "reasoning", summary: [], encrypted_content: "gAAAA-enc" },
      },
      {
        type: "response.output_item.added",
        output_index: 1,
        item: { id: "m", type: "message", content: [] },
      },
      {
        type: "response.content_part.added",
        output_index: 1,
        content_index: 0,
        part: { type: "output_text", text: "" },
      },
      {
        type: "response.content_part.done",
        output_index: 1,
        content_index: 0,
        part: { type: "output_text", text: "" },
      },
      { type: "response.output_item.done", output_index: 1, item: { id: "m", type: "message", content: [] } },
      { type: "response.completed", response: { status: "completed", usage: {} } },
    ].flatMap((e) => decoder.decode({ data: JSON.stringify(e) }));
    assert.deepEqual(collectResponse(events).content, [
      { type: "thinking", text: "", signature: "gAAAA-enc" },
    ]);
  });
});

describe("whole answers", () => {
  test("incomplete by max_output_tokens is length", () => {
    const response = openaiResponses.decodeResponse(fixtureJson("incomplete.json"));
    assert.equal(response.finishReason, "length");
    assert.deepEqual(response.content, [{ type: "text", text: "One two" }]);
  });

  test("the relay's tap reads the same usage and finish as the full decoder", () => {
    for (const name of ["reasoning-function-call.json", "incomplete.json"]) {
      const text = fixtureText(name);
      const full = openaiResponses.decodeResponse(JSON.parse(text));
      const tapped = relays["openai-responses"].tap(text);
      assert.deepEqual(tapped.usage, full.usage);
      assert.equal(tapped.finishReason, full.finishReason);
    }
    assert.throws(() => relays["openai-responses"].tap("<html>"), SyntaxError);
  });
});
