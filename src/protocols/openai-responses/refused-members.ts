// What a Responses API model may refuse (the refusal itself is read by shared/refused-members.ts):
// the members a translated request can go without (src/providers/translated/refusals.ts;
// docs/translation.md §9, "Members a model refuses").

import { namedAsThemselves } from "../shared/refused-members.ts";
import type { OptionalMember } from "../types.ts";

/**
 * The members a model may refuse that the request can go without (UpstreamFace.optionalMembers):
 * OpenAI's reasoning models refuse sampling settings other than their defaults; a model without
 * reasoning refuses `reasoning` (named `reasoning.effort` in the refusal).
 */
export const OPTIONAL_MEMBERS: ReadonlyMap<string, OptionalMember> = new Map<string, OptionalMember>([
  ...namedAsThemselves("temperature", "top_p", "parallel_tool_calls", "reasoning", "user"),
  ["top_logprobs", { name: "logprobs" }],
  ["reasoning.effort", { name: "reasoning", with: ["reasoning"] }],
  ["reasoning.summary", { name: "reasoning", with: ["reasoning"] }],
  ["text.verbosity", { name: "verbosity" }],
]);
