// Upstream → IR: a whole `response` object. Message parts become text blocks (a refusal is what the
// model said instead of an answer: text too), reasoning items thinking blocks whose signature is the
// `encrypted_content`, function and custom tool calls tool_call blocks. Items of OpenAI's hosted
// tools are the upstream's own business: a web search is counted for billing, the rest left out.

import { GatewayError } from "../../ir/errors.ts";
import type {
  GeneratedImageBlock,
  OutputBlock,
  Response,
  TokenLogprob,
  WebSearchBlock,
} from "../../ir/response.ts";
import { customArguments } from "../shared/custom-tools.ts";
import { citationsFromAnnotations } from "../shared/openai-annotations.ts";
import { decodeErrorObject } from "../shared/openai-errors.ts";
import { fromOpenAILogprobs } from "../shared/openai-logprobs.ts";
import { isObject } from "../shared/validate.ts";
import { finishReasonFromWire, isClientToolCall } from "./map-finish-reason.ts";
import { usageFromWire, withHostedToolUnits } from "./map-usage.ts";
import { blockFromReasoningItem } from "./reasoning-item.ts";

export function decodeResponse(body: unknown): Response {
  if (!isObject(body))
    throw new GatewayError("api_error", "upstream answered with a non-object body", { status: 502 });
  if (body.status === "failed" && isObject(body.error)) throw decodeErrorObject(body.error);
  const output = Array.isArray(body.output) ? body.output.filter(isObject) : [];
  const content: OutputBlock[] = [];
  for (const item of output) content.push(...itemBlocks(item));
  const usage = withHostedToolUnits(usageFromWire(body.usage), output);
  const logprobs = output.flatMap(textLogprobs);
  return {
    ...(logprobs.length > 0 && { logprobs }),
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

/** The token logprobs of a message item's text parts. */
function textLogprobs(item: Record<string, unknown>): TokenLogprob[] {
  if (item.type !== "message" || !Array.isArray(item.content)) return [];
  return item.content.flatMap((part) =>
    isObject(part) && part.type === "output_text" ? fromOpenAILogprobs(part.logprobs) : [],
  );
}

/** The IR blocks of one output item (none for items of hosted tools). */
export function itemBlocks(item: Record<string, unknown>): OutputBlock[] {
  switch (item.type) {
    case "message": {
      const parts = Array.isArray(item.content) ? item.content.filter(isObject) : [];
      return parts.flatMap((part): OutputBlock[] => {
        const text = part.type === "refusal" ? part.refusal : part.text;
        if (typeof text !== "string" || !text) return [];
        const citations = citationsFromAnnotations(text, part.annotations);
        return [citations.length > 0 ? { type: "text", text, citations } : { type: "text", text }];
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
    case "image_generation_call": {
      const image = imageFromItem(item);
      return image ? [image] : [];
    }
    case "web_search_call": {
      const search = searchFromItem(item);
      return search ? [search] : [];
    }
    default:
      return [];
  }
}

/** A `web_search_call` whose action is a search: its query (or queries, joined) and `sources`. */
export function searchFromItem(item: Record<string, unknown>): WebSearchBlock | undefined {
  const action = isObject(item.action) ? item.action : undefined;
  if (action?.type !== "search") return undefined;
  const queries = Array.isArray(action.queries) ? action.queries.filter((q) => typeof q === "string") : [];
  const query = typeof action.query === "string" ? action.query : queries.join(" | ");
  const sources = Array.isArray(action.sources) ? action.sources.filter(isObject) : [];
  const search: WebSearchBlock = {
    type: "web_search",
    id: typeof item.id === "string" ? item.id : "",
    query,
    results: sources.flatMap((s) => (typeof s.url === "string" ? [{ url: s.url, title: "" }] : [])),
  };
  if (item.status === "failed") search.errorCode = "unavailable";
  return search;
}

/** The image of a finished `image_generation_call` (`result`: base64; `output_format`: png, jpeg, webp). */
export function imageFromItem(item: Record<string, unknown>): GeneratedImageBlock | undefined {
  if (typeof item.result !== "string" || item.result === "") return undefined;
  const format = typeof item.output_format === "string" ? item.output_format : "png";
  return { type: "image", source: { kind: "base64", mediaType: `image/${format}`, data: item.result } };
}

/** A call's arguments as JSON text; a custom tool's free text is the `input` member of an object. */
export function toolArguments(item: Record<string, unknown>): string {
  if (item.type === "custom_tool_call")
    return customArguments(typeof item.input === "string" ? item.input : "");
  return typeof item.arguments === "string" ? item.arguments : "";
}
