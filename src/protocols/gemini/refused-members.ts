// Settings a Gemini model refuses. Gemini's models differ in what they take: the 2.5 and later
// models answer a penalty other than 0 with a 400 "Penalty is not enabled for models/…", most answer
// log probabilities with "Logprobs is not enabled for models/…" (or "… is not supported for this
// model"), a model that does not think answers a thinking config ("thinking_config is not
// supported.", "Thinking is not enabled for models/…"), and one before Gemini 3 a thinking level
// ("Thinking level is not supported for this model."), where other models of the same API take
// them. The refusal names the setting, not the member: each member it may mean is named, and the
// translated call leaves out those the request holds (src/providers/translated/refusals.ts).
// docs/translation.md §9, "Members a model refuses".

import type { Refusal } from "../shared/refused-members.ts";
import { isObject } from "../shared/validate.ts";
import type { OptionalMember } from "../types.ts";

/** Each refusal's message, and the members it may mean (the first that matches is read). */
const REFUSALS: ReadonlyArray<[RegExp, Refusal["members"]]> = [
  [
    /\bPenalty is not (?:enabled|supported) for\b/,
    ["generationConfig.presencePenalty", "generationConfig.frequencyPenalty"],
  ],
  [
    /\bLogprobs is not (?:enabled|supported) for\b/,
    ["generationConfig.responseLogprobs", "generationConfig.logprobs"],
  ],
  [/\bThinking level is not supported\b/i, ["generationConfig.thinkingConfig.thinkingLevel"]],
  [
    /\binclude_thoughts is only enabled when thinking is enabled\b/i,
    ["generationConfig.thinkingConfig.includeThoughts"],
  ],
  [
    /\b(?:thinking_config is not supported|Thinking is not enabled for|thinking is not supported by this model)\b/i,
    ["generationConfig.thinkingConfig"],
  ],
];

/**
 * The members a Gemini model refused, from its error answer: HTTP 400 `{"error": {"code": 400,
 * "message": "Penalty is not enabled for models/gemini-2.5-flash", "status": "INVALID_ARGUMENT"}}`.
 */
export function refusedMember(status: number, body: unknown): Refusal | undefined {
  if (status !== 400 || !isObject(body) || !isObject(body.error)) return undefined;
  const { message } = body.error;
  if (typeof message !== "string") return undefined;
  const members = REFUSALS.find(([pattern]) => pattern.test(message))?.[1];
  return members ? { members, valueOnly: false } : undefined;
}

/**
 * The members a model may refuse that the request can go without (UpstreamFace.optionalMembers):
 * the penalties, log probabilities and thinking settings (`REFUSALS` above).
 */
export const OPTIONAL_MEMBERS: ReadonlyMap<string, OptionalMember> = new Map<string, OptionalMember>([
  ["generationConfig.presencePenalty", { name: "presence_penalty" }],
  ["generationConfig.frequencyPenalty", { name: "frequency_penalty" }],
  ["generationConfig.responseLogprobs", { name: "logprobs", with: ["generationConfig.logprobs"] }],
  ["generationConfig.logprobs", { name: "logprobs" }],
  ["generationConfig.thinkingConfig", { name: "reasoning" }],
  ["generationConfig.thinkingConfig.thinkingLevel", { name: "reasoning" }],
  ["generationConfig.thinkingConfig.includeThoughts", { name: "reasoning" }],
]);
