// What a Converse upstream cannot be told (docs/translation.md §9), for `UpstreamCall.dropped`.
//
// Not named, because nothing the upstream could use is lost: a document's filename or title (they
// become its `name`), a JSON schema's name, `reasoning.exclude` (the client face hides the reasoning),
// `parallel_tool_calls: false` beside tool choice `none`.

import type { Request } from "../../ir/request.ts";
import {
  asksForReasoning,
  isUnsignedThinking,
  requestBlocks,
  Unsent,
  usesCitations,
  usesImageDetail,
} from "../shared/dropped-fields.ts";
import { type ModelFamily, type ModelFields, takesToolResultStatus } from "./model-fields.ts";

export function droppedFields(request: Request, fields: ModelFields, family: ModelFamily): Unsent {
  const dropped = new Unsent();
  // Converse has no web search of its own.
  dropped.add("web_search", request.webSearch !== undefined);
  dropped.add("temperature", fields.thinkingOn && request.temperature !== undefined);
  dropped.add("top_p", fields.thinkingOn && request.topP !== undefined && request.topP < 0.95);
  dropped.add("top_k", request.topK !== undefined && !fields.topKSent);
  dropped.add("frequency_penalty", request.frequencyPenalty !== undefined);
  dropped.add("presence_penalty", request.presencePenalty !== undefined);
  dropped.add("seed", request.seed !== undefined);
  dropped.add("logprobs", request.logprobs !== undefined);
  dropped.add("user", request.user !== undefined);
  dropped.add("reasoning", !fields.reasoningSent && asksForReasoning(request));
  dropped.add("verbosity", request.verbosity !== undefined);
  dropped.add(
    "parallel_tool_calls",
    request.parallelToolCalls === false && request.tools.length > 0 && request.toolChoice?.type !== "none",
  );
  for (const block of requestBlocks(request)) {
    dropped.add("image.detail", usesImageDetail(block));
    dropped.add("thinking", isUnsignedThinking(block));
    dropped.add(
      "tool_result.is_error",
      block.type === "tool_result" && block.isError === true && !takesToolResultStatus(family),
    );
    // Citations replayed on earlier text have no slot (Converse's are the model's own output).
    dropped.add("citations", block.type === "text" && usesCitations(block));
  }
  return dropped;
}
