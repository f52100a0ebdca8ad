import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { collectResponse } from "../../../src/ir/collect.ts";
import type { ToolCallBlock } from "../../../src/ir/request.ts";
import type { StreamEvent } from "../../../src/ir/stream.ts";
import { emptyUsage } from "../../../src/ir/usage.ts";
import { gemini } from "../../../src/protocols/gemini/index.ts";
import { sseFixture } from "./helpers.ts";

function decodeAll(name: string) {
  const decoder = gemini.streamDecoder();
  const perChunk = sseFixture(name).map((event) => decoder.decode(event));
  return { perChunk, events: [...perChunk.flat(), ...decoder.end()] };
}

describe("streamDecoder (recorded upstream streams)", () => {
  test("text arrives chunk by chunk; the closing empty part's signature is kept", () => {
    const { perChunk, events } = decodeAll("stream-text.sse");
    // Each chunk's running usage follows its content (a stream its client leaves is priced on it).
    const running = (candidates: number) => ({
      type: "usage",
      usage: { ...emptyUsage(), promptTokens: 15, completionTokens: candidates + 52, reasoningTokens: 52 },
    });
    assert.deepEqual(perChunk[0], [
      { type: "start", id: "vQRpaqzAPN2M9MoPxPq2uQ4", model: "gemini-3-flash-preview" },
      { type: "block_start", index: 0, block: { type: "text" } },
      { type: "block_delta", index: 0, delta: { type: "text", text: "The capital of France" } },
      running(4),
    ]);
    assert.deepEqual(perChunk[1], [
      { type: "block_delta", index: 0, delta: { type: "text", text: " is Paris." } },
      running(7),
    ]);
    const last = perChunk[2];
    assert.equal(last[0].type, "block_stop");
    assert.deepEqual(
      last.slice(1, 4).map((event) => event.type),
      ["block_start", "block_delta", "block_stop"],
    );
    assert.deepEqual(last.at(-1), { type: "finish", reason: "stop" });
    const response = collectResponse(events);
    assert.equal(response.content.length, 2);
    assert.deepEqual(response.content[0], { type: "text", text: "The capital of France is Paris." });
    assert.equal(response.content[1].type, "thinking");
    assert.match((response.content[1] as { signature: string }).signature, /^EpcCCpQC/);
    assert.equal(response.usage.completionTokens, 7 + 52);
  });

  test("thought chunks continue one thinking block; answer text never lands in reasoning", () => {
    const { events } = decodeAll("stream-thinking.sse");
    const response = collectResponse(events);
    assert.deepEqual(
      response.content.map((block) => block.type),
      ["thinking", "thinking", "text"],
    );
    assert.equal(
      (response.content[0] as { text: string }).text,
      "**Considering the question**\n\nThe user asks for a prime between 10 and 15. 11 and 13 both qualify; I'll name both.",
    );
    assert.equal((response.content[1] as { text: string }).text, "");
    assert.match((response.content[1] as { signature: string }).signature, /^CqkCAVSo/);
    assert.equal(
      (response.content[2] as { text: string }).text,
      "11 and 13 are the primes between 10 and 15.",
    );
    assert.equal(response.usage.reasoningTokens, 161);
    const thinkingText = events
      .filter((event): event is Extract<StreamEvent, { type: "block_delta" }> => event.type === "block_delta")
      .filter((event) => event.delta.type === "thinking")
      .map((event) => (event.delta as { text: string }).text)
      .join("");
    assert.ok(!thinkingText.includes("are the primes"));
  });

  test("each functionCall part is a whole tool call at once, signature kept; STOP → tool_calls", () => {
    const { perChunk, events } = decodeAll("stream-function-call.sse");
    const first = perChunk[0].filter((event) => event.type !== "start" && event.type !== "usage");
    assert.equal(first.length, 3);
    assert.equal(first[0].type, "block_start");
    assert.deepEqual(first[1], {
      type: "block_delta",
      index: 0,
      delta: { type: "tool_arguments", json: '{"city":"Boston","unit":"celsius"}' },
    });
    assert.deepEqual(first[2], { type: "block_stop", index: 0 });
    const response = collectResponse(events);
    const calls = response.content as ToolCallBlock[];
    assert.deepEqual(
      calls.map((call) => call.name),
      ["get_weather", "get_time"],
    );
    assert.match(calls[0].signature ?? "", /^CiQBVKhc/);
    assert.equal(calls[1].signature, undefined);
    assert.equal(response.finishReason, "tool_calls");
    assert.equal(response.usage.promptTokens, 61);
    assert.equal(response.usage.completionTokens, 30 + 63);
  });

  test("streamed function-call arguments (partialArgs / willContinue) are assembled", () => {
    const { events } = decodeAll("stream-partial-args.sse");
    const response = collectResponse(events);
    const calls = response.content as ToolCallBlock[];
    assert.equal(calls.length, 2);
    assert.deepEqual(JSON.parse(calls[0].arguments), {
      location: "Boston",
      days: 3,
      detail: { hourly: true },
    });
    assert.deepEqual(JSON.parse(calls[1].arguments), { location: "San Francisco" });
    assert.match(calls[0].signature ?? "", /^CiMBjz1r/);
    assert.notEqual(calls[0].id, calls[1].id);
    assert.equal(response.finishReason, "tool_calls");
    assert.equal(response.usage.reasoningTokens, 132);
  });

  test("a named functionCall closes a streamed call left open", () => {
    const decoder = gemini.streamDecoder();
    const chunk = (part: unknown, finishReason?: string) => ({
      data: JSON.stringify({
        candidates: [{ content: { parts: [part] }, ...(finishReason && { finishReason }) }],
      }),
    });
    const events = [
      ...decoder.decode(chunk({ functionCall: { name: "a", willContinue: true } })),
      ...decoder.decode(
        chunk({
          functionCall: { partialArgs: [{ jsonPath: "$.x[1]", numberValue: 2 }], willContinue: true },
        }),
      ),
      ...decoder.decode(chunk({ functionCall: { name: "b", args: { y: true } } }, "STOP")),
    ];
    const calls = collectResponse(events).content as ToolCallBlock[];
    assert.deepEqual(
      calls.map((call) => [call.name, JSON.parse(call.arguments)]),
      [
        ["a", { x: [null, 2] }],
        ["b", { y: true }],
      ],
    );
  });

  test("an error chunk becomes an error event; nothing after it", () => {
    const decoder = gemini.streamDecoder();
    const [first, second] = sseFixture("stream-error.sse");
    assert.ok(decoder.decode(first).some((event) => event.type === "block_delta"));
    const events = decoder.decode(second);
    assert.deepEqual(events[0], { type: "block_stop", index: 0 });
    const error = events[1];
    assert.equal(error.type, "error");
    assert.ok(error.type === "error");
    assert.equal(error.error.status, 503);
    assert.equal(error.error.kind, "overloaded");
    assert.equal(error.error.message, "The model is overloaded. Please try again later.");
    assert.deepEqual(decoder.end(), []);
  });

  test("a stream that ends without a finishReason ends with an error event", () => {
    const decoder = gemini.streamDecoder();
    decoder.decode(sseFixture("stream-text.sse")[0]);
    const events = decoder.end();
    assert.deepEqual(events[0], { type: "block_stop", index: 0 });
    assert.equal(events[1].type, "error");
  });

  test("a chunk that is not JSON is an error event", () => {
    const decoder = gemini.streamDecoder();
    const events = decoder.decode({ data: "{not json" });
    assert.equal(events.at(-1)?.type, "error");
  });

  test("usage arriving after the finish chunk is emitted again (the last one wins)", () => {
    const decoder = gemini.streamDecoder();
    const finish = decoder.decode({
      data: JSON.stringify({
        candidates: [{ content: { parts: [{ text: "a" }] }, finishReason: "STOP" }],
        usageMetadata: { promptTokenCount: 3 },
      }),
    });
    const late = decoder.decode({
      data: JSON.stringify({ usageMetadata: { promptTokenCount: 3, candidatesTokenCount: 1 } }),
    });
    assert.ok(finish.some((event) => event.type === "usage"));
    assert.equal(late.length, 1);
    assert.ok(late[0].type === "usage" && late[0].usage.completionTokens === 1);
  });
});
