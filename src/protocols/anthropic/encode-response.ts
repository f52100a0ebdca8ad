// IR response → the message object of POST /v1/messages, as @anthropic-ai/sdk types `Message`.

import type { FinishReason, OutputBlock, Response, WebSearchBlock } from "../../ir/response.ts";
import { packToolCallId } from "../../ir/tool-call-id.ts";
import { argumentsObject } from "../shared/tool-arguments.ts";
import type { EncodeContext } from "../types.ts";
import { finishReasonToWire } from "./map-finish-reason.ts";
import { usageToWire } from "./map-usage.ts";

export function encodeResponse(response: Response, ctx: EncodeContext) {
  const stopReason = finishReasonToWire(response.finishReason);
  return {
    id: ctx.id,
    type: "message" as const,
    role: "assistant" as const,
    model: ctx.model,
    content: response.content.flatMap(encodeOutputBlock),
    stop_reason: stopReason,
    stop_sequence: stopReason === "stop_sequence" ? (response.stopSequence ?? null) : null,
    stop_details: stopDetails(response.finishReason, response.finishMessage),
    container: null,
    usage: usageToWire(response.usage),
  };
}

/**
 * `stop_details` of a refusal: the upstream's own explanation (Gemini `finishMessage`) when it gave
 * one for withholding the answer; no category, which only Anthropic's classifier names.
 */
export function stopDetails(reason: FinishReason, message: string | undefined) {
  if (!message || (reason !== "content_filter" && reason !== "refusal")) return null;
  return { type: "refusal" as const, category: null, explanation: message };
}

/** One wire block, or none for a block a client must never see (an empty text block, docs/architecture.md §10). */
function encodeOutputBlock(block: OutputBlock): object[] {
  switch (block.type) {
    case "text":
      if (block.text.length === 0) return [];
      // `citations` is left out rather than null: the Vercel AI SDK rejects a null there.
      return [
        block.citations?.length
          ? { type: "text", text: block.text, citations: block.citations }
          : { type: "text", text: block.text },
      ];
    case "thinking":
      // Empty text with a signature is a real block that must be replayed (docs/architecture.md §10); empty
      // and unsigned is nothing.
      if (block.text.length === 0 && !block.signature) return [];
      return [{ type: "thinking", thinking: block.text, signature: block.signature ?? "" }];
    case "redacted_thinking":
      return [{ type: "redacted_thinking", data: block.data }];
    case "tool_call":
      return [
        {
          type: "tool_use",
          id: packToolCallId(block.id, block.signature),
          name: block.name,
          input: argumentsObject(block.arguments),
          caller: { type: "direct" },
        },
      ];
    case "image":
      return [imageBlock(block.source.mediaType, block.source.data)];
    case "web_search":
      return [serverToolUse(block), searchResultBlock(block)];
  }
}

/** A web search's call, as the messages protocol shows the searches the API ran (`srvtoolu_` ids). */
export function serverToolUse(search: WebSearchBlock) {
  return {
    type: "server_tool_use",
    id: serverToolId(search.id),
    name: "web_search",
    input: { query: search.query },
  };
}

/**
 * Its result: the pages found (`encrypted_content` is empty for a page another vendor found: there is
 * nothing to cite it by), or the upstream's error code.
 */
export function searchResultBlock(search: WebSearchBlock) {
  const content = search.errorCode
    ? { type: "web_search_tool_result_error", error_code: search.errorCode }
    : search.results.map((r) => ({
        type: "web_search_result",
        url: r.url,
        title: r.title,
        encrypted_content: r.encryptedContent ?? "",
        page_age: r.pageAge ?? null,
      }));
  return { type: "web_search_tool_result", tool_use_id: serverToolId(search.id), content };
}

function serverToolId(id: string): string {
  return id.startsWith("srvtoolu_") ? id : `srvtoolu_${id}`;
}

/**
 * A generated image, in the shape the messages protocol gives images (its answers have no image
 * block of their own: docs/translation.md §13d).
 */
export function imageBlock(mediaType: string, data: string): object {
  return { type: "image", source: { type: "base64", media_type: mediaType, data } };
}
