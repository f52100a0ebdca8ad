// heap-bpe.ts makes gpt-tokenizer's merges in O(n log n): same tokens, in the same order, for pieces
// of every kind and length (compared up to lengths where gpt-tokenizer's quadratic merge is still quick).

import assert from "node:assert/strict";
import { test } from "node:test";
import { mergeSteps, vocabularyOf } from "../../../src/providers/local/heap-bpe.ts";

const gpt = await import("gpt-tokenizer");
const ranks = (await import("gpt-tokenizer/bpeRanks/o200k_base")).default;
const { O200K_TOKEN_SPLIT_REGEX } = await import("gpt-tokenizer/encodingParams/constants");
const vocabulary = vocabularyOf(ranks);
const plain = { disallowedSpecial: new Set<string>() };
const utf8 = new TextEncoder();

function merge(text: string): number[] {
  const steps = mergeSteps(utf8.encode(text), vocabulary);
  for (;;) {
    const next = steps.next();
    if (next.done) return next.value;
  }
}

/** A deterministic generator, so that a failure can be replayed. */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1103515245 + 12345) % 2 ** 31;
    return state / 2 ** 31;
  };
}

const alphabets: Record<string, string[]> = {
  lowercase: [..."abcdefghijklmnopqrstuvwxyz"],
  uppercase: [..."ABCDEFGHIJKLMNOPQRSTUVWXYZ"],
  vowels: [..."aeiou"],
  "two letters": [..."ab"],
  punctuation: [...'\\"{}[]!#$%&()*+,-./:;<=>?@^_`|~'],
  dashes: [..."-="],
  accented: [..."éèàüöñçøåß"],
  cjk: Array.from({ length: 300 }, (_, i) => String.fromCharCode(0x4e00 + i * 67)),
  thai: Array.from({ length: 0x2e }, (_, i) => String.fromCharCode(0x0e01 + i)),
  emoji: ["🦜", "🚀", "👩", "\u200d", "🏽"],
};

test("the same tokens as gpt-tokenizer, for single pieces of every kind and length", () => {
  const next = random(42);
  for (const [kind, alphabet] of Object.entries(alphabets)) {
    for (const length of [1, 2, 3, 17, 64, 255, 256, 257, 600, 1500]) {
      const text = Array.from({ length }, () => alphabet[Math.floor(next() * alphabet.length)]).join("");
      const pieces = [...text.matchAll(O200K_TOKEN_SPLIT_REGEX)];
      // Merging applies within a piece: compare piece by piece.
      for (const [piece] of pieces)
        assert.deepEqual(merge(piece), gpt.encode(piece, plain), `${kind}, ${piece.length} characters`);
    }
  }
});

test("repeated runs: the tokens a long rule of dashes or a run of one letter makes", () => {
  for (const text of [
    "-".repeat(529),
    "=".repeat(2000),
    "a".repeat(3001),
    " ".repeat(1000),
    '\\"{}[]'.repeat(300),
  ])
    assert.deepEqual(merge(text), gpt.encode(text, plain));
});

test("a megabyte-long piece merges in well under the quadratic time", () => {
  const next = random(7);
  const text = Array.from({ length: 1 << 20 }, () => String.fromCharCode(97 + Math.floor(next() * 26))).join(
    "",
  );
  const started = performance.now();
  const tokens = merge(text);
  const elapsed = performance.now() - started;
  // gpt-tokenizer: about 8 s for a tenth of this; quadratic, so some 15 minutes for all of it.
  assert.ok(elapsed < 10_000, `${elapsed.toFixed(0)} ms`);
  assert.ok(tokens.length > 400_000 && tokens.length < 700_000, String(tokens.length));
});
