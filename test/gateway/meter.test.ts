// Meter.estimate: what a generation its client left is settled on (docs/architecture.md §5). Each
// count is the larger of the upstream's report so far and the gateway's estimate; the prompt the
// upstream counted stands; usage reported with the finish is final; `estimated` marks where the
// estimate won.

import assert from "node:assert/strict";
import { test } from "node:test";
import { Meter } from "../../src/gateway/meter.ts";
import type { StreamEvent } from "../../src/ir/stream.ts";
import { emptyUsage, type Usage } from "../../src/ir/usage.ts";

const text = (t: string): StreamEvent => ({
  type: "block_delta",
  index: 0,
  delta: { type: "text", text: t },
});
const thinking = (t: string): StreamEvent => ({
  type: "block_delta",
  index: 0,
  delta: { type: "thinking", text: t },
});
const usage = (u: Partial<Usage>): StreamEvent => ({ type: "usage", usage: { ...emptyUsage(), ...u } });

function metered(events: StreamEvent[]): Meter {
  const meter = new Meter();
  for (const event of events) meter.observe(event);
  return meter;
}

test("no usage reported: the prompt as admitted, the output from the text streamed", () => {
  const meter = metered([text("x".repeat(40))]);
  meter.estimate(7, 3);
  assert.deepEqual(meter.usage, { ...emptyUsage(), promptTokens: 7, completionTokens: 13, estimated: true });
  assert.equal(meter.sawUsage, true);
});

test("an opening report (message_start): its prompt and cache counts stand, the output is the text's", () => {
  const opening = { promptTokens: 120, cacheReadTokens: 100, completionTokens: 1 };
  const meter = metered([usage(opening), text("y".repeat(2000))]);
  meter.estimate(30, 0);
  assert.deepEqual(meter.usage, { ...emptyUsage(), ...opening, completionTokens: 500, estimated: true });
});

test("a running output count past the estimate stands, unmarked", () => {
  const meter = metered([usage({ promptTokens: 5, completionTokens: 40 }), text("short")]);
  meter.estimate(9, 0);
  assert.deepEqual(meter.usage, { ...emptyUsage(), promptTokens: 5, completionTokens: 40 });
});

test("thinking streamed counts as output and as its reasoning part", () => {
  const meter = metered([
    usage({ promptTokens: 5, completionTokens: 1 }),
    thinking("z".repeat(80)),
    text("abcd"),
  ]);
  meter.estimate(9, 0);
  assert.equal(meter.usage.completionTokens, 21);
  assert.equal(meter.usage.reasoningTokens, 20);
  assert.equal(meter.usage.estimated, true);
});

test("usage reported with the finish is the upstream's final word", () => {
  const final = { promptTokens: 5, completionTokens: 2 };
  const meter = metered([text("w".repeat(400)), { type: "finish", reason: "stop" }, usage(final)]);
  meter.estimate(50, 10);
  assert.deepEqual(meter.usage, { ...emptyUsage(), ...final });
});
