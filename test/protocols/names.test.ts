// The table joining each protocol's three names (src/protocols/names.ts): every protocol module is in
// it once, and each name leads back to the same protocol.

import assert from "node:assert/strict";
import { test } from "node:test";
import { protocols } from "../../src/protocols/index.ts";
import { apiOf, PROTOCOL_NAMES, protocolOfApi, protocolOfConfig } from "../../src/protocols/names.ts";

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
