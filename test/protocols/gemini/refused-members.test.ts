// Reading a Gemini model's refusal of a setting (src/protocols/gemini/refused-members.ts).

import assert from "node:assert/strict";
import { test } from "node:test";
import { refusedMember } from "../../../src/protocols/gemini/refused-members.ts";

const gemini = (message: string, status = "INVALID_ARGUMENT") => ({ error: { code: 400, message, status } });
const PENALTIES = ["generationConfig.presencePenalty", "generationConfig.frequencyPenalty"];
const LOGPROBS = ["generationConfig.responseLogprobs", "generationConfig.logprobs"];

test("Gemini's refusals name a setting: each member it may mean", () => {
  for (const [message, members] of [
    ["Penalty is not enabled for models/gemini-2.5-flash", PENALTIES],
    ["Penalty is not enabled for this model", PENALTIES],
    ["Logprobs is not enabled for models/gemini-2.5-pro", LOGPROBS],
    ["Unable to submit request because Logprobs is not supported for this model.", LOGPROBS],
    ["Logprobs is not supported for the current model", LOGPROBS],
    ["thinking_config is not supported.", ["generationConfig.thinkingConfig"]],
    [
      "Thinking is not enabled for models/gemini-2.0-flash-preview-image-generation",
      ["generationConfig.thinkingConfig"],
    ],
    [
      "Unable to submit request because thinking is not supported by this model. Learn more: https://cloud.google.com/vertex-ai/generative-ai/docs/model-reference/gemini",
      ["generationConfig.thinkingConfig"],
    ],
    ["Thinking level is not supported for this model.", ["generationConfig.thinkingConfig.thinkingLevel"]],
    [
      "Unable to submit request because Thinking_config.include_thoughts is only enabled when thinking is enabled.. Learn more: https://cloud.google.com/vertex-ai/generative-ai/docs/model-reference/gemini",
      ["generationConfig.thinkingConfig.includeThoughts"],
    ],
  ] as const)
    assert.deepEqual(refusedMember(400, gemini(message)), { members, valueOnly: false }, message);
});

test("other Gemini errors are not refusals of a setting", () => {
  assert.equal(refusedMember(400, gemini("The thinking budget (52428) is invalid.")), undefined);
  assert.equal(refusedMember(400, gemini("Request contains an invalid argument.")), undefined);
  assert.equal(
    refusedMember(429, gemini("Penalty is not enabled for models/x", "RESOURCE_EXHAUSTED")),
    undefined,
  );
  assert.equal(refusedMember(400, "Penalty is not enabled for models/x"), undefined);
  assert.equal(refusedMember(400, { error: "Penalty is not enabled for models/x" }), undefined);
});
