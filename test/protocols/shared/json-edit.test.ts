import assert from "node:assert/strict";
import { describe, test } from "node:test";
import {
  editJson,
  editJsonMember,
  type OpeningMemo,
  setMembers,
  topLevelMembers,
} from "../../../src/protocols/shared/json-edit.ts";

describe("editJson", () => {
  test("replaces a top-level value and leaves every other byte alone", () => {
    const text =
      '{"model": "local/x", "n": 1.0, "big": 12345678901234567890, "nested": {"model": "keep"}, "s": "a\\"}b"}';
    const out = editJson(text, { set: { model: '"gpt-4.1"' } });
    assert.equal(
      out,
      '{"model": "gpt-4.1", "n": 1.0, "big": 12345678901234567890, "nested": {"model": "keep"}, "s": "a\\"}b"}',
    );
  });

  test("fill adds a member only when absent, keeping one present, wherever it is", () => {
    const fill = { system_fingerprint: "null" };
    assert.equal(editJson('{"id":"a","x":1}', { fill }), '{"id":"a","x":1,"system_fingerprint":null}');
    assert.equal(editJson("{}", { fill }), '{"system_fingerprint":null}');
    const kept = '{"id":"a","choices":[{"system_fingerprint":1}],"system_fingerprint":"fp_1"}';
    assert.equal(editJson(kept, { fill }), kept);
    // Beside a set: the scan for the set's members does not stop before the member filled.
    assert.equal(
      editJson('{"id":"a","model":"m","system_fingerprint":"fp_2"}', { set: { id: '"g"' }, fill }),
      '{"id":"g","model":"m","system_fingerprint":"fp_2"}',
    );
    assert.equal(
      editJson('{"id":"a","model":"m"}', { set: { id: '"g"' }, fill }),
      '{"id":"g","model":"m","system_fingerprint":null}',
    );
  });

  test("removes members at the start, middle and end, keeping the object valid", () => {
    const text =
      '{"provider": {"a": [1, {"b": "]"}]}, "model": "m", "usage": {"include": true}, "x": 1, "metadata": {}}';
    const out = editJson(text, { remove: ["provider", "usage", "metadata"] });
    assert.deepEqual(JSON.parse(out), { model: "m", x: 1 });
    assert.equal(out, '{"model": "m", "x": 1}');
  });

  test("removes neighbouring members, the last two included, without a stray comma", () => {
    const text = '{"model":"m","model_routing_config":{"available_models":["a"]},"provider":{"routing":{}}}';
    const out = editJson(text, { set: { model: '"u"' }, remove: ["provider", "model_routing_config"] });
    assert.equal(out, '{"model":"u"}');
  });

  test("finds keys spelled with characters a pattern gives meaning to (the quick search takes them literally)", () => {
    const text = '{"x+":1,"a.c":2,"(y)":3,"[z]":4,"\\\\d":5,"keep":6}';
    assert.equal(editJson(text, { remove: ["x+", "a.c", "(y)", "[z]", "\\d"] }), '{"keep":6}');
    assert.equal(editJson('{"xx":1,"abc":2}', { remove: ["x+", "a.c"] }), '{"xx":1,"abc":2}');
    // Set, after a first member that matches nothing: the rest is still searched for a second spelling.
    assert.equal(editJson('{"x+":1,"n":0,"x+":2}', { set: { "x+": "9" } }), '{"x+":9,"n":0,"x+":9}');
  });

  test("one search finds every member to remove, whatever the list holds (repeats, absent keys, escapes)", () => {
    const text = '{"a":1,"provider":{"x":"usage"},"b":2,"usage":{},"c":3}';
    const remove = ["provider", "absent", "usage", "provider", "reasoning"];
    assert.equal(editJson(text, { remove }), '{"a":1,"b":2,"c":3}');
    // The one found written with an escape: every name is looked for in the members themselves.
    const escaped = '{"a":1,"\\u0075sage":{},"provider":null,"b":2}';
    assert.equal(editJson(escaped, { remove }), '{"a":1,"b":2}');
    // A name only inside a value is no member.
    assert.equal(editJson('{"a":"provider","b":["usage"]}', { remove }), '{"a":"provider","b":["usage"]}');
  });

  test("a long list of members to remove (a relay dropping what a vendor refuses) removes the same ones", () => {
    const body: Record<string, unknown> = { model: "m", messages: [] };
    for (let i = 0; i < 40; i++) body[`k${i}`] = { n: `k${i + 1}` };
    const keys = Object.keys(body).filter((key) => key.startsWith("k"));
    // One spelled with an escape, and names that occur only inside values.
    const text = JSON.stringify(body).replace('"k7":', '"\\u006b7":');
    const remove = [...keys, "absent"];
    assert.equal(editJson(text, { set: { model: '"u"' }, remove }), '{"model":"u","messages":[]}');
    assert.equal(
      editJson(text, { remove: keys.slice(0, 39) }),
      '{"model":"m","messages":[],"k39":{"n":"k40"}}',
    );
  });

  test("removes every member, or alternate ones, leaving valid JSON", () => {
    assert.equal(editJson('{ "a": 1, "b": [2] }', { remove: ["a", "b"] }), "{  }");
    const out = editJson('{"a":1,"b":2,"c":3,"d":4,"e":5}', { remove: ["a", "c", "e"] });
    assert.equal(out, '{"b":2,"d":4}');
  });

  test("stops scanning once the members to set are found, and still adds absent ones", () => {
    const chunk = '{"id":"x","model":"m","choices":[{"delta":{"content":"{\\"id\\":1}"}}],"usage":null}';
    assert.equal(
      editJson(chunk, { set: { id: '"gen"', model: '"p/m"' } }),
      '{"id":"gen","model":"p/m","choices":[{"delta":{"content":"{\\"id\\":1}"}}],"usage":null}',
    );
    assert.equal(editJson('{"a":1}', { set: { a: "2", z: "3" } }), '{"a":2,"z":3}');
  });

  test("adds a member that is absent, also to an empty object", () => {
    assert.equal(editJson('{"a":1}', { set: { b: "true" } }), '{"a":1,"b":true}');
    assert.equal(editJson("{ }", { set: { b: "2" } }), '{ "b":2}');
    // Whitespace before the object (a body as a client wrote it) is not a member to put a comma after.
    assert.equal(editJson(" \n{}", { set: { b: "2" } }), ' \n{"b":2}');
    assert.equal(editJson("\t{ }\n", { fill: { c: "3" } }), '\t{ "c":3}\n');
    assert.equal(editJson(' {"x":1}', { set: { b: "2" }, remove: ["x"] }), ' {"b":2}');
  });

  test("removes a member whose key is spelled with \\u escapes", () => {
    assert.equal(editJson('{"a":1,"\\u0070rovider":{"x":1}}', { remove: ["provider"] }), '{"a":1}');
  });

  test("removes a member whose key JSON writes with an escape (a backslash, a quote): it was kept", () => {
    assert.equal(editJson('{"a\\\\b":1,"c":2}', { remove: ["a\\b"] }), '{"c":2}');
    assert.equal(editJson('{"c":2,"a\\"b":1}', { remove: ['a"b'] }), '{"c":2}');
    assert.equal(editJson('{"a\\/b":1,"c":2}', { remove: ["a/b"] }), '{"c":2}');
  });

  test("a key written twice is set and removed everywhere it appears: the first one was left as sent", () => {
    // A client's body: parsers disagree on which duplicate wins, so after the edit none is unedited.
    const body = '{"model":"client/a","messages":[],"model":"client/b","provider":{"x":1},"provider":2}';
    assert.equal(
      editJson(body, { set: { model: '"up"' }, remove: ["provider"] }),
      '{"model":"up","messages":[],"model":"up"}',
    );
    assert.equal(
      editJson('{"model":"a","n":1,"model":"b"}', { set: { model: '"up"' } }),
      '{"model":"up","n":1,"model":"up"}',
    );
    assert.equal(
      editJson('{"model":"a","\\u006dodel":"b"}', { set: { model: '"up"' } }),
      '{"model":"up","\\u006dodel":"up"}',
    );
  });

  test("a body of megabytes edits the same: members listed once, not searched for through the text", () => {
    const long = "word ".repeat(300_000); // 1.5 MB: past the length where members are listed
    const text =
      `{"model":"a","\\u0075sage":1,"messages":[{"role":"user","content":"${long} \\"usage\\":2 \\"model\\":3"}],` +
      `"provider":{"order":["x"]},"model":"b","reasoning":null}`;
    const out = editJson(text, {
      set: { model: '"m"' },
      remove: ["usage", "provider", "reasoning", "absent"],
    });
    const parsed = JSON.parse(out);
    assert.deepEqual(Object.keys(parsed), ["model", "messages"]);
    assert.equal(parsed.model, "m");
    assert.equal(parsed.messages[0].content, `${long} "usage":2 "model":3`);
    assert.equal(out.match(/"model":"m"/g)?.length, 2, "both spellings of the key written twice are set");
    const untouched = `{"messages":[{"content":"${long}"}]}`;
    assert.equal(editJson(untouched, { remove: ["usage"] }), untouched);
  });

  test("returns the same text when nothing applies", () => {
    const text = '{"a":1}';
    assert.equal(editJson(text, { remove: ["z"] }), text);
  });

  test("edits the object inside a member", () => {
    const text =
      '{"type":"message_start","message":{"id":"msg_1","model":"claude","usage":{"input_tokens":3}}}';
    const out = editJsonMember(text, "message", { set: { id: '"gen-1"', model: '"anthropic/claude"' } });
    assert.equal(
      out,
      '{"type":"message_start","message":{"id":"gen-1","model":"anthropic/claude","usage":{"input_tokens":3}}}',
    );
  });

  test("reports the spans of top-level members", () => {
    assert.equal(topLevelMembers('{"a": [1,2]}').get("a")?.valueStart, 6);
  });

  test("rejects what is not a JSON object", () => {
    assert.throws(() => editJson("[1]", { set: { a: "1" } }), SyntaxError);
    assert.throws(() => editJson('{"a": "unterminated', { set: { a: "1" } }), SyntaxError);
  });
});

