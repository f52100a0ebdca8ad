// Chat-completions client to a chat-completions upstream: bytes relayed with targeted edits.

import { identityEdits, withIdentity } from "../shared/identity.ts";
import { editJson, parseObject } from "../shared/json-edit.ts";
import type { EncodeContext, Relay, SseEvent } from "../types.ts";
import { reasoningEffort } from "./encode-request.ts";
import { fromChatFinishReason } from "./map-finish-reason.ts";
import { fromChatUsage } from "./map-usage.ts";
import { imagesFrom } from "./output-images.ts";

/** Request members only the gateway understands; an upstream would reject them. */
const GATEWAY_ONLY = ["provider", "model_routing_config", "usage", "reasoning"];

export const openaiChatRelay: Relay = {
  request(raw, request, target) {
    const set: Record<string, string> = { model: JSON.stringify(target.model) };
    // The gateway always asks for streamed usage; the client sees it only if it asked (streamEvent).
    if (target.stream) set.stream_options = '{"include_usage":true}';
    // `reasoning: {effort | max_tokens}` is the gateway's field; the chat protocol's own is
    // `reasoning_effort`, mapped exactly as a translated request maps it (a budget → nearest effort).
    const effort = reasoningEffort(request.reasoning);
    if (effort) set.reasoning_effort = JSON.stringify(effort);
    return {
      path: "/chat/completions",
      body: editJson(raw, { set, remove: [...GATEWAY_ONLY, ...request.ignored] }),
    };
  },

  removesIgnored: true,

  response(text, ctx) {
    return editJson(text, identityEdits(ctx, "id", "model"));
  },

  tap(text) {
    const body = parseObject(text);
    const choice = Array.isArray(body.choices) ? body.choices[0] : undefined;
    const usage = fromChatUsage(body.usage);
    const images = imagesFrom(choice?.message?.images).length;
    if (images > 0) usage.imageOutputs = images;
    return { usage, finishReason: fromChatFinishReason(choice?.finish_reason) };
  },

  streamEvent(event: SseEvent, ctx: EncodeContext) {
    const end = event.crlf ? "\r\n\r\n" : "\n\n";
    if (event.data === "[DONE]") return `data: [DONE]${end}`;
    if (!ctx.request.streamUsage && isUsageOnlyChunk(event.data)) return "";
    return `data: ${withIdentity(event.data, ctx, "id", "model")}${end}`;
  },
};

/** The chunk that carries only usage (`choices: []`), sent because the gateway asked for it. */
function isUsageOnlyChunk(data: string): boolean {
  return data.includes('"choices":[]') || /"choices"\s*:\s*\[\s*\]/.test(data);
}
