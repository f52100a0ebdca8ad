// The odd values the fuzz puts where a request expects something else: wrong types, limit values,
// huge and negative numbers, number-ish strings, awkward text, field names a header cannot carry.

import type { Rng } from "./prng.ts";

/** Marks text that must never come back as a response header (name or value). */
export const INJECTION_MARKER = "fuzzinj";

export const STRINGS = [
  "",
  " ",
  "a",
  "NaN",
  "Infinity",
  "-Infinity",
  "-0",
  "1e999",
  "0x10",
  "null",
  "true",
  "[]",
  "{}",
  "undefined",
  "__proto__",
  "constructor",
  "ключ",
  "键🚀",
  "\u0000",
  "nul\u0000byte",
  "tab\there",
  `line\r\nx-${INJECTION_MARKER}: 1`,
  `\r\n\r\nHTTP/1.1 200 OK\r\nx-${INJECTION_MARKER}: 2`,
  "\ud800",
  "\udfff\ud800",
  "\u202e\u2066rtl",
  "\ufeffbom",
  "%FF%FE",
  "../../etc/passwd",
  "<script>alert(1)</script>",
  "' OR 1=1 --",
  "${ENV_VAR}",
  "data:image/png;base64,!!!",
  "data:;base64,",
  "gen-00000000000000000000",
];

export const NUMBERS = [
  0,
  -0,
  1,
  -1,
  0.5,
  -0.5,
  1.5,
  2,
  2.0000001,
  3,
  100,
  1023,
  1024,
  1025,
  4096,
  32768,
  32769,
  100000,
  2 ** 31 - 1,
  2 ** 31,
  2 ** 32,
  2 ** 53,
  2 ** 53 + 2,
  -(2 ** 53),
  1e21,
  1e300,
  -1e300,
  Number.MAX_VALUE,
  Number.MIN_VALUE,
  1e-7,
];

/** Unknown field names, several of which no header can carry as they are. */
export const FIELD_NAMES = [
  "unknown_field",
  "key🚀",
  "ключ",
  "名前",
  `a\r\nx-${INJECTION_MARKER}: 1`,
  `\nx-${INJECTION_MARKER}`,
  "nul\u0000byte",
  "\ud800",
  "",
  " ",
  "__proto__",
  "constructor",
  "prototype",
  "toString",
  "hasOwnProperty",
  "x-switchyard-ignored",
  "a,b",
  "%00",
  "%E0%A4%A",
  "tab\tname",
];

/** A value of any JSON type, odd where possible; `depth` bounds the containers. */
export function oddValue(rng: Rng, depth = 2): unknown {
  const kind = rng.weighted<string>([
    [3, "null"],
    [2, "bool"],
    [5, "number"],
    [5, "string"],
    [2, "array"],
    [2, "object"],
    [1, "long-string"],
    [1, "deep"],
  ]);
  switch (kind) {
    case "null":
      return null;
    case "bool":
      return rng.chance(0.5);
    case "number":
      return rng.chance(0.8)
        ? rng.pick(NUMBERS)
        : (rng.chance(0.5) ? -1 : 1) * rng.float() * 10 ** rng.int(20);
    case "string":
      return rng.pick(STRINGS);
    case "long-string":
      return longString(rng, rng.pick([1000, 70_000]));
    case "deep":
      return deepValue(rng.pick([50, 500, 1000]));
    case "array":
      if (depth <= 0) return [];
      return Array.from({ length: rng.int(4) }, () => oddValue(rng, depth - 1));
    default: {
      if (depth <= 0) return {};
      const out: Record<string, unknown> = {};
      for (let i = rng.int(4); i > 0; i--) out[rng.pick(FIELD_NAMES)] = oddValue(rng, depth - 1);
      return out;
    }
  }
}

/** Text of about `length` characters: words, runs without spaces, or mixed scripts. */
export function longString(rng: Rng, length: number): string {
  const unit = rng.pick([
    "the quick brown fox ",
    "lorem ipsum dolor sit amet ",
    "ключ 键 🚀 ",
    "abcdefghijklmnopqrstuvwxyz",
    '\\"{}[]',
    "0123456789",
    "\u0000\u0001\u001f",
  ]);
  return unit.repeat(Math.ceil(length / unit.length)).slice(0, length);
}

/** Arrays or objects nested `depth` levels. */
export function deepValue(depth: number): unknown {
  let value: unknown = "bottom";
  for (let i = 0; i < depth; i++) value = i % 2 === 0 ? [value] : { a: value };
  return value;
}
