// IR → client: a whole `chat.completion` object, shaped as the openai SDK types `ChatCompletion`.
// Thinking goes out as `reasoning` (joined text) and `reasoning_details` (with signatures) unless the
// client asked for `reasoning.exclude`; tool-call ids carry a Gemini signature when there is one; a
// call of a tool the request declared custom is a custom call (`{type: "custom", custom: {name, input}}`).

import type { Request } from "../../ir/request.ts";
import type { FinishReason, OutputBlock, Response } from "../../ir/response.ts";
import { packToolCallId } from "../../ir/tool-call-id.ts";
import { customInput, isCustomTool } from "../shared/custom-tools.ts";
import { dataUrl } from "../shared/data-url.ts";
import { citationSpans, type UrlCitationSpan } from "../shared/openai-annotations.ts";
import { toOpenAILogprobs, type WireTokenLogprob } from "../shared/openai-logprobs.ts";
import type { EncodeContext } from "../types.ts";
import { finishReasonToWire } from "./map-finish-reason.ts";
import { usageToWire } from "./map-usage.ts";
import { reasoningDetailsFromBlocks } from "./reasoning-details.ts";
import type { ReasoningDetail, WireFinishReason, WireToolCall, WireUsage } from "./wire-types.ts";

export interface ChatCompletionMessage {
  role: "assistant";
  content: string | null;
  refusal: string | null;
  annotations?: ChatAnnotation[];
  tool_calls?: WireToolCall[];
  reasoning?: string;
  reasoning_details?: ReasoningDetail[];
  images?: ChatImage[];
}

/**
 * A generated image in a chat answer. OpenAI's chat protocol has no image output; this is the shape
 * OpenAI-compatible gateways (OpenRouter) established: `message.images` (streamed: `delta.images`),
 * each an `image_url` part holding a data URL, as a user message gives images.
 */
export interface ChatImage {
  type: "image_url";
  image_url: { url: string };
}

export interface ChatAnnotation {
  type: "url_citation";
  url_citation: UrlCitationSpan;
}

/** The text blocks' citations as annotations of the message they are joined into. */
export function chatAnnotations(blocks: readonly OutputBlock[]): ChatAnnotation[] {
  const out: ChatAnnotation[] = [];
  let offset = 0;
  for (const block of blocks) {
    if (block.type !== "text") continue;
    for (const span of citationSpans(block.text, block.citations ?? [], offset))
      out.push({ type: "url_citation", url_citation: span });
    offset += block.text.length;
  }
  return out;
}

/** What the upstream said when it withheld the answer: the chat protocol's `refusal`. */
export function refusalText(reason: FinishReason, message: string | undefined): string | null {
  return message && (reason === "content_filter" || reason === "refusal") ? message : null;
}

export function chatImage(mediaType: string, data: string): ChatImage {
  return { type: "image_url", image_url: { url: dataUrl(mediaType, data) } };
}

export interface ChatCompletion {
  id: string;
  object: "chat.completion";
  created: number;
  model: string;
  /**
   * OpenAI's backend configuration: null, as an upstream's is not carried over. OpenRouter's SDK
   * requires the key in a whole answer; in a stream chunk it takes a string or nothing (null fails
   * its validation, and OpenAI's chunk type has no null either), so chunks leave it out.
   */
  system_fingerprint: null;
  choices: Array<{
    index: 0;
    message: ChatCompletionMessage;
    logprobs: ChatLogprobs | null;
    finish_reason: WireFinishReason;
  }>;
  usage: WireUsage;
}

export interface ChatLogprobs {
  content: WireTokenLogprob[];
  refusal: null;
}

/** `choices[].logprobs`: present only when the client asked for logprobs (null otherwise). */
export function chatLogprobs(request: Request, logprobs: Response["logprobs"]): ChatLogprobs | null {
  if (!request.logprobs) return null;
  return { content: toOpenAILogprobs(logprobs ?? []), refusal: null };
}

export function encodeResponse(response: Response, ctx: EncodeContext): ChatCompletion {
  return {
    id: ctx.id,
    object: "chat.completion",
    created: ctx.created,
    model: ctx.model,
    system_fingerprint: null,
    choices: [
      {
        index: 0,
        message: encodeMessage(response, ctx.request),
        logprobs: chatLogprobs(ctx.request, response.logprobs),
        finish_reason: finishReasonToWire(response.finishReason),
      },
    ],
    usage: usageToWire(response.usage),
  };
}

function encodeMessage(response: Response, request: Request): ChatCompletionMessage {
  const blocks = response.content;
  const excludeReasoning = request.reasoning?.exclude === true;
  const text = blocks.flatMap((b) => (b.type === "text" ? [b.text] : [])).join("");
  const refusal = refusalText(response.finishReason, response.finishMessage);
  const message: ChatCompletionMessage = { role: "assistant", content: text || null, refusal };
  const annotations = chatAnnotations(blocks);
  if (annotations.length > 0) message.annotations = annotations;
  const calls = blocks.flatMap((b) => (b.type === "tool_call" ? [b] : []));
  if (calls.length > 0) {
    message.tool_calls = calls.map((call): WireToolCall => {
      const id = packToolCallId(call.id, call.signature);
      if (isCustomTool(request.tools, call.name))
        return { id, type: "custom", custom: { name: call.name, input: customInput(call.arguments) } };
      // A call without arguments is an empty object, never "" (docs/architecture.md §10: clients JSON.parse
      // it).
      return { id, type: "function", function: { name: call.name, arguments: call.arguments || "{}" } };
    });
  }
  const images = blocks.flatMap((b) =>
    b.type === "image" ? [chatImage(b.source.mediaType, b.source.data)] : [],
  );
  if (images.length > 0) message.images = images;
  const reasoning = blocks.flatMap((b) =>
    b.type === "thinking" || b.type === "redacted_thinking" ? [b] : [],
  );
  if (reasoning.length > 0 && !excludeReasoning) {
    message.reasoning = reasoning.flatMap((b) => (b.type === "thinking" ? [b.text] : [])).join("");
    message.reasoning_details = reasoningDetailsFromBlocks(reasoning);
  }
  return message;
}
