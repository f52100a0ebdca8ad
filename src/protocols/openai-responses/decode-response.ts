// Upstream → IR: a whole `response` object. Message parts become text blocks (a refusal is what the
// model said instead of an answer: text too), reasoning items thinking blocks whose signature is the
// `encrypted_content`, function and custom tool calls tool_call blocks. Items of OpenAI's hosted
// tools are the upstream's own business: a web search is counted for billing, the rest left out.

import { GatewayError } from "../../ir/errors.ts";
import type { OutputBlock, Response } from "../../ir/response.ts";
import { customArguments } from "../shared/custom-tools.ts";
import { decodeErrorObject } from "../shared/openai-errors.ts";
import { isObject } from "../shared/validate.ts";
import { finishReasonFromWire, isClientToolCall } from "./map-finish-reason.ts";
import { usageFromWire } from "./map-usage.ts";
import { blockFromReasoningItem } from "./reasoning-item.ts";

export function decodeResponse(body: unknown): Response {
  if (!isObject(body))
    throw new GatewayError("api_error", "upstream answered with a non-object body", { status: 502 });
  if (body.status === "failed" && isObject(body.error)) throw decodeErrorObject(body.error);
  const output = Array.isArray(body.output) ? body.output.filter(isObject) : [];
  const content: OutputBlock[] = [];
  let webSearches = 0;
  for (const item of output) {
    if (item.type === "web_search_call") webSearches++;
    content.push(...itemBlocks(item));
  }
  const usage = usageFromWire(body.usage);
  usage.webSearchRequests = webSearches;
  return {
    id: typeof body.id === "string" ? body.id : "",
    model: typeof body.model === "string" ? body.model : "",
    content,
    finishReason: finishReasonFromWire(
      body.status,
      body.incomplete_details,
      output.some((item) => isClientToolCall(item.type)),
    ),
    usage,
  };
}

/** The IR blocks of one output item (none for items of hosted tools). */
export function itemBlocks(item: Record<string, unknown>): OutputBlock[] {
  switch (item.type) {
    case "message": {
      const parts = Array.isArray(item.content) ? item.content.filter(isObject) : [];
      return parts.flatMap((part): OutputBlock[] => {
        const text = part.type === "refusal" ? part.refusal : part.text;
        return typeof text === "string" && text ? [{ type: "text", text }] : [];
      });
    }
    case "reasoning": {
      const block = blockFromReasoningItem(item);
      return block ? [block] : [];
    }
    case "function_call":
    case "custom_tool_call": {
      const id = typeof item.call_id === "string" ? item.call_id : typeof item.id === "string" ? item.id : "";
      const name = typeof item.name === "string" ? item.name : "";
      return [{ type: "tool_call", id, name, arguments: toolArguments(item) }];
    }
    default:
      return [];
  }
}

/** A call's arguments as JSON text; a custom tool's free text is the `input` member of an object. */
export function toolArguments(item: Record<string, unknown>): string {
  if (item.type === "custom_tool_call")
    return customArguments(typeof item.input === "string" ? item.input : "");
  return typeof item.arguments === "string" ? item.arguments : "";
}
