// A property test of the hand-written JSON edits against a JSON parser, from a seed: for random JSON
// object texts (any spacing, escapes in keys and strings, number spellings, duplicate keys, nesting)
// and random edits, editJson, setMembers and editJsonMember must mean exactly what parsing, editing
// and printing
// would mean, and topLevelMembers must find each member where a parser finds it; for texts that are
// not JSON objects they must refuse with a SyntaxError (or, with nothing to do, hand the text back),
// never throw anything else. Strings and keys hold non-ASCII text, surrogate pairs (raw and as two
// \u escapes) and lone surrogates.
//
//   FUZZ_SEED=<n>|random   the seed (printed; fixed by default)
//
// The meaning of a text is read by the small reference parser below, not by JSON.parse: V8's
// JSON.parse in Node 24.21 reads an escaped key wrongly once an object of the same shape had a key
// holding a backslash (`{"w":1,"\\":2}` then `{"w":1,"\n":2}` gives the key `\`, not a newline;
// `jsonParseReadsEscapedKeysWrongly` below shows it). What JSON.parse gets wrong cannot be the oracle.

import assert from "node:assert/strict";
import { test } from "node:test";
import {
  editJson,
  editJsonMember,
  type JsonEdits,
  type OpeningMemo,
  setMembers,
  topLevelMembers,
} from "../../../src/protocols/shared/json-edit.ts";
import { fuzzSeed, Rng } from "../../fuzz/prng.ts";

const SEED = fuzzSeed(process.env.FUZZ_SEED, 0x15_0ed17);
const DOCS = 4000;

/** Keys the edits name: the relays' own, and ones a hand scanner might trip on. */
const EDIT_KEYS = [
  "model",
  "id",
  "provider",
  "usage",
  "reasoning",
  "x",
  "__proto__",
  'a"b',
  "ключ",
  "a\\b",
  "",
  "🚀",
];
const OTHER_KEYS = [
  "choices",
  "n",
  "messages",
  "modelx",
  "xmodel",
  "{",
  "}",
  ",",
  ":",
  "[",
  "\\",
  " ",
  "\ud83d",
  "é🚀",
];

/** A JSON text of `value`, with random spacing and key spellings (escapes, duplicates). */
function write(rng: Rng, value: unknown, depth: number): string {
  const space = () => rng.pick(["", "", " ", "\n", "\t", " \r\n "]);
  if (Array.isArray(value))
    return `[${space()}${value.map((v) => write(rng, v, depth + 1)).join(`${space()},${space()}`)}${space()}]`;
  if (typeof value === "object" && value !== null) {
    const members = Object.entries(value).map(
      ([k, v]) => `${space()}${key(rng, k)}${space()}:${space()}${write(rng, v, depth + 1)}`,
    );
    return `{${members.join(",")}${space()}}`;
  }
  if (typeof value === "number") return numberText(rng, value);
  if (typeof value === "string") return stringText(rng, value);
  return JSON.stringify(value);
}

function key(rng: Rng, name: string): string {
  // Sometimes with \u escapes: the same key to JSON.parse, other bytes to a scanner.
  if (rng.chance(0.15) && name.length > 0) {
    const i = rng.int(name.length);
    const code = name.charCodeAt(i).toString(16).padStart(4, "0");
    return `"${JSON.stringify(name.slice(0, i)).slice(1, -1)}\\u${code}${JSON.stringify(name.slice(i + 1)).slice(1, -1)}"`;
  }
  return JSON.stringify(name);
}

function numberText(rng: Rng, n: number): string {
  if (Number.isInteger(n) && Math.abs(n) < 1e21 && rng.chance(0.3))
    return rng.pick([`${n}.0`, `${n}e0`, `${n}E+0`, `${n}.000`]);
  return JSON.stringify(n);
}

