// The Responses relay's request edit: the client's body goes up as sent but for the model, and, for
// an answer the gateway keeps (UpstreamTarget.kept) from a model that reasons, `include` asks for
// reasoning's encrypted content once (src/protocols/openai-responses/relay.ts).

import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { relays } from "../../../src/protocols/relays.ts";
import { Unsent } from "../../../src/protocols/shared/dropped-fields.ts";
import type { UpstreamTarget } from "../../../src/protocols/types.ts";
import { decode } from "./helpers.ts";

const ENCRYPTED = "reasoning.encrypted_content";

function upstreamBody(raw: string, target: Partial<UpstreamTarget> = {}): string {
  const full: UpstreamTarget = { model: "gpt-5", stream: false, ...target };
  return relays["openai-responses"].request(raw, decode(JSON.parse(raw)), full, new Unsent()).body;
}

const kept = { kept: true, reasoningModel: true };

describe("the Responses relay asks for reasoning's encrypted content only for an answer it keeps", () => {
  test("not kept: the body goes up as sent but for the model", () => {
    const raw = '{"model":"fr/gpt5","input":"Hi","store":false}';
    assert.equal(upstreamBody(raw, { reasoningModel: true }), '{"model":"gpt-5","input":"Hi","store":false}');
  });

  test("kept, a model that reasons: include added, or merged into the client's once", () => {
    assert.deepEqual(JSON.parse(upstreamBody('{"model":"m","input":"Hi"}', kept)).include, [ENCRYPTED]);
    assert.deepEqual(JSON.parse(upstreamBody('{"model":"m","input":"Hi","include":null}', kept)).include, [
      ENCRYPTED,
    ]);
    // A key spelled with an escape is the same key: read, and replaced, as JSON.parse would.
    const escaped = '{"model":"m","input":"Hi","incl\\u0075de":["message.output_text.logprobs"]}';
    const body = JSON.parse(upstreamBody(escaped, kept));
    assert.deepEqual(body.include, ["message.output_text.logprobs", ENCRYPTED]);
    const asked = `{"model":"m","input":"Hi","include":["${ENCRYPTED}"]}`;
    assert.equal(upstreamBody(asked, kept), asked.replace('"m"', '"gpt-5"'));
  });

  test("kept, but no reasoning: reasoning off, or a model that does not reason and none asked", () => {
    const off = '{"model":"m","input":"Hi","reasoning":{"effort":"none"}}';
    assert.equal(JSON.parse(upstreamBody(off, kept)).include, undefined);
    const plain = '{"model":"m","input":"Hi"}';
    assert.equal(JSON.parse(upstreamBody(plain, { kept: true })).include, undefined);
    // Asked of a model the catalog does not mark: the client knows it reasons.
    const asked = '{"model":"m","input":"Hi","reasoning":{"effort":"low"}}';
    assert.deepEqual(JSON.parse(upstreamBody(asked, { kept: true })).include, [ENCRYPTED]);
  });
});
