// What a chat-completions model may refuse (the refusal itself is read by shared/refused-members.ts):
// the members a translated request can go without, and the output limit it can lower
// (src/providers/translated/refusals.ts; docs/translation.md §9, "Members a model refuses").

import { namedAsThemselves } from "../shared/refused-members.ts";
import type { LimitedMember, OptionalMember } from "../types.ts";

/**
 * The members a model may refuse that the request can go without (UpstreamFace.optionalMembers):
 * OpenAI's reasoning models refuse sampling settings other than their defaults and some refuse
 * `stop` (then cut by the gateway itself: src/ir/stop-sequences.ts); a model without reasoning
 * refuses `reasoning_effort`; xAI's models each refuse a few of the others.
 */
export const OPTIONAL_MEMBERS: ReadonlyMap<string, OptionalMember> = new Map<string, OptionalMember>([
  ...namedAsThemselves("temperature", "top_p", "presence_penalty", "frequency_penalty", "seed", "stop"),
  ...namedAsThemselves("parallel_tool_calls", "verbosity", "user"),
  ["logprobs", { name: "logprobs", with: ["top_logprobs"] }],
  ["top_logprobs", { name: "logprobs" }],
  ["reasoning_effort", { name: "reasoning" }],
  ["web_search_options", { name: "web_search" }],
]);

/** The output limit, lowered to the model's when OpenAI names it ("This model supports at most …"). */
export const LIMITED_MEMBERS: ReadonlyMap<string, LimitedMember> = new Map([
  ["max_completion_tokens", {}],
  ["max_tokens", {}],
]);
