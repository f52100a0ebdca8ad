// IR response → the message object of POST /v1/messages, as @anthropic-ai/sdk types `Message`.

import type { OutputBlock, Response } from "../../ir/response.ts";
import { packToolCallId } from "../../ir/tool-call-id.ts";
import type { EncodeContext } from "../types.ts";
import { finishReasonToWire } from "./map-finish-reason.ts";
import { usageToWire } from "./map-usage.ts";
import { toolInputObject } from "./tool-input.ts";

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
    stop_details: null,
    container: null,
    usage: usageToWire(response.usage),
  };
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
          input: toolInputObject(block.arguments),
          caller: { type: "direct" },
        },
      ];
  }
}
