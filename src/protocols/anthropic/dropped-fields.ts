// What a messages-protocol upstream cannot be told (docs/translation.md §9), for `UpstreamCall.dropped`.
//
// Not named, because nothing the upstream could use is lost: another vendor's call signatures (no
// field; Gemini's own state), a document's `filename` and a JSON schema's `name` (labels with no slot
// here), `reasoning.exclude` (the client face hides the reasoning), `parallel_tool_calls: false`
// beside tool choice `none` (no calls to make). A temperature above 1 is clamped, not dropped.

import type { Request } from "../../ir/request.ts";
import type { WireThinking } from "../shared/claude-thinking.ts";
import {
  asksForReasoning,
  isUnsignedThinking,
  requestBlocks,
  Unsent,
  usesImageDetail,
  usesSchemaDescription,
  usesStrictTools,
} from "../shared/dropped-fields.ts";
import { dropUnsupported } from "../shared/web-search.ts";
import type { LimitedMember, OptionalMember } from "../types.ts";

/** `thinking`: what the encoder sent as `thinking`, if anything. */
export function droppedFields(request: Request, thinking: WireThinking | undefined): Unsent {
  const dropped = new Unsent();
  // The web search limits this target's search tool takes (docs/translation.md §13c).
  dropUnsupported(dropped, request.webSearch, {
    maxUses: true,
    allowedDomains: true,
    blockedDomains: true,
    userLocation: true,
  });
  // The protocol refuses these sampling settings while thinking is on (encode-request.ts).
  const thinkingOn = thinking !== undefined && thinking.type !== "disabled";
  dropped.add("temperature", thinkingOn && request.temperature !== undefined);
  dropped.add("top_p", thinkingOn && request.topP !== undefined && request.topP < 0.95);
  dropped.add("top_k", thinkingOn && request.topK !== undefined);
  dropped.add("frequency_penalty", request.frequencyPenalty !== undefined);
  dropped.add("presence_penalty", request.presencePenalty !== undefined);
  dropped.add("seed", request.seed !== undefined);
  dropped.add("logprobs", request.logprobs !== undefined);
  // claude-thinking.ts sends a setting for each such request except when `max_tokens` leaves no room
  // for the smallest budget, which is the case named here.
  dropped.add("reasoning", thinking === undefined && asksForReasoning(request));
  dropped.add("verbosity", request.verbosity !== undefined);
  dropped.add("response_format.json_schema.description", usesSchemaDescription(request));
  dropped.add("tools[].strict", usesStrictTools(request));
  for (const block of requestBlocks(request)) {
    dropped.add("image.detail", usesImageDetail(block));
    dropped.add("thinking", isUnsignedThinking(block));
  }
  return dropped;
}

/**
 * The members a model may refuse that the request can go without (UpstreamFace.optionalMembers):
 * `top_p` beside `temperature` (refused-members.ts).
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
