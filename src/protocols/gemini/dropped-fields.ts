// What a Gemini upstream cannot be told (docs/translation.md §9), for `UpstreamCall.dropped`.
//
// Not named, because nothing the upstream could use is lost: `redacted_thinking` (another vendor's
// encrypted reasoning), a document's `filename` and a JSON schema's `name` (labels with no slot
// here), a tool choice or `parallel_tool_calls` without tools. Reasoning settings are rounded to the
// model's scale (map-reasoning.ts), never dropped.

import type { Request } from "../../ir/request.ts";
import {
  isUnsignedThinking,
  requestBlocks,
  Unsent,
  usesCacheControl,
  usesCitations,
  usesImageDetail,
  usesSchemaDescription,
  usesStrictTools,
} from "../shared/dropped-fields.ts";
import { dropUnsupported } from "../shared/web-search.ts";
import type { OptionalMember } from "../types.ts";

export function droppedFields(request: Request): Unsent {
  const dropped = new Unsent();
  // The web search limits this target's search tool takes (docs/translation.md §13c).
  dropUnsupported(dropped, request.webSearch, {});
  dropped.add("user", request.user !== undefined);
  dropped.add("verbosity", request.verbosity !== undefined);
  dropped.add("response_format.json_schema.description", usesSchemaDescription(request));
  dropped.add("tools[].strict", usesStrictTools(request));
  // One call per turn has no Gemini setting; it matters only when calls may be made.
  dropped.add(
    "parallel_tool_calls",
    request.parallelToolCalls === false && request.tools.length > 0 && request.toolChoice?.type !== "none",
  );
  dropped.add("cache_control", usesCacheControl(request));
  for (const block of requestBlocks(request)) {
    dropped.add("citations", usesCitations(block));
    dropped.add("image.detail", usesImageDetail(block));
    if (block.type === "document") {
      dropped.add("document.title", block.title !== undefined);
      dropped.add("document.context", block.context !== undefined);
    }
    // Only signed thoughts go back to Gemini (output-parts.ts).
    dropped.add("thinking", isUnsignedThinking(block));
  }
  return dropped;
}

/**
 * The members a model may refuse that the request can go without (UpstreamFace.optionalMembers):
 * the penalties, log probabilities and thinking settings (refused-members.ts).
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
