// Settings a Gemini model refuses. Gemini's models differ in what they take: the 2.5 and later
// models answer a penalty other than 0 with a 400 "Penalty is not enabled for models/…", and most
// answer log probabilities with "Logprobs is not enabled for models/…" (or "… is not supported for
// this model"), where other models of the same API take both. The refusal names the setting, not
// the member: each member it may mean is named, and the HTTP adapter leaves out those the request
// holds (src/providers/http/refusals.ts). docs/translation.md §9, "Members a model refuses".

import type { Refusal } from "../shared/refused-members.ts";
import { isObject } from "../shared/validate.ts";

const REFUSED_SETTING = /\b(Penalty|Logprobs) is not (?:enabled|supported) for\b/;

const MEMBERS: Record<string, Refusal["members"]> = {
  Penalty: ["generationConfig.presencePenalty", "generationConfig.frequencyPenalty"],
  Logprobs: ["generationConfig.responseLogprobs", "generationConfig.logprobs"],
};

/**
 * The members a Gemini model refused, from its error answer: HTTP 400 `{"error": {"code": 400,
 * "message": "Penalty is not enabled for models/gemini-2.5-flash", "status": "INVALID_ARGUMENT"}}`.
 */
export function refusedMember(status: number, body: unknown): Refusal | undefined {
  if (status !== 400 || !isObject(body) || !isObject(body.error)) return undefined;
  const { message } = body.error;
  const setting = typeof message === "string" ? REFUSED_SETTING.exec(message)?.[1] : undefined;
  return setting ? { members: MEMBERS[setting]!, valueOnly: false } : undefined;
}
