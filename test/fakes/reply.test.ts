// The shared script helpers: how text is cut into stream pieces and how usage defaults.

import assert from "node:assert/strict";
import { test } from "node:test";
import { DEFAULT_USAGE, finishOf, splitPieces, usageOf } from "./reply.ts";

test("splitPieces cuts into near-equal non-empty pieces and never inside a surrogate pair", () => {
  assert.deepEqual(splitPieces("abcdef", 3), ["ab", "cd", "ef"]);
  assert.deepEqual(splitPieces("a😀b", 3), ["a", "😀", "b"]);
  assert.deepEqual(splitPieces("ab", 5), ["a", "b"]);
  assert.deepEqual(splitPieces("", 3), []);
  assert.equal(splitPieces('{"city":"Paris"}', 3).join(""), '{"city":"Paris"}');
});

test("usage defaults only when the reply gives none; a given usage fills missing buckets with 0", () => {
  assert.deepEqual(usageOf({}), DEFAULT_USAGE);
  assert.deepEqual(usageOf({ usage: { cacheRead: 4 } }), {
    input: 0,
    output: 0,
    cacheRead: 4,
    cacheWrite5m: 0,
    cacheWrite1h: 0,
    reasoning: 0,
  });
});

test("the finish defaults to tool_calls when a tool call is among the blocks", () => {
  assert.equal(finishOf({ blocks: [{ type: "tool_call", name: "f", args: {} }] }), "tool_calls");
  assert.equal(finishOf({ blocks: [{ type: "text", text: "x" }] }), "stop");
  assert.equal(
    finishOf({ finish: "length", blocks: [{ type: "tool_call", name: "f", args: {} }] }),
    "length",
  );
});
