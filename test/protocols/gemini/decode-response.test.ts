import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { GatewayError } from "../../../src/ir/errors.ts";
import type { ToolCallBlock } from "../../../src/ir/request.ts";
import { gemini } from "../../../src/protocols/gemini/index.ts";
import { fixture } from "./helpers.ts";

describe("decodeResponse (recorded upstream answers)", () => {
  test("text", () => {
    const response = gemini.decodeResponse(fixture("text.json"));
    assert.equal(response.id, "Y5ZEaM2xAqTl7M8P4-6ImQs");
    assert.equal(response.model, "gemini-2.0-flash");
    assert.deepEqual(response.content, [
      { type: "text", text: "AI learns patterns from examples instead of following hand-written rules." },
    ]);
    assert.equal(response.finishReason, "stop");
    assert.equal(response.usage.promptTokens, 8);
    assert.equal(response.usage.completionTokens, 13);
    assert.equal(response.usage.reasoningTokens, 0);
  });

  test("thought part → thinking; the signed answer part → signature block + text", () => {
    const body = fixture("thinking.json");
    const response = gemini.decodeResponse(body);
    const [thought, answer] = body.candidates[0].content.parts;
    assert.deepEqual(response.content, [
      { type: "thinking", text: thought.text },
      { type: "thinking", text: "", signature: answer.thoughtSignature },
      { type: "text", text: answer.text },
    ]);
    assert.equal(response.usage.completionTokens, 11 + 222);
    assert.equal(response.usage.reasoningTokens, 222);
  });

  test("functionCall with a thoughtSignature: id made, signature kept, finishes as tool_calls", () => {
    const body = fixture("function-call-signature.json");
    const response = gemini.decodeResponse(body);
    assert.equal(response.content.length, 1);
    const call = response.content[0] as ToolCallBlock;
    assert.equal(call.type, "tool_call");
    assert.match(call.id, /^call_[A-Za-z0-9_-]+$/);
    assert.equal(call.name, "check_flight");
    assert.deepEqual(JSON.parse(call.arguments), { flight: "AA100" });
    assert.equal(call.signature, body.candidates[0].content.parts[0].thoughtSignature);
    assert.equal(response.finishReason, "tool_calls");
  });

  test("two parallel functionCalls: distinct ids, only the first signed", () => {
    const response = gemini.decodeResponse(fixture("parallel-function-calls.json"));
    const calls = response.content as ToolCallBlock[];
    assert.equal(calls.length, 2);
    assert.notEqual(calls[0].id, calls[1].id);
    assert.ok(calls[0].signature && calls[0].signature.length > 0);
    assert.equal(calls[1].signature, undefined);
    assert.deepEqual(
      calls.map((call) => JSON.parse(call.arguments).location),
      ["Paris", "London"],
    );
  });

  test("usage with cached and thought tokens", () => {
    const response = gemini.decodeResponse(fixture("cached-usage.json"));
    assert.deepEqual(response.usage, {
      promptTokens: 41250,
      cacheReadTokens: 40960,
      cacheWrite5mTokens: 0,
      cacheWrite1hTokens: 0,
      completionTokens: 15 + 390,
      reasoningTokens: 390,
      webSearchRequests: 0,
    });
  });

  test("an id Gemini sent is kept", () => {
    const response = gemini.decodeResponse({
      candidates: [
        {
          content: { role: "model", parts: [{ functionCall: { id: "fc_1", name: "f", args: {} } }] },
          finishReason: "STOP",
        },
      ],
    });
    assert.equal((response.content[0] as ToolCallBlock).id, "fc_1");
  });

  test("finish reasons", () => {
    const reason = (finishReason: string) =>
      gemini.decodeResponse({ candidates: [{ content: { parts: [{ text: "x" }] }, finishReason }] })
        .finishReason;
    assert.equal(reason("MAX_TOKENS"), "length");
    assert.equal(reason("SAFETY"), "content_filter");
    assert.equal(reason("RECITATION"), "content_filter");
    assert.equal(reason("PROHIBITED_CONTENT"), "content_filter");
    assert.equal(reason("MALFORMED_FUNCTION_CALL"), "error");
    assert.equal(reason("FINISH_REASON_MAX_TOKENS"), "length");
    assert.equal(reason("OTHER"), "other");
  });

  test("a prompt blocked before generation finishes as content_filter", () => {
    const response = gemini.decodeResponse({
      promptFeedback: { blockReason: "SAFETY", safetyRatings: [] },
      usageMetadata: { promptTokenCount: 9, totalTokenCount: 9 },
    });
    assert.equal(response.finishReason, "content_filter");
    assert.deepEqual(response.content, []);
    assert.equal(response.usage.promptTokens, 9);
  });

  test("an error body is thrown as the upstream error", () => {
    assert.throws(
      () => gemini.decodeResponse(fixture("error-429.json")),
      (error: unknown) => error instanceof GatewayError && error.status === 429 && error.retryAfter === 18,
    );
  });
});
