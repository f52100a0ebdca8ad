import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { jsonString } from "../../../src/protocols/shared/text.ts";
import { AWKWARD_PIECES } from "../../support/streams.ts";

describe("jsonString", () => {
  test("is JSON.stringify's text for every UTF-16 code unit alone and between letters", () => {
    for (let code = 0; code <= 0xffff; code++) {
      const c = String.fromCharCode(code);
      assert.equal(jsonString(c), JSON.stringify(c));
      assert.equal(jsonString(`a${c}b`), JSON.stringify(`a${c}b`));
    }
  });

  test("is JSON.stringify's text for pieces that need care, paired surrogates and the empty string", () => {
    for (const piece of [...AWKWARD_PIECES, "😀", "a😀\ud800", "", " word1", "Hello"])
      assert.equal(jsonString(piece), JSON.stringify(piece));
  });
});
