// What a chat-completions upstream cannot be told (docs/translation.md §9), for `UpstreamCall.dropped`.
//
// Not named, because nothing is lost: `reasoning.exclude` (the client face hides the reasoning),
// media inside tool results (sent in a user message after them), a reasoning budget (rounded to an
// effort), a tool choice or `parallel_tool_calls` without tools (OpenAI refuses them; they mean nothing).

import type { ReasoningEffort, Request } from "../../ir/request.ts";
import { requestBlocks, Unsent, usesCacheControl, usesCitations } from "../shared/dropped-fields.ts";
import { dropUnsupported } from "../shared/web-search.ts";
import type { LimitedMember, OptionalMember } from "../types.ts";

/** `effortSent`: the `reasoning_effort` the encoder wrote, if any. */
export function droppedFields(request: Request, effortSent: ReasoningEffort | undefined): Unsent {
  const dropped = new Unsent();
  // The web search limits this target's search tool takes (docs/translation.md §13c).
  dropUnsupported(dropped, request.webSearch, { userLocation: true, contextSize: true });
  dropped.add("top_k", request.topK !== undefined);
  // Reasoning switched off reaches a chat upstream only as "none" when the client said so itself
  // (encode-request.ts); otherwise the model's default applies, which may be to reason.
  dropped.add("reasoning", request.reasoning?.enabled === false && effortSent === undefined);
  dropped.add("cache_control", usesCacheControl(request));
  for (const block of requestBlocks(request)) {
    dropped.add("citations", usesCitations(block));
    if (block.type === "tool_result") dropped.add("tool_result.is_error", block.isError === true);
    if (block.type === "document") {
      dropped.add("document.context", block.context !== undefined);
      // A title becomes the text's heading or inline data's filename; beside a filename or a file
      // id it has nowhere to go.
      const titleUnsaid =
        block.source.kind === "file" || (block.source.kind === "base64" && block.filename !== undefined);
      dropped.add("document.title", block.title !== undefined && titleUnsaid);
    }
  }
  return dropped;
}

/**
 * The members a model may refuse that the request can go without (UpstreamFace.optionalMembers):
 * OpenAI's reasoning models refuse sampling settings other than their defaults and some refuse
 * `stop` (then cut by the gateway itself: src/ir/stop-sequences.ts); a model without reasoning
 * refuses `reasoning_effort`; xAI's models each refuse a few of the others.
 */
export const OPTIONAL_MEMBERS: ReadonlyMap<string, OptionalMember> = new Map<string, OptionalMember>([
  ["temperature", { name: "temperature" }],
  ["top_p", { name: "top_p" }],
  ["presence_penalty", { name: "presence_penalty" }],
  ["frequency_penalty", { name: "frequency_penalty" }],
  ["seed", { name: "seed" }],
  ["stop", { name: "stop" }],
  ["logprobs", { name: "logprobs", with: ["top_logprobs"] }],
  ["top_logprobs", { name: "logprobs" }],
  ["parallel_tool_calls", { name: "parallel_tool_calls" }],
  ["reasoning_effort", { name: "reasoning" }],
  ["verbosity", { name: "verbosity" }],
  ["web_search_options", { name: "web_search" }],
  ["user", { name: "user" }],
]);

/** The output limit, lowered to the model's when OpenAI names it ("This model supports at most …"). */
export const LIMITED_MEMBERS: ReadonlyMap<string, LimitedMember> = new Map([
  ["max_completion_tokens", {}],
  ["max_tokens", {}],
]);
