// Reading an OpenAI-compatible upstream's refusal of a member, and editing it out of a body
// (src/protocols/shared/refused-members.ts).

import assert from "node:assert/strict";
import { test } from "node:test";
import {
  hasMember,
  memberValue,
  refusedMember,
  removeMember,
} from "../../../src/protocols/shared/refused-members.ts";

const openai = (param: unknown, code: unknown, message: string) => ({
  error: { message, type: "invalid_request_error", param, code },
});

const whole = (member: string) => ({ members: [member], valueOnly: false });
const valueOnly = (member: string) => ({ members: [member], valueOnly: true });

test("OpenAI's refusals name the member in param, by code or by message, the value alone or not", () => {
  const cases: Array<[unknown, unknown, string, object]> = [
    [
      "stop",
      "unsupported_parameter",
      "Unsupported parameter: 'stop' is not supported with this model.",
      whole("stop"),
    ],
    [
      "temperature",
      "unsupported_value",
      "Unsupported value: 'temperature' does not support 0 with this model. Only the default (1) value is supported.",
      valueOnly("temperature"),
    ],
    [
      "temperature",
      null,
      "Unsupported parameter: 'temperature' is not supported with this model.",
      whole("temperature"),
    ],
    [
      "reasoning_effort",
      null,
      "Unsupported value: 'reasoning_effort' does not support 'minimal' with this model.",
      valueOnly("reasoning_effort"),
    ],
    [
      "reasoning.effort",
      "unsupported_parameter",
      "Unsupported parameter: 'reasoning.effort' is not supported with this model.",
      whole("reasoning.effort"),
    ],
  ];
  for (const [param, code, message, expected] of cases)
    assert.deepEqual(refusedMember(400, openai(param, code, message)), expected, message);
});

test("OpenAI's refusal of an output limit over the model's names the limit", () => {
  assert.deepEqual(
    refusedMember(
      400,
      openai(
        "max_tokens",
        "invalid_value",
        "max_tokens is too large: 32000. This model supports at most 16384 completion tokens, whereas you provided 32000.",
      ),
    ),
    { members: ["max_tokens"], valueOnly: false, limit: 16384 },
  );
  assert.deepEqual(
    refusedMember(
      400,
      openai(
        null,
        null,
        "max_completion_tokens is too large: 200000. This model supports at most 128000 completion tokens, whereas you provided 200000.",
      ),
    ),
    { members: ["max_completion_tokens"], valueOnly: false, limit: 128000 },
  );
});

test("xAI's refusals name the member in camel case, in either of its wordings", () => {
  assert.deepEqual(
    refusedMember(400, {
      code: "invalid-argument",
      error: "Model grok-4 does not support parameter presencePenalty.",
    }),
    whole("presence_penalty"),
  );
  assert.deepEqual(
    refusedMember(400, {
      code: "Client specified an invalid argument",
      error: "Argument not supported on this model: reasoningEffort",
    }),
    whole("reasoning_effort"),
  );
  assert.deepEqual(refusedMember(400, { error: "Argument not supported: stop" }), whole("stop"));
});

test("other errors are not refusals of a member", () => {
  // Another status, another code, no param, a param that is not a member path.
  assert.equal(
    refusedMember(422, openai("stop", "unsupported_parameter", "Unsupported parameter")),
    undefined,
  );
  assert.equal(
    refusedMember(400, openai("messages", "invalid_value", "Invalid value for 'messages'.")),
    undefined,
  );
  assert.equal(
    refusedMember(400, openai(null, "unsupported_parameter", "Unsupported parameter: x")),
    undefined,
  );
  assert.equal(
    refusedMember(400, openai("messages[0].content", "unsupported_value", "Unsupported value")),
    undefined,
  );
  assert.equal(refusedMember(400, openai(7, "unsupported_value", "Unsupported value")), undefined);
  assert.equal(refusedMember(400, "Unsupported parameter: 'stop'"), undefined);
  assert.equal(refusedMember(400, { error: "Invalid model" }), undefined);
  assert.equal(refusedMember(400, null), undefined);
});

test("a member is removed at its path, with an object it leaves empty", () => {
  const body = { a: 1, reasoning: { effort: "high" }, text: { format: { type: "text" }, verbosity: "low" } };
  assert.equal(hasMember(body, "reasoning.effort"), true);
  assert.equal(memberValue(body, "reasoning.effort"), "high");
  assert.equal(memberValue(body, "reasoning.summary"), undefined);
  removeMember(body, "reasoning.effort");
  removeMember(body, "text.verbosity");
  assert.deepEqual(body, { a: 1, text: { format: { type: "text" } } });
  assert.equal(hasMember(body, "reasoning.effort"), false);
  removeMember(body, "missing.deeper");
  removeMember(body, "a.b");
  assert.deepEqual(body, { a: 1, text: { format: { type: "text" } } });
  assert.equal(hasMember(body, "toString"), false, "only a body's own members");
  assert.equal(hasMember(body, "__proto__.constructor"), false);
});
