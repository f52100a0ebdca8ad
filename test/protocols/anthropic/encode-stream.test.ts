import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { GatewayError } from "../../../src/ir/errors.ts";
import type { StreamEvent } from "../../../src/ir/stream.ts";
import { emptyUsage, type Usage } from "../../../src/ir/usage.ts";
import { anthropic } from "../../../src/protocols/anthropic/index.ts";
import { AWKWARD_PIECES } from "../../support/streams.ts";
import { encodeContext, parseSse, sseFrames } from "./helpers.ts";

const finalUsage: Usage = { ...emptyUsage(), promptTokens: 120, cacheReadTokens: 20, completionTokens: 33 };

function run(events: StreamEvent[]) {
  const encoder = anthropic.streamEncoder(encodeContext());
  const perEvent = events.map((e) => encoder.encode(e));
  const tail = encoder.end();
  return { perEvent, tail, frames: sseFrames(perEvent.join("") + tail) };
}

describe("messages stream encoder", () => {
  test("every frame has an event line equal to its data type", () => {
    const { perEvent, frames } = run([
      { type: "start" },
      { type: "block_start", index: 0, block: { type: "text" } },
      { type: "block_delta", index: 0, delta: { type: "text", text: "a" } },
      { type: "block_stop", index: 0 },
      { type: "finish", reason: "stop" },
    ]);
    assert.match(perEvent.join(""), /^event: message_start\ndata: \{/);
    for (const frame of frames) assert.equal(frame.event, frame.data.type);
  });

  test("each input_json_delta piece is written by the encode call that received it (no bursts)", () => {
    const pieces = ['{"q', 'uery"', ': "we', 'ather"}'];
    const { perEvent } = run([
      { type: "start" },
      { type: "block_start", index: 0, block: { type: "tool_call", id: "toolu_1", name: "search" } },
      ...pieces.map(
        (json): StreamEvent => ({ type: "block_delta", index: 0, delta: { type: "tool_arguments", json } }),
      ),
      { type: "block_stop", index: 0 },
    ]);
    pieces.forEach((piece, k) => {
      const written = sseFrames(perEvent[2 + k]).filter((f) => f.data.delta?.type === "input_json_delta");
      assert.equal(written.length, 1, `piece ${k} was not written at once`);
      assert.equal(written[0].data.delta.partial_json, piece);
    });
  });

  test("indexes are contiguous from 0 even when the IR skips numbers or drops empty blocks", () => {
    const { frames } = run([
      { type: "start" },
      { type: "block_start", index: 3, block: { type: "text" } },
      { type: "block_stop", index: 3 },
      { type: "block_start", index: 4, block: { type: "thinking" } },
      { type: "block_stop", index: 4 },
      { type: "block_start", index: 9, block: { type: "redacted_thinking", data: "opaque" } },
      { type: "block_stop", index: 9 },
      { type: "block_start", index: 12, block: { type: "text" } },
      { type: "block_delta", index: 12, delta: { type: "text", text: "hi" } },
      { type: "block_stop", index: 12 },
    ]);
    const starts = frames.filter((f) => f.event === "content_block_start");
    assert.deepEqual(
      starts.map((f) => [f.data.index, f.data.content_block.type]),
      [
        [0, "redacted_thinking"],
        [1, "text"],
      ],
    );
    assert.deepEqual(starts[0].data.content_block, { type: "redacted_thinking", data: "opaque" });
    const stops = frames.filter((f) => f.event === "content_block_stop").map((f) => f.data.index);
    assert.deepEqual(stops, [0, 1]);
  });

  test("no empty text block is ever opened", () => {
    const { frames } = run([
      { type: "start" },
      { type: "block_start", index: 0, block: { type: "text" } },
      { type: "block_delta", index: 0, delta: { type: "text", text: "" } },
      { type: "block_stop", index: 0 },
      { type: "finish", reason: "stop" },
    ]);
    assert.equal(frames.filter((f) => f.event.startsWith("content_block")).length, 0);
  });

  test("a signed thinking block with no text is still sent, signature before its stop", () => {
    const { frames } = run([
      { type: "start" },
      { type: "block_start", index: 0, block: { type: "thinking" } },
      { type: "block_delta", index: 0, delta: { type: "signature", signature: "only-sig" } },
      { type: "block_stop", index: 0 },
    ]);
    assert.deepEqual(
      frames.slice(1, 4).map((f) => f.event),
      ["content_block_start", "content_block_delta", "content_block_stop"],
    );
    assert.deepEqual(frames[2].data.delta, { type: "signature_delta", signature: "only-sig" });
  });

  test("finish waits for the usage that follows it; message_delta carries that final usage", () => {
    const { perEvent, tail, frames } = run([
      { type: "start" },
      { type: "usage", usage: { ...finalUsage, completionTokens: 1 } },
      { type: "block_start", index: 0, block: { type: "text" } },
      { type: "block_delta", index: 0, delta: { type: "text", text: "x" } },
      { type: "block_stop", index: 0 },
      { type: "finish", reason: "length" },
      { type: "usage", usage: finalUsage },
    ]);
    assert.ok(!perEvent[5].includes("message_delta"), "finish alone must not write message_delta");
    assert.ok(perEvent[6].includes("event: message_delta"));
    assert.equal(tail, 'event: message_stop\ndata: {"type":"message_stop"}\n\n');
    const start = frames[0].data.message;
    assert.equal(start.usage.input_tokens, 100);
    assert.equal(start.usage.cache_read_input_tokens, 20);
    assert.equal(start.stop_reason, null);
    assert.deepEqual(start.content, []);
    const delta = frames.find((f) => f.event === "message_delta")!.data;
    assert.deepEqual(delta.delta, {
      stop_reason: "max_tokens",
      stop_sequence: null,
      stop_details: null,
      container: null,
    });
    assert.equal(delta.usage.output_tokens, 33);
    assert.equal(delta.usage.input_tokens, 100);
    assert.equal(delta.usage.cache_read_input_tokens, 20);
  });

  test("usage before finish: message_delta is written at end() with it", () => {
    const { perEvent, tail } = run([
      { type: "start" },
      { type: "block_start", index: 0, block: { type: "text" } },
      { type: "block_delta", index: 0, delta: { type: "text", text: "x" } },
      { type: "usage", usage: finalUsage },
      { type: "finish", reason: "stop_sequence", stopSequence: "STOP" },
    ]);
    assert.ok(!perEvent.join("").includes("message_delta"));
    const frames = sseFrames(tail);
    assert.deepEqual(
      frames.map((f) => f.event),
      ["content_block_stop", "message_delta", "message_stop"],
    );
    assert.equal(frames[1].data.delta.stop_reason, "stop_sequence");
    assert.equal(frames[1].data.delta.stop_sequence, "STOP");
    assert.equal(frames[1].data.usage.output_tokens, 33);
  });

  test("end() alone still writes a complete stream", () => {
    const encoder = anthropic.streamEncoder(encodeContext());
    assert.deepEqual(
      sseFrames(encoder.end()).map((f) => f.event),
      ["message_start", "message_delta", "message_stop"],
    );
    assert.equal(encoder.end(), "");
  });

  test("an IR error becomes `event: error` and ends the stream", () => {
    const encoder = anthropic.streamEncoder(encodeContext());
    encoder.encode({ type: "start" });
    encoder.encode({ type: "block_start", index: 0, block: { type: "text" } });
    const text = encoder.encode({ type: "error", error: new GatewayError("rate_limit", "slow down") });
    assert.equal(
      text,
      'event: error\ndata: {"type":"error","error":{"type":"rate_limit_error","message":"slow down"}}\n\n',
    );
    assert.equal(encoder.encode({ type: "finish", reason: "stop" }), "");
    assert.equal(encoder.end(), "");
  });

  test("the message id and model are the generation's, not the upstream's", () => {
    const { frames } = run([
      { type: "start", id: "msg_upstream", model: "claude-upstream" },
      { type: "finish", reason: "stop" },
    ]);
    assert.equal(frames[0].data.message.id, "gen-01TEST");
    assert.equal(frames[0].data.message.model, "anthropic/claude-sonnet-4-5");
  });
});

describe("pieces written as text around their JSON", () => {
  test("a content_block_delta is the bytes of its object through JSON.stringify, for any piece", () => {
    const pieces = ["Hello", ...AWKWARD_PIECES];
    const blocks: Array<[StreamEvent & { type: "block_start" }, (piece: string) => StreamEvent, object]> = [
      [
        { type: "block_start", index: 0, block: { type: "text" } },
        (text) => ({ type: "block_delta", index: 0, delta: { type: "text", text } }),
        { type: "text_delta", text: "" },
      ],
      [
        { type: "block_start", index: 1, block: { type: "thinking" } },
        (text) => ({ type: "block_delta", index: 1, delta: { type: "thinking", text } }),
        { type: "thinking_delta", thinking: "" },
      ],
      [
        { type: "block_start", index: 2, block: { type: "tool_call", id: "t", name: "f" } },
        (json) => ({ type: "block_delta", index: 2, delta: { type: "tool_arguments", json } }),
        { type: "input_json_delta", partial_json: "" },
      ],
    ];
    const events: StreamEvent[] = [{ type: "start" }];
    const expected: string[] = [];
    blocks.forEach(([start, delta, wire], index) => {
      events.push(start, ...pieces.map(delta), { type: "block_stop", index });
      const field = Object.keys(wire)[1];
      for (const piece of pieces)
        expected.push(
          JSON.stringify({ type: "content_block_delta", index, delta: { ...wire, [field]: piece } }),
        );
    });
    const { perEvent, tail } = run(events);
    const deltas = parseSse(perEvent.join("") + tail).filter((e) => e.event === "content_block_delta");
    assert.deepEqual(
      deltas.map((e) => e.data),
      expected,
    );
  });

  test("a text block's start, a block's stop and message_stop are the bytes of their objects", () => {
    const events: StreamEvent[] = [{ type: "start" }];
    for (let index = 0; index < 12; index++)
      events.push(
        { type: "block_start", index, block: { type: "text" } },
        { type: "block_delta", index, delta: { type: "text", text: `t${index}` } },
        { type: "block_stop", index },
      );
    const { perEvent, tail } = run(events);
    const kinds = ["content_block_start", "content_block_stop", "message_stop"];
    const known = parseSse(perEvent.join("") + tail).filter((e) => kinds.includes(e.event ?? ""));
    const expected = (index: number) => [
      JSON.stringify({ type: "content_block_start", index, content_block: { type: "text", text: "" } }),
      JSON.stringify({ type: "content_block_stop", index }),
    ];
    assert.deepEqual(
      known.map((e) => e.data),
      [...Array.from({ length: 12 }, (_, i) => expected(i)).flat(), JSON.stringify({ type: "message_stop" })],
    );
  });
});
