// The token counters' shared rules: an upstream answer without a whole non-negative count is refused
// naming the protocol's field, and only the fields a counter takes are sent to it.

import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { GatewayError } from "../../../src/ir/errors.ts";
import { countedFields, countIn } from "../../../src/protocols/shared/token-count.ts";

describe("countIn", () => {
  test("reads the count from the protocol's own field", () => {
    assert.equal(countIn({ input_tokens: 12 }, "input_tokens"), 12);
    assert.equal(countIn({ totalTokens: 0 }, "totalTokens"), 0);
  });

  for (const body of [{ input_tokens: -1 }, { input_tokens: 1.5 }, { input_tokens: "3" }, {}, null, [3]]) {
    test(`refuses ${JSON.stringify(body)} naming the field`, () => {
      assert.throws(
        () => countIn(body, "input_tokens"),
        (err) => err instanceof GatewayError && err.status === 400 && err.param === "input_tokens",
      );
    });
  }
});

test("countedFields keeps only the listed fields that are present", () => {
  const body = { model: "m", messages: [], max_tokens: 5, tools: undefined };
  assert.deepEqual(countedFields(body, ["model", "messages", "tools"]), { model: "m", messages: [] });
});
