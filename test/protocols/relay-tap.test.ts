// A relayed whole answer is metered without decoding it: the relay's tap must read the same usage
// and finish reason as the protocol's full response decoder, on real-format responses.

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, test } from "node:test";
import { protocols } from "../../src/protocols/index.ts";
import { relays } from "../../src/protocols/relays.ts";
import type { ProtocolName } from "../../src/protocols/types.ts";

const fixture = (path: string) => readFileSync(new URL(`../fixtures/${path}`, import.meta.url), "utf8");

const cases: Array<[ProtocolName, string]> = [
  ["openai-chat", fixture("openai-chat/completion-tool-calls.json")],
  ["openai-chat", fixture("openai-chat/openrouter-completion-reasoning-signed.json")],
  ["anthropic", fixture("anthropic/message-thinking.json")],
  ["anthropic", fixture("anthropic/message-tool-use.json")],
  ["gemini", fixture("gemini/cached-usage.json")],
  ["gemini", fixture("gemini/function-call-signature.json")],
  ["gemini", fixture("gemini/thinking.json")],
  ["gemini", fixture("gemini/text.json")],
];

describe("relay tap", () => {
  for (const [name, text] of cases) {
    test(`${name}: same usage and finish reason as the full decoder (${text.slice(0, 40).replace(/\s+/g, " ")}…)`, () => {
      const full = protocols[name].decodeResponse(JSON.parse(text));
      const tapped = relays[name].tap(text);
      assert.deepEqual(tapped.usage, full.usage);
      assert.equal(tapped.finishReason, full.finishReason);
    });
  }

  test("a body that is not a JSON object throws", () => {
    for (const name of ["openai-chat", "anthropic", "gemini"] as const) {
      assert.throws(() => relays[name].tap("<html>bad gateway</html>"), SyntaxError);
    }
  });
});