describe("setMembers (a stream's events, edited with the opening of the last one reused)", () => {
  const set = { id: '"gen-1"', model: '"prov/m"' };
  const chunk = (id: string, model: string, rest: string) =>
    `{"id":"${id}","object":"chat.completion.chunk","created":1,"model":"${model}",${rest}}`;

  test("every event comes out as editJson makes it; a repeated opening is reused", () => {
    const memo: OpeningMemo = {};
    const events = [
      chunk("c1", "m", '"choices":[{"delta":{"content":"He"}}]'),
      chunk("c1", "m", '"choices":[{"delta":{"content":"llo"}}]'),
      chunk("c1", "m", '"choices":[],"usage":{"prompt_tokens":3}'),
      chunk("c2", "m", '"choices":[]'),
      chunk("c2", "m2", '"choices":[]'),
      '{"model":"m","id":"c1"}',
      '{"id":"c1","object":"x"}',
    ];
    for (const text of events) assert.equal(setMembers(text, set, memo), editJson(text, { set }), text);
  });

  test("the opening reaches past the last value, so a longer number is not taken for it", () => {
    const memo: OpeningMemo = {};
    const numeric = { n: "7" };
    assert.equal(setMembers('{"n":1,"a":1}', numeric, memo), '{"n":7,"a":1}');
    assert.equal(setMembers('{"n":12,"a":1}', numeric, memo), '{"n":7,"a":1}');
    assert.equal(setMembers('{"n":1}', numeric, memo), '{"n":7}');
    assert.equal(setMembers('{"n":1 ,"b":2}', numeric, memo), '{"n":7 ,"b":2}');
  });

  test("an absent member is added at the end and leaves the memo alone", () => {
    const memo: OpeningMemo = {};
    assert.equal(setMembers('{"id":"c"}', set, memo), '{"id":"gen-1","model":"prov/m"}');
    assert.equal(memo.opening, undefined);
  });
});

test("editJsonArrayItems edits each item of an array member in place, keeping the bytes around them", async () => {
  const { editJsonArrayItems } = await import("../../../src/protocols/shared/json-edit.ts");
  const text = '{"a":1, "choices": [ {"x":1} ,{"x":2}],"z":[]}';
  const out = editJsonArrayItems(text, "choices", (item) => item.replace('"x"', '"y"'));
  assert.equal(out, '{"a":1, "choices": [ {"y":1} ,{"y":2}],"z":[]}');
  assert.equal(
    editJsonArrayItems('{"choices":[]}', "choices", () => "X"),
    '{"choices":[]}',
  );
  assert.equal(
    editJsonArrayItems('{"choices":{}}', "choices", () => "X"),
    '{"choices":{}}',
  );
});

test("appendJsonArrayItem adds an item at the end of an array member, empty or not", async () => {
  const { appendJsonArrayItem } = await import("../../../src/protocols/shared/json-edit.ts");
  assert.equal(appendJsonArrayItem('{"m":[1, 2 ],"x":0}', "m", "3"), '{"m":[1, 2 ,3],"x":0}');
  assert.equal(appendJsonArrayItem('{"m":[ ]}', "m", '{"a":1}'), '{"m":[ {"a":1}]}');
});
