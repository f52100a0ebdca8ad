// Reading a Claude model's refusal of temperature and top_p together
// (src/protocols/anthropic/refused-members.ts).

import assert from "node:assert/strict";
import { test } from "node:test";
import { refusedMember } from "../../../src/protocols/anthropic/refused-members.ts";

const claude = (message: string) => ({ type: "error", error: { type: "invalid_request_error", message } });

test("temperature and top_p refused together: top_p is left out, beside temperature only", () => {
  for (const message of [
    "`temperature` and `top_p` cannot both be specified for this model. Please use only one.",
    "temperature and top_p cannot both be specified for this model. Please use only one.",
  ])
    assert.deepEqual(
      refusedMember(400, claude(message)),
      { members: ["top_p"], valueOnly: false, alongside: "temperature" },
      message,
    );
});

test("max_tokens over the model's output limit: the refusal names the limit", () => {
  assert.deepEqual(
    refusedMember(
      400,
      claude(
        "max_tokens: 64000 > 32000, which is the maximum allowed number of output tokens for claude-opus-4-20250514",
      ),
    ),
    { members: ["max_tokens"], valueOnly: false, limit: 32000 },
  );
});

test("other Claude errors are not refusals of a member", () => {
  assert.equal(refusedMember(400, claude("max_tokens: Field required")), undefined);
  assert.equal(refusedMember(400, claude("top_k: Extra inputs are not permitted")), undefined);
  assert.equal(
    refusedMember(500, claude("`temperature` and `top_p` cannot both be specified for this model.")),
    undefined,
  );
  assert.equal(refusedMember(400, "`temperature` and `top_p` cannot both be specified"), undefined);
});
