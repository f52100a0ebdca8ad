import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { GatewayError } from "../../../src/ir/errors.ts";
import type { StreamEvent } from "../../../src/ir/stream.ts";
import { unpackToolCallId } from "../../../src/ir/tool-call-id.ts";
import { emptyUsage } from "../../../src/ir/usage.ts";
import { openaiChat } from "../../../src/protocols/openai-chat/index.ts";
import { dataPayloads, encodeContext } from "./helpers.ts";

type Chunk = {
  id: string;
  object: string;
  created: number;
  model: string;
  choices: Array<{ index: number; delta: Record<string, any>; finish_reason: string | null; logprobs: null }>;
  usage?: Record<string, unknown>;
  error?: Record<string, unknown>;
};

const usage = {
  ...emptyUsage(),
  promptTokens: 20,
  cacheReadTokens: 8,
  completionTokens: 5,
  reasoningTokens: 2,
};

function encodeAll(events: StreamEvent[], request = {}): { pieces: string[]; text: string } {
  const encoder = openaiChat.streamEncoder(encodeContext(request));
  const pieces = events.map((e) => encoder.encode(e));
  pieces.push(encoder.end());
  return { pieces, text: pieces.join("") };
}

function chunks(text: string): Chunk[] {
  return dataPayloads(text).filter((p): p is Chunk => p !== "[DONE]");
}

function deltas(text: string): Array<Record<string, any>> {
  return chunks(text).flatMap((c) => c.choices.map((choice) => choice.delta));
}

const textEvents: StreamEvent[] = [
  { type: "start", id: "upstream", model: "gpt-4.1" },
  { type: "block_start", index: 0, block: { type: "text" } },
  { type: "block_delta", index: 0, delta: { type: "text", text: "Hel" } },
  { type: "block_delta", index: 0, delta: { type: "text", text: "lo" } },
  { type: "block_stop", index: 0 },
  { type: "finish", reason: "stop" },
  { type: "usage", usage },
];

