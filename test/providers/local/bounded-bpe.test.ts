// Bounded token counting for the local models: exactly gpt-tokenizer's count for every text (batches
// cut where the text's pieces end; long pieces merged by heap-bpe.ts), at a cost of n log n for runs
// without whitespace (which gpt-tokenizer alone counts in quadratic time), and truncation that keeps
// what decoding the first tokens of the whole text keeps.

import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import {
  BATCH_CHARS,
  countEachSteps,
  countSteps,
  type Encoding,
  HUGE_PIECE_CHARS,
  LONG_PIECE_CHARS,
  segments,
  truncateSteps,
} from "../../../src/providers/local/bounded-bpe.ts";
import { type Vocabulary, vocabularyOf } from "../../../src/providers/local/heap-bpe.ts";

const gpt = await import("gpt-tokenizer");
const ranks = (await import("gpt-tokenizer/bpeRanks/o200k_base")).default;
const { O200K_TOKEN_SPLIT_REGEX } = await import("gpt-tokenizer/encodingParams/constants");

const plain = { disallowedSpecial: new Set<string>() };
const utf8 = new TextEncoder();
let vocabulary: Vocabulary | undefined;
const encoding: Encoding = {
  count: (text) => gpt.countTokens(text, plain),
  encode: (text) => gpt.encode(text, plain),
  bytes: (token) => {
    const value = ranks[token];
    return typeof value === "string" ? utf8.encode(value) : Uint8Array.from(value);
  },
  vocabulary: () => {
    vocabulary ??= vocabularyOf(ranks);
    return vocabulary;
  },
};
const splitter = { pieces: O200K_TOKEN_SPLIT_REGEX };

function run<T>(steps: Generator<void, T>): T {
  for (;;) {
    const next = steps.next();
    if (next.done) return next.value;
  }
}

const count = (text: string) => run(countSteps(encoding, splitter, text));

/** What decoding the first `max` tokens of the whole text gives (without a half character at the end). */
function referencePrefix(text: string, max: number): string {
  const tokens = encoding.encode(text).slice(0, max);
  const bytes = tokens.flatMap((t) => [...encoding.bytes(t)]);
  return new TextDecoder().decode(Uint8Array.from(bytes), { stream: true });
}

const ROOT = new URL("../../../", import.meta.url).pathname;

function repositoryTexts(): string[] {
  const texts = [
    readFileSync(join(ROOT, "README.md"), "utf8"),
    readFileSync(join(ROOT, "package-lock.json"), "utf8"),
  ];
  for (const name of readdirSync(join(ROOT, "docs")))
    texts.push(readFileSync(join(ROOT, "docs", name), "utf8"));
  const local = join(ROOT, "src/providers/local");
  for (const name of readdirSync(local)) texts.push(readFileSync(join(local, name), "utf8"));
  return texts;
}

/** Texts that put whitespace runs, newlines and long pieces right where batches are cut. */
function trickyTexts(): string[] {
  const many = (unit: string) => unit.repeat(Math.ceil((3 * BATCH_CHARS) / unit.length));
  return [
    many("x  1 "),
    many("word   \t 42"),
    many("}\n"),
    many("a \n\n  b"),
    many("  \u3000 漢字かな。"),
    many("Ünïcödé façade — naïve “quotes” ‘x’ "),
    many("สวัสดีครับ ภาษาไทย "),
    many("🦜🦜 👩‍👩‍👧 "),
    many("<|endoftext|> <|im_start|>"),
    `x    ${"a".repeat(LONG_PIECE_CHARS + 100)} tail`,
    `| a | b |\n|${"-".repeat(529)}|${"-".repeat(1200)}|\n| 1 | 2 |`,
    `base64 ${"QUFB".repeat(300)}== ${"AbCdEfGh".repeat(100)}`,
    `x  \n  ${'\\"{}[]'.repeat(200)}\n\n   1`,
    `${" ".repeat(LONG_PIECE_CHARS * 3)}1`,
    `${"ab ".repeat(BATCH_CHARS)}${" ".repeat(40)}${"é".repeat(LONG_PIECE_CHARS * 2)}`,
    "   leading and trailing   ",
    "",
    " ",
  ];
}

test("every text counts exactly as gpt-tokenizer counts it whole", () => {
  for (const text of [...repositoryTexts(), ...trickyTexts()]) {
    assert.equal(count(text), encoding.count(text), JSON.stringify(text.slice(0, 80)));
  }
});

