// An upstream's 529 ("overloaded", the messages protocol's own status) reaches chat-completions and
// content-generation clients as the 503 their SDKs know; messages clients keep 529.

import assert from "node:assert/strict";
import { test } from "node:test";
import { protocols } from "../../src/protocols/index.ts";

const upstream529 = protocols.anthropic.decodeError(
  529,
  { type: "error", error: { type: "overloaded_error", message: "Overloaded" } },
  {},
);

test("chat and content-generation clients get 503, messages clients 529", () => {
  assert.equal(upstream529.status, 529);
  assert.equal(protocols["openai-chat"].encodeError(upstream529).status, 503);
  const gemini = protocols.gemini.encodeError(upstream529);
  assert.equal(gemini.status, 503);
  assert.deepEqual(gemini.body, { error: { code: 503, message: "Overloaded", status: "UNAVAILABLE" } });
  assert.equal(protocols.anthropic.encodeError(upstream529).status, 529);
});
