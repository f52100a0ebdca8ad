// The local embedding model (src/providers/local/embed.ts): deterministic, unit length, the length
// asked for, and texts that share words closer than texts that share none.

import assert from "node:assert/strict";
import { test } from "node:test";
import { embedLocally, LOCAL_DIMENSIONS } from "../../../src/providers/local/embed.ts";

const text = (t: string) => ({ kind: "text" as const, text: t });
const dot = (a: number[], b: number[]) => a.reduce((s, x, i) => s + x * b[i], 0);

test("the same text gives the same unit vector of the length asked", () => {
  const a = embedLocally(text("Hello, world"), LOCAL_DIMENSIONS);
  assert.equal(a.length, 1024);
  assert.deepEqual(a, embedLocally(text("Hello, world"), LOCAL_DIMENSIONS));
  assert.ok(Math.abs(dot(a, a) - 1) < 1e-6);
  assert.equal(embedLocally(text("Hello"), 16).length, 16);
  // Words are read case-blind and without punctuation.
  assert.deepEqual(embedLocally(text("HELLO world!"), 64), embedLocally(text("hello, world"), 64));
});

test("shared words score closer than none, for many pairs", () => {
  const pairs = [
    ["the cat sat on the mat", "a cat on a mat", "quarterly revenue projections"],
    ["machine learning models", "learning about models", "banana bread recipe"],
    ["Paris is in France", "France and Paris", "the sun is hot"],
  ];
  for (const [a, b, c] of pairs) {
    const [va, vb, vc] = [a, b, c].map((t) => embedLocally(text(t), LOCAL_DIMENSIONS));
    assert.ok(dot(va, vb) > dot(va, vc), `${a} / ${b} / ${c}`);
  }
});

test("token ids embed too; a text without words is still a unit vector; values are float32", () => {
  const ids = embedLocally({ kind: "tokens", tokens: [1, 2, 3] }, 32);
  assert.ok(Math.abs(dot(ids, ids) - 1) < 1e-6);
  const none = embedLocally(text("!!!"), 8);
  assert.deepEqual(none, [1, 0, 0, 0, 0, 0, 0, 0]);
  for (const x of embedLocally(text("float32 values"), 64)) assert.equal(x, Math.fround(x));
});

test("linear in the text: a megabyte embeds in well under a second", () => {
  const big = "lorem ipsum dolor sit amet ".repeat(40_000);
  const started = performance.now();
  embedLocally(text(big), LOCAL_DIMENSIONS);
  assert.ok(performance.now() - started < 1000);
});
