// What a Responses API upstream cannot be told (docs/translation.md §9), for `UpstreamCall.dropped`.
//
// Not named, because nothing the upstream could use is lost: another vendor's call signatures (a
// Gemini thought signature on a tool call has no field here; OpenAI keeps its own state in
// reasoning items), and
// `reasoning.exclude` (the client face hides the reasoning).

import type { ReasoningEffort, Request } from "../../ir/request.ts";
import { canEmulateStops } from "../../ir/stop-sequences.ts";
import {
  isUnsignedThinking,
  requestBlocks,
  Unsent,
  usesCacheControl,
  usesCitations,
} from "../shared/dropped-fields.ts";
import { dropUnsupported } from "../shared/web-search.ts";
import type { OptionalMember } from "../types.ts";

/** `effortSent`: the `reasoning.effort` the encoder wrote, if any. */
export function droppedFields(request: Request, effortSent: ReasoningEffort | undefined): Unsent {
  const dropped = new Unsent();
  // The web search limits this target's search tool takes (docs/translation.md §13c).
  dropUnsupported(dropped, request.webSearch, {
    allowedDomains: true,
    userLocation: true,
    contextSize: true,
  });
  dropped.add("top_k", request.topK !== undefined);
  // The gateway cuts the answer at the stop sequences itself (src/ir/stop-sequences.ts) unless there
  // are too many to search each piece for.
  dropped.add("stop", !canEmulateStops(request.stopSequences));
  dropped.add("frequency_penalty", request.frequencyPenalty !== undefined);
  dropped.add("presence_penalty", request.presencePenalty !== undefined);
  dropped.add("seed", request.seed !== undefined);
  // As on chat-completions: reasoning switched off is said only as the client's own "none".
  dropped.add("reasoning", request.reasoning?.enabled === false && effortSent === undefined);
  dropped.add("cache_control", usesCacheControl(request));
  for (const block of requestBlocks(request)) {
    dropped.add("citations", usesCitations(block));
    dropped.add("thinking", isUnsignedThinking(block));
    if (block.type === "tool_result") dropped.add("tool_result.is_error", block.isError === true);
    if (block.type === "document") {
      dropped.add("document.context", block.context !== undefined);
      // A title becomes a text document's heading or inline data's filename; beside a filename, a
      // file id or a URL it has nowhere to go.
      const titleUnsaid =
        block.source.kind === "file" ||
        block.source.kind === "url" ||
        (block.source.kind === "base64" && block.filename !== undefined);
      dropped.add("document.title", block.title !== undefined && titleUnsaid);
    }
  }
  return dropped;
}

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