test("segments cover the text in order; gpt-tokenizer is given no piece longer than LONG_PIECE_CHARS", () => {
  for (const text of [...trickyTexts(), '\\"{}[]'.repeat(50_000), "a".repeat(100_000), "🦜".repeat(40_000)]) {
    let at = 0;
    for (const { start, end, long } of segments(text, splitter)) {
      assert.equal(start, at);
      assert.ok(end > start);
      const pieces = [...text.slice(start, end).matchAll(splitter.pieces)].map(([p]) => p.length);
      if (long) assert.ok(pieces.length === 1 && end - start <= HUGE_PIECE_CHARS);
      else
        assert.ok(Math.max(...pieces) <= LONG_PIECE_CHARS, `a piece of ${Math.max(...pieces)} given whole`);
      at = end;
    }
    assert.equal(at, text.length);
  }
});

test("runs without whitespace count quickly, and exactly", () => {
  // Counted whole by gpt-tokenizer, 100 KB of either took 3 to 5 s on a 2-core machine.
  for (const [text, exact] of [
    ['\\"{}[]'.repeat(20_000), 60_000],
    ["a".repeat(120_000), 15_000],
  ] as const) {
    const started = performance.now();
    const n = count(text);
    const elapsed = performance.now() - started;
    assert.ok(elapsed < 1000, `${elapsed.toFixed(0)} ms`);
    assert.equal(n, exact);
  }
  let state = 7;
  const letters = Array.from({ length: 20_000 }, () => {
    state = (state * 1103515245 + 12345) % 2 ** 31;
    return String.fromCharCode(97 + (state % 26));
  }).join("");
  assert.equal(count(letters), encoding.count(letters));
});

test("special-token names count as plain text", () => {
  assert.equal(count("<|endoftext|>"), encoding.count("<|endoftext|>"));
  assert.ok(count("<|endoftext|>") > 1);
});

test("counting several texts stops once the total passes the limit", () => {
  const texts = ["one two three", "four five six", "seven eight nine"];
  const all = run(countEachSteps(encoding, splitter, texts));
  assert.deepEqual(all.each, texts.map(encoding.count));
  assert.equal(all.overLimit, false);
  const limited = run(countEachSteps(encoding, splitter, texts, all.each[0] + 1));
  assert.equal(limited.overLimit, true);
  assert.equal(limited.each.length, 2);
  // A long text is not read to its end once over the limit.
  const long = run(countEachSteps(encoding, splitter, ["word ".repeat(1_000_000)], 10));
  assert.equal(long.overLimit, true);
  assert.ok(long.total < 10 + BATCH_CHARS);
});

test("truncation keeps what decoding the first tokens of the whole text keeps", () => {
  for (const text of [readFileSync(join(ROOT, "README.md"), "utf8"), ...trickyTexts()]) {
    const total = encoding.count(text);
    for (const max of [0, 1, 7, 100, 1000, total - 1, total, total + 5]) {
      if (max < 0) continue;
      const got = run(truncateSteps(encoding, splitter, text, max));
      assert.equal(got.truncated, total > max, `max ${max}`);
      assert.equal(
        got.text,
        total > max ? referencePrefix(text, max) : text,
        `max ${max} of ${JSON.stringify(text.slice(0, 40))}`,
      );
      assert.equal(got.tokens, encoding.count(got.text));
    }
  }
});

test("truncation never leaves half a character, and does not depend on earlier truncations", () => {
  const text = "🦜🦜🦜 naïve";
  const first = [1, 2, 3, 4, 5, 6].map((max) => run(truncateSteps(encoding, splitter, text, max)).text);
  const again = [6, 5, 4, 3, 2, 1]
    .map((max) => run(truncateSteps(encoding, splitter, text, max)).text)
    .reverse();
  assert.deepEqual(again, first);
  for (const prefix of first) {
    assert.ok(text.startsWith(prefix), JSON.stringify(prefix));
    assert.ok(!prefix.includes("\uFFFD"));
  }
});

test("truncating a megabyte-long run reads only what the prefix needs", () => {
  const started = performance.now();
  const got = run(truncateSteps(encoding, splitter, "a".repeat(4 << 20), 100));
  assert.ok(performance.now() - started < 1000, `${(performance.now() - started).toFixed(0)} ms`);
  assert.equal(got.truncated, true);
  assert.equal(got.tokens, 100);
  assert.equal(got.text, "a".repeat(800));
});
