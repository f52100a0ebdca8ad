// The shape check that runs before a large body is parsed (src/gateway/inference.ts parseJson): it
// must count only real nesting and real members (not brackets or commas inside strings, escaped
// quotes included) and refuse a body too deep, or with an object too wide, without parsing it.

import assert from "node:assert/strict";
import { test } from "node:test";
import { costlyShape, parseJson, parseLongJson } from "../../src/gateway/request-body.ts";
import { GatewayError } from "../../src/ir/errors.ts";

const UNLIMITED = { depth: 1e9, members: 1e9, containers: 1e9 };
const nestsDeeperThan = (text: string, depth: number) =>
  costlyShape(text, { ...UNLIMITED, depth }) === "depth";

/** Nesting depth of a parsed value: what the scan must agree with. */
function depthOf(value: unknown): number {
  if (Array.isArray(value)) return 1 + Math.max(0, ...value.map(depthOf));
  if (value !== null && typeof value === "object")
    return 1 + Math.max(0, ...Object.values(value).map(depthOf));
  return 0;
}

test("brackets inside strings, and escaped quotes before them, do not count", () => {
  assert.equal(nestsDeeperThan('{"a":"[[[[{{{{"}', 1), false);
  assert.equal(nestsDeeperThan('{"a":"\\"[[[[\\\\"}', 1), false);
  assert.equal(nestsDeeperThan('{"a\\"[[":[[1]]}', 2), true);
  assert.equal(nestsDeeperThan('{"a\\"[[":[[1]]}', 3), false);
  assert.equal(nestsDeeperThan("[[],[],[[]]]", 2), true);
  assert.equal(nestsDeeperThan("[[],[],[[]]]", 3), false);
});

test("the scan agrees with the parsed depth over generated documents", () => {
  let seed = 7;
  const next = () => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return seed / 2 ** 31;
  };
  const texts = ['"', "\\", "[", "]", "{", "}", "é", "😀", "a"];
  const value = (depth: number): unknown => {
    const r = next();
    if (depth > 12 || r < 0.3)
      return Array.from(
        { length: Math.floor(next() * 6) },
        () => texts[Math.floor(next() * texts.length)],
      ).join("");
    if (r < 0.65) return Array.from({ length: Math.floor(next() * 4) }, () => value(depth + 1));
    return Object.fromEntries(
      Array.from({ length: Math.floor(next() * 4) }, (_, i) => [
        `${texts[i % texts.length]}${i}`,
        value(depth + 1),
      ]),
    );
  };
  for (let n = 0; n < 500; n++) {
    const v = value(0);
    const text = JSON.stringify(v);
    const depth = depthOf(v);
    assert.equal(nestsDeeperThan(text, depth), false, text);
    if (depth > 0) assert.equal(nestsDeeperThan(text, depth - 1), true, text);
  }
});

test("a large body nested past the limit is refused before it is parsed, naming the body", () => {
  const n = 1_250_000;
  const text = `{"model":"m","metadata":${"[".repeat(n)}${"]".repeat(n)}}`;
  assert.throws(
    () => parseJson(text),
    (err: unknown) =>
      err instanceof GatewayError && err.param === "body" && /nested too deeply/.test(err.message),
  );
  // A large body of ordinary depth parses as before.
  const wide = JSON.stringify({
    messages: Array.from({ length: 20_000 }, (_, i) => ({ role: "user", content: `m${i}` })),
  });
  assert.ok(wide.length > 256 * 1024);
  assert.equal((parseJson(wide) as { messages: unknown[] }).messages.length, 20_000);
});

test("an object with more members than the limit is refused; arrays and strings are not counted", () => {
  const members = (n: number) => `{${Array.from({ length: n }, (_, i) => `"k${i}":[1,2,3]`).join(",")}}`;
  const limits = { ...UNLIMITED, depth: 10, members: 100 };
  assert.equal(costlyShape(members(100), limits), undefined);
  assert.equal(costlyShape(members(101), limits), "members");
  // A nested object is counted on its own; the commas of its parent's arrays and strings are not.
  assert.equal(
    costlyShape(`{"a":[${members(100)},${members(100)}],"b":"${",".repeat(500)}"}`, limits),
    undefined,
  );
  assert.equal(costlyShape(`{"a":{"b":${members(101)}}}`, limits), "members");
  assert.equal(costlyShape(`[${"1,".repeat(5000)}1]`, limits), undefined);
});

test("a large body of 150,000 unknown keys is refused before it is parsed, naming the body", () => {
  const body: Record<string, unknown> = { contents: [{ role: "user", parts: [{ text: "Hello" }] }] };
  for (let i = 0; i < 150_000; i++) body[`unknown_${i}_🚀`] = i;
  assert.throws(
    () => parseJson(JSON.stringify(body)),
    (err: unknown) => err instanceof GatewayError && err.param === "body" && /members/.test(err.message),
  );
});

test("a body of more objects and arrays than the limit is refused; long strings are skipped whole", () => {
  const limits = { ...UNLIMITED, containers: 100 };
  const messages = (n: number) => JSON.stringify({ messages: Array.from({ length: n }, () => ({ a: [1] })) });
  // The body and its array are two; each message holds two more.
  assert.equal(costlyShape(messages(49), limits), undefined);
  assert.equal(costlyShape(messages(50), limits), "containers");
  // Brackets inside a long string (escaped quotes and backslashes too) are not containers.
  const text = `${"[{".repeat(500)}\\"x\\\\`;
  assert.equal(costlyShape(JSON.stringify({ s: text, t: [[]] }), limits), undefined);
  assert.equal(costlyShape(JSON.stringify({ s: "x".repeat(5_000_000) }), limits), undefined);
});

test("27 MB of 800,000 short messages is refused before it is parsed, naming the body", () => {
  const item = JSON.stringify({ role: "user", content: "Hello" });
  const text = `{"model":"m","messages":[${Array.from({ length: 800_000 }, () => item).join(",")}]}`;
  assert.throws(
    () => parseJson(text),
    (err: unknown) =>
      err instanceof GatewayError && err.param === "body" && /objects and arrays/.test(err.message),
  );
});

test("a long body is checked and parsed in two turns: other work runs between them", async () => {
  const text = JSON.stringify({ model: "m", messages: [{ role: "user", content: "x".repeat(2_000_000) }] });
  let ranBetween = false;
  setImmediate(() => {
    ranBetween = true;
  });
  const parsed = (await parseLongJson(text)) as { messages: Array<{ content: string }> };
  assert.ok(ranBetween, "a callback queued before the parse ran before it ended");
  assert.equal(parsed.messages[0]?.content.length, 2_000_000);
});

test("a long body is refused as parseJson refuses it: its shape before the turn, bad JSON after", async () => {
  const item = JSON.stringify({ role: "user", content: "Hello" });
  const costly = `{"model":"m","messages":[${Array.from({ length: 200_000 }, () => item).join(",")}]}`;
  await assert.rejects(
    parseLongJson(costly),
    (err: unknown) => err instanceof GatewayError && err.param === "body",
  );
  await assert.rejects(
    parseLongJson(`{"s":"${"x".repeat(2_000_000)}"`),
    (err: unknown) => err instanceof GatewayError && /not valid JSON/.test(err.message),
  );
});
