// Settings a Claude model refuses. Claude Sonnet 4.5, Haiku 4.5, Opus 4.1 and later take either
// `temperature` or `top_p`, not both ("`temperature` and `top_p` cannot both be specified for this
// model. Please use only one.", a 400), where earlier models take both; and each model refuses a
// `max_tokens` over its own output limit, which the refusal names (the call goes with that limit). A translated request that
// carries both (OpenAI's and Gemini's clients often do) goes on without `top_p`, beside `temperature`
// only: alone, `top_p` still goes (src/providers/translated/refusals.ts). docs/translation.md §9,
// "Members a model refuses".

import type { Refusal } from "../shared/refused-members.ts";
import { isObject } from "../shared/validate.ts";
import type { LimitedMember, OptionalMember } from "../types.ts";

const BOTH_SAMPLING = /`?temperature`? and `?top_p`? cannot both be specified/;
/** `max_tokens: 64000 > 32000, which is the maximum allowed number of output tokens for claude-…` */
const OVER_LIMIT = /\bmax_tokens: \d+ > (\d+), which is the maximum allowed number of output tokens\b/;

/**
 * The member a Claude model refused, from its error answer: HTTP 400 `{"type": "error", "error":
 * {"type": "invalid_request_error", "message": "`temperature` and `top_p` cannot both be specified
 * for this model. Please use only one."}}`.
 */
export function refusedMember(status: number, body: unknown): Refusal | undefined {
  if (status !== 400 || !isObject(body) || !isObject(body.error)) return undefined;
  const { message } = body.error;
  if (typeof message !== "string") return undefined;
  const overLimit = OVER_LIMIT.exec(message);
  if (overLimit) return { members: ["max_tokens"], valueOnly: false, limit: Number(overLimit[1]) };
  if (!BOTH_SAMPLING.test(message)) return undefined;
  return { members: ["top_p"], valueOnly: false, alongside: "temperature" };
}

/**
 * The members a model may refuse that the request can go without (UpstreamFace.optionalMembers):
 * `top_p` beside `temperature` (`refusedMember` above).
 */
export const OPTIONAL_MEMBERS: ReadonlyMap<string, OptionalMember> = new Map<string, OptionalMember>([
  ["top_p", { name: "top_p" }],
]);

/**
 * The output limit, lowered to the model's when Claude names it ("max_tokens: 64000 > 32000, which is
 * the maximum allowed …"), and a thinking budget with it (it must stay below `max_tokens`).
 */
export const LIMITED_MEMBERS: ReadonlyMap<string, LimitedMember> = new Map([
  ["max_tokens", { below: "thinking.budget_tokens" }],
]);
