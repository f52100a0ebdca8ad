// What a Responses API model may refuse (the refusal itself is read by shared/refused-members.ts):
// the members a translated request can go without (src/providers/translated/refusals.ts;
// docs/translation.md §9, "Members a model refuses").

import type { OptionalMember } from "../types.ts";

/**
 * The members a model may refuse that the request can go without (UpstreamFace.optionalMembers):
 * OpenAI's reasoning models refuse sampling settings other than their defaults; a model without
 * reasoning refuses `reasoning` (named `reasoning.effort` in the refusal).
 */
export const OPTIONAL_MEMBERS: ReadonlyMap<string, OptionalMember> = new Map<string, OptionalMember>([
  ["temperature", { name: "temperature" }],
  ["top_p", { name: "top_p" }],
  ["top_logprobs", { name: "logprobs" }],
  ["parallel_tool_calls", { name: "parallel_tool_calls" }],
  ["reasoning", { name: "reasoning" }],
  ["reasoning.effort", { name: "reasoning", with: ["reasoning"] }],
  ["reasoning.summary", { name: "reasoning", with: ["reasoning"] }],
  ["text.verbosity", { name: "verbosity" }],
  ["user", { name: "user" }],
]);
