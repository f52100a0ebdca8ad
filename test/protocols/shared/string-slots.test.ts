import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { StringSlots } from "../../../src/protocols/shared/string-slots.ts";

const delta = (piece: string) =>
  `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":${JSON.stringify(piece)}}}`;
const template = () => StringSlots.learn(delta("Hello"), ["Hello"]);

/** Pieces that need JSON escapes, or are not ASCII: read as JSON.parse reads them. */
const AWKWARD = [
  'say "hi"',
  "back\\slash",
  "line\nbreak\ttab\r",
  "\u0001\u001f control",
  "é ü 日本語",
  "emoji 😀 and ❤️",
  "\u2028\u2029 separators",
  "lone \ud800 surrogate",
  "",
  '","index":1,"x":"',
];

describe("StringSlots", () => {
  test("reads the piece of an event that is the template but for it, as JSON.parse does", () => {
    const slots = template();
    assert.ok(slots);
    for (const piece of ["Hello", " word1", ...AWKWARD]) {
      const text = delta(piece);
      assert.equal(slots.read(text), JSON.parse(text).delta.text, JSON.stringify(piece));
    }
  });

  test("reads escapes JSON.stringify does not write (\\u00e9, \\/) as JSON.parse does", () => {
    const slots = template();
    for (const raw of ["caf\\u00e9", "a\\/b", "\\ud83d\\ude00", '\\\\\\"']) {
      const text = `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"${raw}"}}`;
      assert.equal(slots?.read(text), JSON.parse(text).delta.text, raw);
    }
  });

  test("anything else is not read (the caller parses it): other bytes, a broken string, more after", () => {
    const slots = template();
    const hello = delta("Hello");
    for (const text of [
      hello.replace('"index":0', '"index":1'),
      hello.replace("text_delta", "thinking_delta"),
      `${hello} `,
      ` ${hello}`,
      hello.slice(0, -1),
      // An unescaped quote ends the string early: the rest is not the template.
      '{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"a","text":"b"}}',
      // Not JSON: a raw control character, a bad escape, a string left open.
      '{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"a\nb"}}',
      '{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"a\\xb"}}',
      '{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"a\\"}}',
      "",
    ])
      assert.equal(slots?.read(text), undefined, text);
  });

  test("is learned only where the value's place is certain", () => {
    // A backslash: the value may be written otherwise than as itself.
    assert.equal(StringSlots.learn(delta('a"b'), ['a"b']), undefined);
    // The value's quoted form occurs twice (here as the type's value too).
    assert.equal(StringSlots.learn(delta("text_delta"), ["text_delta"]), undefined);
    assert.equal(StringSlots.learn(delta("index"), ["index"]), undefined);
    // Absent.
    assert.equal(StringSlots.learn(delta("Hello"), ["Bye"]), undefined);
  });

  test("slots the caller does not read (OpenAI's obfuscation) may come before or after the read one", () => {
    const chunk = (content: string, pad: string, padFirst: boolean) =>
      padFirst
        ? `{"obfuscation":${JSON.stringify(pad)},"choices":[{"delta":{"content":${JSON.stringify(content)}}}]}`
        : `{"choices":[{"delta":{"content":${JSON.stringify(content)}}}],"obfuscation":${JSON.stringify(pad)}}`;
    for (const padFirst of [true, false]) {
      const slots = StringSlots.learn(chunk("Hi", "xY3", padFirst), ["Hi", "xY3"]);
      assert.ok(slots);
      assert.equal(slots.read(chunk(" there", "Q", padFirst)), " there");
      assert.equal(slots.read(chunk('"quoted"\n', "", padFirst)), '"quoted"\n');
      // The unread slot must still be a JSON string.
      assert.equal(slots.read(chunk("x", "a", padFirst).replace('"a"', '"a\nb"')), undefined);
    }
  });
});

describe("what a template and its pieces keep alive", () => {
  test("not the network read they were cut from (V8 keeps a slice as a view into its string)", () => {
    setFlagsFromString("--expose-gc");
    const gc = runInNewContext("gc") as () => void;
    const kept: unknown[] = [];
    gc();
    const before = process.memoryUsage().heapUsed;
    for (let i = 0; i < 20; i++) {
      // A 1 MB read whose last event is a text delta: the event's data is a slice of the read.
      const read = `${"x".repeat(1_000_000)}${i}\n\n${delta("Hello")}${delta(` piece number ${i}`)}`;
      const first = read.slice(read.indexOf("{"), read.indexOf("}}{") + 2);
      const second = read.slice(read.indexOf("}}{") + 2);
      const slots = StringSlots.learn(first, ["Hello"]);
      kept.push(slots, slots?.read(second));
    }
    gc();
    const grown = process.memoryUsage().heapUsed - before;
    assert.ok(grown < 5_000_000, `${(grown / 1e6).toFixed(1)} MB kept for 20 templates and pieces`);
    assert.equal(kept[1], " piece number 0");
  });
});
