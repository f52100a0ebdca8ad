// The gateway's own stop sequences (src/ir/stop-sequences.ts), on IR events and whole answers.

import assert from "node:assert/strict";
import { test } from "node:test";
import type { Response } from "../../src/ir/response.ts";
import { cutResponse, StopSequenceCutter } from "../../src/ir/stop-sequences.ts";
import type { StreamEvent } from "../../src/ir/stream.ts";
import { emptyUsage } from "../../src/ir/usage.ts";

const delta = (text: string): StreamEvent => ({
  type: "block_delta",
  index: 0,
  delta: { type: "text", text },
});

function textOf(events: StreamEvent[]): string {
  return events
    .map((e) => (e.type === "block_delta" && e.delta.type === "text" ? e.delta.text : ""))
    .join("");
}

test("a sequence split over pieces is found; what follows is left out but usage and finish pass", () => {
  const cutter = new StopSequenceCutter(["<END>"]);
  const out = [
    ...cutter.cut([
      { type: "start" },
      { type: "block_start", index: 0, block: { type: "text" } },
      delta("ab<E"),
    ]),
    ...cutter.cut([delta("N"), delta("D>cd")]),
    ...cutter.cut([
      { type: "block_stop", index: 0 },
      { type: "block_start", index: 1, block: { type: "tool_call", id: "c", name: "f" } },
      { type: "finish", reason: "tool_calls" },
      { type: "usage", usage: emptyUsage() },
    ]),
  ];
  assert.equal(textOf(out), "ab");
  assert.equal(out.filter((e) => e.type === "block_stop").length, 1);
  assert.ok(!out.some((e) => e.type === "block_start" && e.index === 1));
  assert.deepEqual(
    out.find((e) => e.type === "finish"),
    { type: "finish", reason: "stop_sequence", stopSequence: "<END>" },
  );
  assert.ok(out.some((e) => e.type === "usage"));
});

test("without a match every character comes out, held back text at the block's end, pairs kept whole", () => {
  const cutter = new StopSequenceCutter(["xyz"]);
  const out = [
    ...cutter.cut([{ type: "block_start", index: 0, block: { type: "text" } }, delta("a😀"), delta("😀b")]),
    ...cutter.cut([
      { type: "block_stop", index: 0 },
      { type: "finish", reason: "stop" },
    ]),
  ];
  assert.equal(textOf(out), "a😀😀b");
  for (const e of out)
    if (e.type === "block_delta" && e.delta.type === "text")
      assert.doesNotMatch(e.delta.text, /^[\uDC00-\uDFFF]|[\uD800-\uDBFF]$/, "no split surrogate pair");
  assert.deepEqual(out.at(-1), { type: "finish", reason: "stop" });
});

test("a whole answer is cut at the earliest sequence; blocks after it are left out", () => {
  const response: Response = {
    id: "r",
    model: "m",
    content: [
      { type: "text", text: "one two STOP three" },
      { type: "tool_call", id: "c", name: "f", arguments: "{}" },
    ],
    finishReason: "tool_calls",
    usage: emptyUsage(),
  };
  const cut = cutResponse(response, ["three", "STOP"]);
  assert.deepEqual(cut.content, [{ type: "text", text: "one two " }]);
  assert.equal(cut.finishReason, "stop_sequence");
  assert.equal(cut.stopSequence, "STOP");
  assert.equal(cutResponse(response, ["absent"]), response);
});
