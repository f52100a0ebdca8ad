// A message object from an Anthropic-protocol upstream → IR response.

import { GatewayError } from "../../ir/errors.ts";
import type { Citation } from "../../ir/request.ts";
import type { OutputBlock, Response } from "../../ir/response.ts";
import { isObject, type Json } from "../shared/validate.ts";
import { isJsonTool } from "./json-mode.ts";
import { finishReasonFromWire } from "./map-finish-reason.ts";
import { usageFromWire } from "./map-usage.ts";

export function decodeResponse(body: unknown): Response {
  if (!isObject(body) || !Array.isArray(body.content))
    throw new GatewayError("api_error", "upstream answered with a body that is not a message", {
      status: 502,
    });
  const content: OutputBlock[] = [];
  let jsonAnswer = false;
  let toolCalls = 0;
  for (const item of body.content) {
    if (!isObject(item)) continue;
    if (item.type === "tool_use" && isJsonTool(item.name)) {
      jsonAnswer = true;
      content.push({ type: "text", text: JSON.stringify(item.input ?? {}) });
      continue;
    }
    const block = decodeOutputBlock(item);
    if (block?.type === "tool_call") toolCalls++;
    if (block) content.push(block);
  }
  let finishReason = finishReasonFromWire(body.stop_reason);
  // The reserved JSON-mode tool is how the answer arrived, not a call for the client to run.
  if (finishReason === "tool_calls" && jsonAnswer && toolCalls === 0) finishReason = "stop";
  const response: Response = {
    id: typeof body.id === "string" ? body.id : "",
    model: typeof body.model === "string" ? body.model : "",
    content,
    finishReason,
    usage: usageFromWire(body.usage),
  };
  if (typeof body.stop_sequence === "string") response.stopSequence = body.stop_sequence;
  return response;
}

/**
 * One content block; Anthropic's server-tool blocks (server_tool_use, web_search_tool_result, …) have
 * no IR form and are left out (their web searches are still counted in usage).
 */
function decodeOutputBlock(item: Json): OutputBlock | undefined {
  switch (item.type) {
    case "text": {
      const text = typeof item.text === "string" ? item.text : "";
      const citations = Array.isArray(item.citations) ? (item.citations.filter(isObject) as Citation[]) : [];
      return citations.length > 0 ? { type: "text", text, citations } : { type: "text", text };
    }
    case "thinking": {
      const text = typeof item.thinking === "string" ? item.thinking : "";
      return typeof item.signature === "string"
        ? { type: "thinking", text, signature: item.signature }
        : { type: "thinking", text };
    }
    case "redacted_thinking":
      return { type: "redacted_thinking", data: typeof item.data === "string" ? item.data : "" };
    case "tool_use":
      return {
        type: "tool_call",
        id: typeof item.id === "string" ? item.id : "",
        name: typeof item.name === "string" ? item.name : "",
        arguments: JSON.stringify(item.input ?? {}),
      };
    default:
      return undefined;
  }
}
