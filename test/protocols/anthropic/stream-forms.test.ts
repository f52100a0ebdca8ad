import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { textDeltaForm } from "../../../src/protocols/anthropic/stream-forms.ts";

describe("textDeltaForm", () => {
  test("the first blocks' forms are learned once for every stream, later ones each time", () => {
    assert.equal(textDeltaForm(0), textDeltaForm(0));
    assert.equal(textDeltaForm(7), textDeltaForm(7));
    assert.notEqual(textDeltaForm(8), textDeltaForm(8));
  });

  test("a shared form reads its block's deltas as the API writes them, and no other block's", () => {
    const delta = (index: number, text: string) =>
      JSON.stringify({ type: "content_block_delta", index, delta: { type: "text_delta", text } });
    for (const index of [0, 3, 12]) {
      const form = textDeltaForm(index);
      assert.equal(form?.read(delta(index, 'say "hi"')), 'say "hi"');
      assert.equal(form?.read(delta(index + 1, "x")), undefined);
    }
  });
});
