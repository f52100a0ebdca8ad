// A Converse answer (`{output: {message: {role, content}}, stopReason, usage, metrics,
// additionalModelResponseFields?}`) → IR response. Converse gives the answer no id: the gateway's
// generation id stands in for it anyway.

import { GatewayError } from "../../ir/errors.ts";
import type { Citation } from "../../ir/request.ts";
import type { OutputBlock, Response } from "../../ir/response.ts";
import { isObject, type Json } from "../shared/validate.ts";
import { citationFromWire } from "./citations.ts";
import { finishReasonFromWire, stopSequenceFromWire } from "./map-finish-reason.ts";
import { usageFromWire } from "./map-usage.ts";

export function decodeResponse(body: unknown): Response {
  const message = isObject(body) && isObject(body.output) ? body.output.message : undefined;
  if (!isObject(body) || !isObject(message) || !Array.isArray(message.content))
    throw new GatewayError("api_error", "upstream answered with a body that is not a Converse answer", {
      status: 502,
    });
  const content = message.content.flatMap((item) => (isObject(item) ? decodeBlock(item) : []));
  const response: Response = {
    id: "",
    model: "",
    content,
    finishReason: finishReasonFromWire(body.stopReason),
    usage: usageFromWire(body.usage),
  };
  const stopSequence = stopSequenceFromWire(body.additionalModelResponseFields);
  if (stopSequence !== undefined) {
    response.stopSequence = stopSequence;
    if (response.finishReason === "stop") response.finishReason = "stop_sequence";
  }
  return response;
}

/** One content block; kinds without an IR form (images, tool results of server tools…) are left out. */
function decodeBlock(item: Json): OutputBlock[] {
  if (typeof item.text === "string") return item.text === "" ? [] : [{ type: "text", text: item.text }];
  if (isObject(item.toolUse)) {
    const call = item.toolUse;
    return [
      {
        type: "tool_call",
        id: typeof call.toolUseId === "string" ? call.toolUseId : "",
        name: typeof call.name === "string" ? call.name : "",
        arguments: JSON.stringify(call.input ?? {}),
      },
    ];
  }
  if (isObject(item.reasoningContent)) return decodeReasoning(item.reasoningContent);
  if (isObject(item.citationsContent)) return [decodeCited(item.citationsContent)];
  return [];
}

function decodeReasoning(reasoning: Json): OutputBlock[] {
  if (typeof reasoning.redactedContent === "string")
    return [{ type: "redacted_thinking", data: reasoning.redactedContent }];
  const text = isObject(reasoning.reasoningText) ? reasoning.reasoningText : undefined;
  if (!text) return [];
  const block: OutputBlock = { type: "thinking", text: typeof text.text === "string" ? text.text : "" };
  if (typeof text.signature === "string" && text.signature !== "") block.signature = text.signature;
  return [block];
}

/** `citationsContent`: generated text with the passages it cites. */
function decodeCited(cited: Json): OutputBlock {
  const parts = Array.isArray(cited.content) ? cited.content : [];
  const text = parts
    .map((part) => (isObject(part) && typeof part.text === "string" ? part.text : ""))
    .join("");
  const citations = (Array.isArray(cited.citations) ? cited.citations : []).flatMap((c): Citation[] => {
    const citation = citationFromWire(c);
    return citation ? [citation] : [];
  });
  return citations.length > 0 ? { type: "text", text, citations } : { type: "text", text };
}
