// What a model refused is remembered for an hour from its first refusal (src/providers/translated/refusals.ts):
// its calls are fitted at once meanwhile, and a provider that takes the member again gets it after.

import assert from "node:assert/strict";
import { test } from "node:test";
import { OPTIONAL_MEMBERS } from "../../src/protocols/openai-chat/refused-members.ts";
import { FittedBody, ModelRefusals, REMEMBERED_MS } from "../../src/providers/translated/refusals.ts";

/** The members a call to `model` keeps once what the model refused is left out. */
function fitted(refusals: ModelRefusals, model: string): string[] {
  const call = new FittedBody(
    { presence_penalty: 0.5, temperature: 0.2 },
    { optional: OPTIONAL_MEMBERS },
    false,
  );
  call.leaveOutRefused(refusals.of(model));
  return Object.keys(call.body as object).sort();
}

test("a refusal is remembered for an hour from the first, then forgotten with those learned since", () => {
  let now = 1_000_000;
  const refusals = new ModelRefusals(() => now);
  refusals.learn("m", { member: "presence_penalty", value: 0.5, valueOnly: false });
  assert.deepEqual(fitted(refusals, "m"), ["temperature"]);
  assert.deepEqual(fitted(refusals, "other"), ["presence_penalty", "temperature"], "per model");

  now += REMEMBERED_MS / 2;
  refusals.learn("m", { member: "temperature", value: 0.2, valueOnly: false });
  assert.deepEqual(fitted(refusals, "m"), []);

  now += REMEMBERED_MS / 2 - 1;
  assert.deepEqual(fitted(refusals, "m"), [], "still within the hour");
  now += 1;
  assert.deepEqual(fitted(refusals, "m"), ["presence_penalty", "temperature"], "the model is asked again");

  refusals.learn("m", { member: "temperature", value: 0.2, valueOnly: false });
  assert.deepEqual(fitted(refusals, "m"), ["presence_penalty"], "learned afresh");
});