function stringText(rng: Rng, s: string): string {
  const text = JSON.stringify(s);
  // An escaped solidus, or a character written as \u: the same string, other bytes.
  if (rng.chance(0.2)) return text.replace(/\//g, "\\/").replace(/a/g, "\\u0061");
  // Every non-ASCII code unit as \u (a surrogate pair becomes two escapes).
  if (rng.chance(0.2))
    return text.replace(/[\u0080-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
  return text;
}

function randomValue(rng: Rng, depth: number): unknown {
  const kind = depth > 3 ? rng.int(4) : rng.int(6);
  switch (kind) {
    case 0:
      return rng.pick([null, true, false]);
    case 1:
      // (1.2345678901234567e19 prints as 12345678901234567000: digits past a double's precision.)
      return rng.pick([0, -0, 1, -1, 1.5, 1e21, 1e-7, 1.2345678901234567e19, 2 ** 53 + 1]);
    case 2:
    case 3:
      return rng.pick([
        "",
        "a",
        '"',
        "\\",
        "}",
        "{",
        "]",
        "[",
        ",",
        ":",
        '\\"}',
        "ключ 🚀",
        "🚀🚀",
        "\ud83d",
        "x\udfff",
        "\u0000",
        '"model":1',
        "a/b",
      ]);
    case 4:
      return Array.from({ length: rng.int(4) }, () => randomValue(rng, depth + 1));
    default:
      return randomObject(rng, depth + 1);
  }
}

function randomObject(rng: Rng, depth: number): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (let i = rng.int(6); i > 0; i--)
    define(out, rng.pick([...EDIT_KEYS, ...OTHER_KEYS]), randomValue(rng, depth));
  return out;
}

/** An own property, even for `__proto__` (as JSON.parse makes it). */
function define(target: Record<string, unknown>, name: string, value: unknown): void {
  Object.defineProperty(target, name, { value, enumerable: true, writable: true, configurable: true });
}

/** A top-level object text; sometimes with a key written twice (JSON.parse keeps the last). */
function document(rng: Rng): string {
  const text = write(rng, randomObject(rng, 0), 0);
  if (!rng.chance(0.2) || text === "{}") return text;
  const dup = `${key(rng, rng.pick(EDIT_KEYS))}:${write(rng, randomValue(rng, 2), 2)}`;
  return rng.chance(0.5)
    ? `{${dup},${text.slice(1)}`
    : `${text.slice(0, text.lastIndexOf("}"))}${text.trim() === "{}" ? "" : ","}${dup}}`;
}

function randomEdits(rng: Rng): JsonEdits {
  const edits: JsonEdits = {};
  if (rng.chance(0.8)) {
    edits.set = {};
    for (let i = rng.range(1, 3); i > 0; i--)
      edits.set[rng.pick(EDIT_KEYS)] = JSON.stringify(randomValue(rng, 2));
  }
  if (rng.chance(0.5)) edits.remove = Array.from({ length: rng.range(1, 4) }, () => rng.pick(EDIT_KEYS));
  return edits;
}

/** What the edits mean: parse, edit, and that is the object the edited text must parse to. */
function expected(text: string, edits: JsonEdits): unknown {
  const value = parse(text) as Record<string, unknown>;
  const set = edits.set ?? {};
  for (const [k, v] of Object.entries(set)) define(value, k, parse(v));
  for (const k of edits.remove ?? []) if (!Object.hasOwn(set, k)) delete value[k];
  return value;
}

/** Why the edited text does not mean what the edits mean, or undefined when it does. */
function mismatch(out: string, meant: unknown): string | undefined {
  let got: unknown;
  try {
    got = parse(out);
  } catch (err) {
    return `the edit is not JSON: ${(err as Error).message}`;
  }
  try {
    assert.deepStrictEqual(got, meant);
    return undefined;
  } catch {
    return `it means ${JSON.stringify(got)}, the edits mean ${JSON.stringify(meant)}`;
  }
}

function isObjectText(text: string): boolean {
  try {
    const v = parse(text);
    return typeof v === "object" && v !== null && !Array.isArray(v);
  } catch {
    return false;
  }
}

/** A broken variant of a valid text: cut short, a byte changed, a brace or quote removed or added. */
function broken(rng: Rng, text: string): string {
  const at = rng.int(text.length + 1);
  switch (rng.int(5)) {
    case 0:
      return text.slice(0, at);
    case 1:
      return text.slice(0, at) + rng.pick(['"', "{", "}", "[", "]", ",", ":", "\\", "x"]) + text.slice(at);
    case 2:
      return text.slice(0, at) + text.slice(at + 1);
    case 3:
      return rng.pick([
        "[1]",
        "1",
        '"s"',
        "null",
        "",
        " ",
        "{",
        "}",
        '{"a"}',
        '{"a":}',
        '{"a":1,}',
        '{,"a":1}',
        '{"a" 1}',
      ]);
    default:
      return `${text}${rng.pick(["}", ",", " x", "{}"])}`;
  }
}

test(`editJson means what JSON.parse + edit + JSON.stringify mean, or refuses (seed ${SEED})`, () => {
  const rng = new Rng(SEED);
  const failures: string[] = [];
  let edited = 0;
  for (let n = 0; n < DOCS && failures.length < 10; n++) {
    const valid = document(rng);
    const edits = randomEdits(rng);
    const text = rng.chance(0.25) ? broken(rng, valid) : valid;
    let out: string;
    try {
      out = editJson(text, edits);
    } catch (err) {
      if (!(err instanceof SyntaxError))
        failures.push(`threw ${err} for ${JSON.stringify(text)} ${JSON.stringify(edits)}`);
      else if (isObjectText(text))
        failures.push(`refused a valid object ${JSON.stringify(text)} ${JSON.stringify(edits)}`);
      continue;
    }
    if (!isObjectText(text)) continue; // Refusing is not required when there was nothing to do.
    edited++;
    const wrong = mismatch(out, expected(text, edits));
    if (wrong)
      failures.push(
        `${JSON.stringify(text)} edited by ${JSON.stringify(edits)} is ${JSON.stringify(out)}: ${wrong}`,
      );
  }
  assert.equal(failures.length, 0, `seed ${SEED}:\n${failures.join("\n")}`);
  assert.ok(edited > DOCS / 2, `only ${edited} of ${DOCS} documents were JSON objects`);
});

test(`setMembers, reusing the last opening, means what editJson means (seed ${SEED})`, () => {
  // Its texts are an upstream's stream events: each member written once (setMembers' contract).
  const rng = new Rng(SEED ^ 0x5e7);
  const failures: string[] = [];
  for (let stream = 0; stream < 400 && failures.length < 10; stream++) {
    const set: Record<string, string> = {};
    for (let i = rng.range(1, 2); i > 0; i--) set[rng.pick(EDIT_KEYS)] = JSON.stringify(randomValue(rng, 3));
    const memo: OpeningMemo = {};
    // A stream's events: one opening, then tails that vary (and sometimes another opening).
    let opening = write(rng, randomObject(rng, 0), 0);
    for (let e = 0; e < 12; e++) {
      if (rng.chance(0.15)) opening = write(rng, randomObject(rng, 0), 0);
      const taken = new Set(Object.keys(parse(opening) as object));
      const tail = Object.fromEntries(
        Object.entries(randomObject(rng, 1)).filter(([k]) => !taken.has(k) && !Object.hasOwn(set, k)),
      );
      const rest = write(rng, tail, 1).slice(1);
      const cut = opening.lastIndexOf("}");
      const open = opening.slice(0, cut).trim() !== "{";
      const text = rest.trim() === "}" ? opening : `${opening.slice(0, cut)}${open ? "," : ""}${rest}`;
      if (!isObjectText(text)) continue;
      let out: string;
      try {
        out = setMembers(text, set, memo);
      } catch (err) {
        failures.push(`threw ${err} for ${JSON.stringify(text)} ${JSON.stringify(set)}`);
        continue;
      }
      const wrong = mismatch(out, expected(text, { set }));
      if (wrong)
        failures.push(
          `${JSON.stringify(text)} set ${JSON.stringify(set)} is ${JSON.stringify(out)}: ${wrong}`,
        );
    }
  }
  assert.equal(failures.length, 0, `seed ${SEED}:\n${failures.join("\n")}`);
});

test(`editJsonMember edits the object a member holds as parse + edit + print would (seed ${SEED})`, () => {
  const rng = new Rng(SEED ^ 0x3e3b);
  const failures: string[] = [];
  for (let n = 0; n < 1000 && failures.length < 10; n++) {
    const member = rng.pick(["message", "response", "🚀"]);
    const inner = write(rng, randomObject(rng, 1), 1);
    const outer = write(rng, randomObject(rng, 0), 0);
    const cut = outer.lastIndexOf("}");
    const open = outer.slice(0, cut).trim() !== "{";
    const text = `${outer.slice(0, cut)}${open ? "," : ""}${key(rng, member)}:${inner}}`;
    if (!isObjectText(text)) continue;
    const edits = randomEdits(rng);
    let out: string;
    try {
      out = editJsonMember(text, member, edits);
    } catch (err) {
      failures.push(`threw ${err} for ${JSON.stringify(text)} ${JSON.stringify(edits)}`);
      continue;
    }
    const meant = parse(text) as Record<string, unknown>;
    define(meant, member, expected(inner, edits));
    const wrong = mismatch(out, meant);
    if (wrong)
      failures.push(`${JSON.stringify(text)} ${member} edited by ${JSON.stringify(edits)}: ${wrong}`);
  }
  assert.equal(failures.length, 0, `seed ${SEED}:\n${failures.join("\n")}`);
});

test(`topLevelMembers finds each member's value where a parser finds it (seed ${SEED})`, () => {
  const rng = new Rng(SEED ^ 0x70b);
  const failures: string[] = [];
  for (let n = 0; n < 1000 && failures.length < 10; n++) {
    const text = document(rng);
    if (!isObjectText(text)) continue; // (a duplicate added to an empty object that had spacing)
    const parsed = parse(text) as Record<string, unknown>;
    const members = topLevelMembers(text);
    if (members.size !== Object.keys(parsed).length)
      failures.push(
        `${JSON.stringify(text)}: ${members.size} members, a parser finds ${Object.keys(parsed).length}`,
      );
    for (const [k, span] of members) {
      const value = parse(text.slice(span.valueStart, span.end));
      if (!Object.hasOwn(parsed, k)) failures.push(`${JSON.stringify(text)}: no member ${JSON.stringify(k)}`);
      else if (JSON.stringify(value) !== JSON.stringify(parsed[k]))
        failures.push(
          `${JSON.stringify(text)}: ${JSON.stringify(k)} is ${JSON.stringify(parsed[k])}, found ${JSON.stringify(value)}`,
        );
    }
  }
  assert.equal(failures.length, 0, `seed ${SEED}:\n${failures.join("\n")}`);
});

/** A strict JSON parser (RFC 8259): objects keep the last of duplicate keys, `__proto__` is an own key. */
function parse(text: string): unknown {
  let i = 0;
  const fail = (): never => {
    throw new SyntaxError(`invalid JSON at ${i}`);
  };
  const space = () => {
    while (i < text.length && " \t\n\r".includes(text[i])) i++;
  };
  const literal = (word: string, value: unknown) => {
    if (!text.startsWith(word, i)) fail();
    i += word.length;
    return value;
  };
  const string = (): string => {
    if (text[i] !== '"') fail();
    let out = "";
    for (i++; ; ) {
      const c = text[i++];
      if (c === undefined || c < " ") fail();
      if (c === '"') return out;
      if (c !== "\\") {
        out += c;
        continue;
      }
      const e = text[i++];
      if (e === "u") {
        const hex = text.slice(i, i + 4);
        if (!/^[0-9a-fA-F]{4}$/.test(hex)) fail();
        out += String.fromCharCode(Number.parseInt(hex, 16));
        i += 4;
      } else {
        const simple = { '"': '"', "\\": "\\", "/": "/", b: "\b", f: "\f", n: "\n", r: "\r", t: "\t" }[e];
        if (simple === undefined) fail();
        out += simple;
      }
    }
  };
  const value = (): unknown => {
    space();
    const c = text[i];
    if (c === "{") {
      i++;
      const out: Record<string, unknown> = {};
      space();
      if (text[i] === "}") {
        i++;
        return out;
      }
      for (;;) {
        space();
        const key = string();
        space();
        if (text[i++] !== ":") fail();
        define(out, key, value());
        space();
        const next = text[i++];
        if (next === "}") return out;
        if (next !== ",") fail();
      }
    }
    if (c === "[") {
      i++;
      const out: unknown[] = [];
      space();
      if (text[i] === "]") {
        i++;
        return out;
      }
      for (;;) {
        out.push(value());
        space();
        const next = text[i++];
        if (next === "]") return out;
        if (next !== ",") fail();
      }
    }
    if (c === '"') return string();
    if (c === "t") return literal("true", true);
    if (c === "f") return literal("false", false);
    if (c === "n") return literal("null", null);
    const number = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/.exec(text.slice(i));
    if (!number) return fail();
    i += number[0].length;
    return Number(number[0]);
  };
  const result = value();
  space();
  if (i !== text.length) fail();
  return result;
}

test("(why the oracle is not JSON.parse) V8 reads an escaped key wrongly after a key with a backslash", () => {
  const keys = (text: string) => Object.keys(JSON.parse(text));
  keys('{"w0":1,"\\\\":2}');
  const misread = keys('{"w0":1,"\\n":2}')[1] !== "\n";
  // Reported, not asserted: the day V8 reads it right this still passes.
  if (misread)
    console.log("JSON.parse misreads escaped keys here (V8 bug); the reference parser is the oracle");
  assert.deepEqual(Object.keys(parse('{"w0":1,"\\n":2}') as object), ["w0", "\n"]);
});
