import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { GatewayError } from "../../../src/ir/errors.ts";
import type { StreamEvent } from "../../../src/ir/stream.ts";
import { emptyUsage } from "../../../src/ir/usage.ts";
import { gemini } from "../../../src/protocols/gemini/index.ts";
import { AWKWARD_PIECES } from "../../support/streams.ts";
import { blockEvents, encodeContext, parseSse } from "./helpers.ts";

function run(events: StreamEvent[], request = {}) {
  const encoder = gemini.streamEncoder(encodeContext(request));
  const written = events.map((event) => encoder.encode(event));
  const closing = encoder.end();
  return { written, closing, chunks: parseSse(written.join("") + closing) };
}

const partsOf = (chunk: any) => chunk.candidates?.[0]?.content?.parts;

describe("streamEncoder", () => {
  test("a text chunk's JSON is written as the object's own JSON would be, whatever the text holds", () => {
    const ctx = encodeContext();
    ctx.model = 'vendor/model "ü"';
    const encoder = gemini.streamEncoder(ctx);
    encoder.encode({ type: "block_start", index: 0, block: { type: "text" } });
    for (const text of ["Hel", 'a "quote", a \\ and ü 😀', "\u2028\u0000", ...AWKWARD_PIECES]) {
      const written = encoder.encode({ type: "block_delta", index: 0, delta: { type: "text", text } });
      const object = {
        candidates: [{ content: { parts: [{ text }], role: "model" }, index: 0 }],
        modelVersion: ctx.model,
        createTime: "2025-06-15T15:06:40.000Z",
        responseId: ctx.id,
      };
      assert.equal(written, `data: ${JSON.stringify(object)}\n\n`);
    }
  });

  test("the last chunk's JSON, usage and all, is written as the object's own JSON would be", () => {
    const ctx = encodeContext();
    const encoder = gemini.streamEncoder(ctx);
    encoder.encode({ type: "block_start", index: 0, block: { type: "text" } });
    encoder.encode({ type: "block_delta", index: 0, delta: { type: "text", text: "Hi" } });
    encoder.encode({ type: "block_stop", index: 0 });
    encoder.encode({ type: "finish", reason: "stop" });
    encoder.encode({ type: "usage", usage: { ...emptyUsage(), promptTokens: 3, completionTokens: 2 } });
    const object = {
      candidates: [{ content: { parts: [{ text: "" }], role: "model" }, index: 0, finishReason: "STOP" }],
      usageMetadata: { promptTokenCount: 3, candidatesTokenCount: 2, totalTokenCount: 5 },
      modelVersion: ctx.model,
      createTime: "2025-06-15T15:06:40.000Z",
      responseId: ctx.id,
    };
    assert.equal(encoder.end(), `data: ${JSON.stringify(object)}\n\n`);
  });

  test("each stream states its own request's second as createTime, streams of other seconds between", () => {
    const firstChunk = (created: number) => {
      const encoder = gemini.streamEncoder({ ...encodeContext(), created });
      encoder.encode({ type: "block_start", index: 0, block: { type: "text" } });
      return parseSse(
        encoder.encode({ type: "block_delta", index: 0, delta: { type: "text", text: "a" } }),
      )[0];
    };
    for (const [created, time] of [
      [1735689600, "2025-01-01T00:00:00.000Z"],
      [1735689601, "2025-01-01T00:00:01.000Z"],
      [1735689600, "2025-01-01T00:00:00.000Z"],
    ] as const)
      assert.equal(firstChunk(created).createTime, time);
  });

  test("each text delta is written at once, as its own chunk", () => {
    const encoder = gemini.streamEncoder(encodeContext());
    assert.equal(encoder.encode({ type: "start" }), "");
    assert.equal(encoder.encode({ type: "block_start", index: 0, block: { type: "text" } }), "");
    const first = encoder.encode({ type: "block_delta", index: 0, delta: { type: "text", text: "Hel" } });
    assert.ok(first.startsWith("data: {") && first.endsWith("}\n\n"));
    assert.deepEqual(JSON.parse(first.slice(6)), {
      candidates: [{ content: { parts: [{ text: "Hel" }], role: "model" }, index: 0 }],
      modelVersion: "google/gemini-2.5-flash",
      createTime: "2025-06-15T15:06:40.000Z",
      responseId: "gen-01TESTID",
    });
    assert.equal(encoder.encode({ type: "block_delta", index: 0, delta: { type: "text", text: "" } }), "");
  });

  test("the last chunk carries finishReason and usage, whatever their order", () => {
    const usage = { ...emptyUsage(), promptTokens: 7, completionTokens: 3 };
    for (const order of [
      [
        { type: "usage", usage },
        { type: "finish", reason: "length" },
      ],
      [
        { type: "finish", reason: "length" },
        { type: "usage", usage },
      ],
    ] as StreamEvent[][]) {
      const { chunks, closing } = run([
        ...blockEvents(0, { type: "text" }, { type: "text", text: "a" }),
        ...order,
      ]);
      assert.notEqual(closing, "");
      assert.equal(chunks.length, 2);
      assert.equal(chunks[0].usageMetadata, undefined);
      assert.deepEqual(chunks[1].candidates, [
        { content: { parts: [{ text: "" }], role: "model" }, finishReason: "MAX_TOKENS", index: 0 },
      ]);
      assert.deepEqual(chunks[1].usageMetadata, {
        promptTokenCount: 7,
        candidatesTokenCount: 3,
        totalTokenCount: 10,
      });
    }
  });

  test("a tool call goes out whole at block_stop, arguments parsed", () => {
    const { written, chunks } = run([
      ...blockEvents(
        0,
        { type: "tool_call", id: "c1", name: "lookup" },
        { type: "tool_arguments", json: '{"q":' },
        { type: "tool_arguments", json: '"x"}' },
      ),
      { type: "finish", reason: "tool_calls" },
    ]);
    assert.deepEqual(written.slice(0, 3), ["", "", ""]);
    assert.deepEqual(partsOf(chunks[0]), [{ functionCall: { id: "c1", name: "lookup", args: { q: "x" } } }]);
    assert.equal(chunks[1].candidates[0].finishReason, "STOP");
  });

  test("a tool call's streamed signature delta is kept", () => {
    const { chunks } = run([
      ...blockEvents(
        0,
        { type: "tool_call", id: "c1", name: "f" },
        { type: "signature", signature: "AB" },
        { type: "signature", signature: "CD" },
      ),
    ]);
    assert.equal(partsOf(chunks[0])[0].thoughtSignature, "ABCD");
  });

  test("thoughts are hidden by default; their signature rides on the next text part", () => {
    const { chunks } = run([
      ...blockEvents(
        0,
        { type: "thinking" },
        { type: "thinking", text: "secret" },
        { type: "signature", signature: "SIG" },
      ),
      ...blockEvents(1, { type: "text" }, { type: "text", text: "Hi" }, { type: "text", text: "!" }),
      { type: "finish", reason: "stop" },
    ]);
    assert.deepEqual(chunks.map(partsOf), [
      [{ text: "Hi", thoughtSignature: "SIG" }],
      [{ text: "!" }],
      [{ text: "" }],
    ]);
  });

  test("a waiting signature goes out alone before a tool call, and at the end when nothing follows", () => {
    const before = run([
      ...blockEvents(0, { type: "thinking" }, { type: "signature", signature: "S1" }),
      ...blockEvents(
        1,
        { type: "tool_call", id: "c", name: "f", signature: "S2" },
        { type: "tool_arguments", json: "{}" },
      ),
    ]);
    assert.deepEqual(before.chunks.map(partsOf), [
      [{ text: "", thoughtSignature: "S1" }],
      [{ functionCall: { id: "c", name: "f", args: {} }, thoughtSignature: "S2" }],
    ]);
    const atEnd = run([
      ...blockEvents(0, { type: "text" }, { type: "text", text: "x" }),
      ...blockEvents(1, { type: "thinking" }, { type: "signature", signature: "S3" }),
      { type: "finish", reason: "stop" },
    ]);
    assert.deepEqual(atEnd.chunks.at(-1).candidates[0], {
      content: { parts: [{ text: "", thoughtSignature: "S3" }], role: "model" },
      finishReason: "STOP",
      index: 0,
    });
  });

  test("shown thoughts stream as thought parts, the signature as an empty thought part at the end", () => {
    const { chunks } = run(
      [
        ...blockEvents(
          0,
          { type: "thinking" },
          { type: "thinking", text: "a" },
          { type: "thinking", text: "b" },
          { type: "signature", signature: "S" },
        ),
      ],
      { reasoning: { exclude: false } },
    );
    assert.deepEqual(chunks.map(partsOf).slice(0, 3), [
      [{ text: "a", thought: true }],
      [{ text: "b", thought: true }],
      [{ text: "", thought: true, thoughtSignature: "S" }],
    ]);
  });

  test("end() writes nothing when nothing is pending", () => {
    const encoder = gemini.streamEncoder(encodeContext());
    encoder.encode({ type: "block_start", index: 0, block: { type: "text" } });
    encoder.encode({ type: "block_stop", index: 0 });
    assert.equal(encoder.end(), "");
  });

  test("redacted thinking writes nothing", () => {
    const { chunks } = run([
      ...blockEvents(0, { type: "redacted_thinking", data: "xx" }),
      { type: "finish", reason: "stop" },
    ]);
    assert.equal(chunks.length, 1);
  });

  test("an error event is the last chunk: the error object, nothing after it", () => {
    const encoder = gemini.streamEncoder(encodeContext());
    const text = encoder.encode({ type: "error", error: new GatewayError("rate_limit", "slow down") });
    assert.deepEqual(parseSse(text), [
      { error: { code: 429, message: "slow down", status: "RESOURCE_EXHAUSTED" } },
    ]);
    assert.equal(encoder.encode({ type: "finish", reason: "stop" }), "");
    assert.equal(encoder.end(), "");
  });
});
