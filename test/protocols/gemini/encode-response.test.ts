import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { FinishReason, Response } from "../../../src/ir/response.ts";
import { emptyUsage } from "../../../src/ir/usage.ts";
import { gemini } from "../../../src/protocols/gemini/index.ts";
import { encodeContext } from "./helpers.ts";

function response(overrides: Partial<Response> = {}): Response {
  return {
    id: "up",
    model: "up-model",
    content: [{ type: "text", text: "Hello." }],
    finishReason: "stop",
    usage: { ...emptyUsage(), promptTokens: 10, completionTokens: 5 },
    ...overrides,
  };
}

describe("encodeResponse", () => {
  test("the whole GenerateContentResponse shape", () => {
    assert.deepEqual(gemini.encodeResponse(response(), encodeContext()), {
      candidates: [
        { content: { parts: [{ text: "Hello." }], role: "model" }, finishReason: "STOP", index: 0 },
      ],
      usageMetadata: { promptTokenCount: 10, candidatesTokenCount: 5, totalTokenCount: 15 },
      modelVersion: "google/gemini-2.5-flash",
      createTime: "2025-06-15T15:06:40.000Z",
      responseId: "gen-01TESTID",
    });
  });

  test("usage: thoughts reported outside candidates, cached inside prompt", () => {
    const usage = {
      ...emptyUsage(),
      promptTokens: 1000,
      cacheReadTokens: 800,
      completionTokens: 300,
      reasoningTokens: 250,
    };
    const body = gemini.encodeResponse(response({ usage }), encodeContext()) as any;
    assert.deepEqual(body.usageMetadata, {
      promptTokenCount: 1000,
      candidatesTokenCount: 50,
      totalTokenCount: 1300,
      cachedContentTokenCount: 800,
      thoughtsTokenCount: 250,
    });
  });

  test("finish reasons", () => {
    const expected: Record<FinishReason, string> = {
      stop: "STOP",
      stop_sequence: "STOP",
      tool_calls: "STOP",
      length: "MAX_TOKENS",
      content_filter: "SAFETY",
      refusal: "SAFETY",
      pause: "OTHER",
      error: "OTHER",
      other: "OTHER",
    };
    for (const [reason, value] of Object.entries(expected)) {
      const body = gemini.encodeResponse(
        response({ finishReason: reason as FinishReason }),
        encodeContext(),
      ) as any;
      assert.equal(body.candidates[0].finishReason, value, reason);
    }
  });

  test("no output → a content without parts, as Gemini sends for a blocked answer", () => {
    const body = gemini.encodeResponse(
      response({ content: [], finishReason: "content_filter" }),
      encodeContext(),
    ) as any;
    assert.deepEqual(body.candidates[0], { content: { role: "model" }, finishReason: "SAFETY", index: 0 });
  });

  test("tool calls carry parsed args, id and signature; unparsable args become {}", () => {
    const body = gemini.encodeResponse(
      response({
        content: [
          { type: "tool_call", id: "c1", name: "f", arguments: '{"a":[1,2]}', signature: "S1" },
          { type: "tool_call", id: "c2", name: "g", arguments: "" },
          { type: "tool_call", id: "c3", name: "h", arguments: "{broken" },
        ],
        finishReason: "tool_calls",
      }),
      encodeContext(),
    ) as any;
    assert.deepEqual(body.candidates[0].content.parts, [
      { functionCall: { id: "c1", name: "f", args: { a: [1, 2] } }, thoughtSignature: "S1" },
      { functionCall: { id: "c2", name: "g", args: {} } },
      { functionCall: { id: "c3", name: "h", args: {} } },
    ]);
  });

  test("signatures: shown thought keeps its own; empty signed thinking rides on the next text or stands alone", () => {
    const content: Response["content"] = [
      { type: "thinking", text: "plan", signature: "S-THOUGHT" },
      { type: "thinking", text: "", signature: "S-TEXT" },
      { type: "text", text: "Answer" },
      { type: "redacted_thinking", data: "opaque" },
      { type: "thinking", text: "", signature: "S-END" },
    ];
    const shown = gemini.encodeResponse(
      response({ content }),
      encodeContext({ reasoning: { exclude: false } }),
    ) as any;
    assert.deepEqual(shown.candidates[0].content.parts, [
      { text: "plan", thought: true, thoughtSignature: "S-THOUGHT" },
      { text: "Answer", thoughtSignature: "S-TEXT" },
      { text: "", thoughtSignature: "S-END" },
    ]);
    const hidden = gemini.encodeResponse(
      response({ content }),
      encodeContext({ reasoning: { exclude: true } }),
    ) as any;
    assert.deepEqual(hidden.candidates[0].content.parts, [
      { text: "", thoughtSignature: "S-THOUGHT" },
      { text: "Answer", thoughtSignature: "S-TEXT" },
      { text: "", thoughtSignature: "S-END" },
    ]);
  });

  test("empty text blocks are never sent", () => {
    const body = gemini.encodeResponse(
      response({
        content: [
          { type: "text", text: "" },
          { type: "text", text: "x" },
        ],
      }),
      encodeContext(),
    ) as any;
    assert.deepEqual(body.candidates[0].content.parts, [{ text: "x" }]);
  });
});
