// The table joining each protocol's names (src/protocols/names.ts): every protocol module is in it
// once, each name leads back to the same protocol, and docs/architecture.md §1 shows the same rows.

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { protocols } from "../../src/protocols/index.ts";
import {
  apiOf,
  PROTOCOL_NAMES,
  protocolOfApi,
  protocolOfConfig,
  UPSTREAM_ONLY_PROTOCOL,
} from "../../src/protocols/names.ts";

test("every protocol module has one row, and each of its names leads back to it", () => {
  assert.deepEqual(PROTOCOL_NAMES.map((r) => r.protocol).sort(), Object.keys(protocols).sort());
  for (const row of PROTOCOL_NAMES) {
    assert.equal(protocols[row.protocol].name, row.protocol);
    assert.equal(apiOf(row.protocol), row.api);
    assert.equal(protocolOfApi(row.api), row.protocol);
    assert.equal(protocolOfConfig(row.config), row.protocol);
  }
});

test("the names the outside sees: config `openai` is the chat protocol, recorded as chat.completions", () => {
  assert.equal(protocolOfConfig("openai"), "openai-chat");
  assert.equal(apiOf("openai-chat"), "chat.completions");
  assert.equal(apiOf("gemini"), "generateContent");
  assert.equal(protocolOfApi("responses"), "openai-responses");
});

test("docs/architecture.md's table of names has the same rows as PROTOCOL_NAMES", () => {
  const doc = readFileSync(new URL("../../docs/architecture.md", import.meta.url), "utf8");
  const section = doc.slice(doc.indexOf("### One protocol, its names"), doc.indexOf("## 2. "));
  const rows = [...section.matchAll(/^\| (?!Wire protocol|---)(.+) \|$/gm)].map((m) =>
    m[1].split(" | ").map((cell) => cell.replaceAll("`", "")),
  );
  const expected = PROTOCOL_NAMES.map((r) => [r.wire, r.protocol, r.config, r.api, r.routes]);
  assert.deepEqual(rows.slice(0, expected.length), expected);
  const converse = rows[expected.length];
  assert.ok(converse[0].startsWith(UPSTREAM_ONLY_PROTOCOL.wire));
  assert.equal(converse[1], UPSTREAM_ONLY_PROTOCOL.protocol);
  assert.ok(converse[2].includes(UPSTREAM_ONLY_PROTOCOL.platform));
});