describe("streamEncoder", () => {
  test("text: opening role delta, content pieces, finish, usage chunk with choices [], [DONE]", () => {
    const { text } = encodeAll(textEvents, { streamUsage: true });
    const payloads = dataPayloads(text);
    assert.equal(payloads.at(-1), "[DONE]");
    assert.ok(text.endsWith("data: [DONE]\n\n"));
    const list = chunks(text);
    for (const chunk of list) {
      assert.equal(chunk.id, "gen-01TEST");
      assert.equal(chunk.object, "chat.completion.chunk");
      assert.equal(chunk.created, 1750000000);
      assert.equal(chunk.model, "openai/gpt-4.1");
    }
    assert.deepEqual(list[0].choices, [
      {
        index: 0,
        delta: { role: "assistant", content: "", refusal: null },
        logprobs: null,
        finish_reason: null,
      },
    ]);
    assert.deepEqual(list[1].choices[0].delta, { content: "Hel" });
    assert.deepEqual(list[2].choices[0].delta, { content: "lo" });
    assert.deepEqual(list[3].choices[0], { index: 0, delta: {}, logprobs: null, finish_reason: "stop" });
    assert.deepEqual(list[4].choices, []);
    assert.deepEqual(list[4].usage, {
      prompt_tokens: 20,
      completion_tokens: 5,
      total_tokens: 25,
      prompt_tokens_details: { cached_tokens: 8 },
      completion_tokens_details: { reasoning_tokens: 2 },
    });
    assert.equal(list.length, 5);
  });

  test("usage is withheld unless the client asked for it", () => {
    const { text } = encodeAll(textEvents, { streamUsage: false });
    assert.ok(chunks(text).every((c) => c.usage === undefined));
  });

  test("the last usage report wins (usage may come before the finish and again after)", () => {
    const early = { ...usage, completionTokens: 1 };
    const { text } = encodeAll(
      [
        { type: "start" },
        { type: "usage", usage: early },
        { type: "finish", reason: "stop" },
        { type: "usage", usage },
      ],
      { streamUsage: true },
    );
    const reports = chunks(text).filter((c) => c.usage);
    assert.equal(reports.length, 1);
    assert.equal(reports[0].usage?.completion_tokens, 5);
  });

  test("the role-only opening delta is sent even before any content (trap: bifrost#6523)", () => {
    const encoder = openaiChat.streamEncoder(encodeContext());
    const first = chunks(encoder.encode({ type: "start" }));
    assert.equal(first.length, 1);
    assert.deepEqual(first[0].choices[0].delta, { role: "assistant", content: "", refusal: null });
    // …and only once.
    assert.equal(encoder.encode({ type: "start" }), "");
  });

  test("without a start event the opening delta still comes first", () => {
    const { text } = encodeAll([
      { type: "block_start", index: 0, block: { type: "text" } },
      { type: "block_delta", index: 0, delta: { type: "text", text: "x" } },
      { type: "finish", reason: "stop" },
    ]);
    assert.equal(deltas(text)[0].role, "assistant");
    assert.equal(deltas(text).filter((d) => d.role).length, 1);
  });

  test("each piece is written when its event arrives, nothing held back (trap: bifrost#2786)", () => {
    const encoder = openaiChat.streamEncoder(encodeContext());
    encoder.encode({ type: "start" });
    encoder.encode({ type: "block_start", index: 0, block: { type: "tool_call", id: "call_1", name: "f" } });
    for (const piece of ['{"a"', ":", "1}"]) {
      const out = chunks(
        encoder.encode({ type: "block_delta", index: 0, delta: { type: "tool_arguments", json: piece } }),
      );
      assert.equal(out.length, 1);
      assert.equal(out[0].choices[0].delta.tool_calls[0].function.arguments, piece);
    }
  });

  test("tool calls: id/type/name once, then argument pieces only; no empty piece; no-argument call ends as {} (trap: bifrost#3443)", () => {
    const { text } = encodeAll([
      { type: "start" },
      { type: "block_start", index: 0, block: { type: "text" } },
      { type: "block_delta", index: 0, delta: { type: "text", text: "Calling." } },
      { type: "block_stop", index: 0 },
      { type: "block_start", index: 1, block: { type: "tool_call", id: "toolu_01", name: "weather" } },
      { type: "block_delta", index: 1, delta: { type: "tool_arguments", json: "" } },
      { type: "block_delta", index: 1, delta: { type: "tool_arguments", json: '{"city":' } },
      { type: "block_delta", index: 1, delta: { type: "tool_arguments", json: '"Paris"}' } },
      { type: "block_stop", index: 1 },
      { type: "block_start", index: 2, block: { type: "tool_call", id: "toolu_02", name: "now" } },
      { type: "block_stop", index: 2 },
      { type: "finish", reason: "tool_calls" },
    ]);
    const toolDeltas = deltas(text).flatMap((d) => d.tool_calls ?? []);
    assert.deepEqual(toolDeltas, [
      { index: 0, id: "toolu_01", type: "function", function: { name: "weather", arguments: "" } },
      { index: 0, function: { arguments: '{"city":' } },
      { index: 0, function: { arguments: '"Paris"}' } },
      { index: 1, id: "toolu_02", type: "function", function: { name: "now", arguments: "" } },
      { index: 1, function: { arguments: "{}" } },
    ]);
    assert.equal(chunks(text).at(-1)?.choices[0].finish_reason, "tool_calls");
  });

  test("a call left open at the finish still ends with {} before the finish chunk", () => {
    const { text } = encodeAll([
      { type: "start" },
      { type: "block_start", index: 0, block: { type: "tool_call", id: "c", name: "now" } },
      { type: "finish", reason: "tool_calls" },
    ]);
    const list = chunks(text);
    assert.deepEqual(list.at(-2)?.choices[0].delta, {
      tool_calls: [{ index: 0, function: { arguments: "{}" } }],
    });
    assert.equal(list.at(-1)?.choices[0].finish_reason, "tool_calls");
  });

  test("a Gemini signature on a tool call rides inside the id", () => {
    const { text } = encodeAll([
      { type: "start" },
      {
        type: "block_start",
        index: 0,
        block: { type: "tool_call", id: "fc_1", name: "f", signature: "CiQBsig==" },
      },
      { type: "block_delta", index: 0, delta: { type: "tool_arguments", json: "{}" } },
      { type: "block_stop", index: 0 },
      { type: "finish", reason: "tool_calls" },
    ]);
    const opening = deltas(text).find((d) => d.tool_calls)?.tool_calls[0];
    assert.deepEqual(unpackToolCallId(opening.id), { id: "fc_1", signature: "CiQBsig==" });
  });

  test("thinking: delta.reasoning with reasoning_details pieces, the signature in its own piece", () => {
    const events: StreamEvent[] = [
      { type: "start" },
      { type: "block_start", index: 0, block: { type: "thinking" } },
      { type: "block_delta", index: 0, delta: { type: "thinking", text: "Let me" } },
      { type: "block_delta", index: 0, delta: { type: "thinking", text: " think." } },
      { type: "block_delta", index: 0, delta: { type: "signature", signature: "EqcD==" } },
      { type: "block_stop", index: 0 },
      { type: "block_start", index: 1, block: { type: "redacted_thinking", data: "opaque" } },
      { type: "block_stop", index: 1 },
      { type: "block_start", index: 2, block: { type: "text" } },
      { type: "block_delta", index: 2, delta: { type: "text", text: "Done" } },
      { type: "finish", reason: "stop" },
    ];
    const list = deltas(encodeAll(events).text);
    assert.deepEqual(list[1], {
      reasoning: "Let me",
      reasoning_details: [{ type: "reasoning.text", text: "Let me", format: "unknown", index: 0 }],
    });
    assert.deepEqual(list[2].reasoning_details[0].text, " think.");
    assert.deepEqual(list[3], {
      reasoning_details: [
        { type: "reasoning.text", text: "", signature: "EqcD==", format: "unknown", index: 0 },
      ],
    });
    assert.deepEqual(list[4], {
      reasoning_details: [{ type: "reasoning.encrypted", data: "opaque", format: "unknown", index: 1 }],
    });
    assert.deepEqual(list[5], { content: "Done" });

    const hidden = deltas(encodeAll(events, { reasoning: { exclude: true } }).text);
    assert.ok(hidden.every((d) => d.reasoning === undefined && d.reasoning_details === undefined));
    assert.deepEqual(hidden.map((d) => d.content).filter(Boolean), ["Done"]);
  });

  test("an error mid-stream is a final chunk carrying `error`, then [DONE], with nothing after it", () => {
    const encoder = openaiChat.streamEncoder(encodeContext({ streamUsage: true }));
    let text = encoder.encode({ type: "start" });
    text += encoder.encode({ type: "block_delta", index: 0, delta: { type: "text", text: "Par" } });
    const failure = encoder.encode({
      type: "error",
      error: new GatewayError("overloaded", "upstream overloaded", { status: 529 }),
    });
    // The error closes the stream by itself: callers that write only the error still end with [DONE].
    assert.ok(failure.endsWith("data: [DONE]\n\n"));
    text += failure;
    text += encoder.encode({ type: "usage", usage });
    text += encoder.encode({ type: "finish", reason: "stop" });
    text += encoder.end();
    const payloads = dataPayloads(text);
    assert.deepEqual(payloads.at(-2), {
      error: { message: "upstream overloaded", type: "overloaded_error", param: null, code: "overloaded" },
    });
    assert.equal(payloads.at(-1), "[DONE]");
    assert.equal(payloads.length, 4);
  });
});
