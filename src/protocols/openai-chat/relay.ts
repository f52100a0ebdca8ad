// Chat-completions client to a chat-completions upstream: bytes relayed with targeted edits.

import { prefillText } from "../../ir/prefill.ts";
import { identityEdits, identityOpening, withIdentity } from "../shared/identity.ts";
import {
  appendJsonArrayItem,
  editJson,
  editJsonArrayItems,
  editJsonMember,
  parseObject,
} from "../shared/json-edit.ts";
import { CONTINUE_INSTRUCTION } from "../shared/prefill.ts";
import { objectDataLine } from "../shared/sse.ts";
import type { EncodeContext, Relay, SseEvent } from "../types.ts";
import { outputLimitField, reasoningEffort } from "./encode-request.ts";
import { finishReasonFromWire } from "./map-finish-reason.ts";
import { usageFromWire } from "./map-usage.ts";
import { imagesFrom } from "./output-images.ts";

/** Request members only the gateway understands; an upstream would reject them. */
const GATEWAY_ONLY = ["provider", "model_routing_config", "usage", "reasoning"];

/** Where OpenAI-compatible upstreams put reasoning in a message or a delta (removed on `exclude`). */
const REASONING_MEMBERS = ["reasoning", "reasoning_content", "reasoning_details"];

export const openaiChatRelay: Relay = {
  request(raw, request, target) {
    const set: Record<string, string> = { model: JSON.stringify(target.model) };
    const remove = [...GATEWAY_ONLY, ...request.ignored];
    // The gateway always asks for streamed usage; the client sees it only if it asked (streamEvent).
    if (target.stream) set.stream_options = '{"include_usage":true}';
    // `reasoning: {enabled, effort, max_tokens}` is the gateway's field; the chat protocol's own is
    // `reasoning_effort`, mapped exactly as a translated request maps it (docs/translation.md §4).
    // `exclude` is honoured on the way back (response, streamEvent).
    const effort = reasoningEffort(request.reasoning);
    if (effort) set.reasoning_effort = JSON.stringify(effort);
    // OpenAI's reasoning models refuse the deprecated `max_tokens`; `max_completion_tokens` means the
    // same to every model (the limit, reasoning included).
    if (request.maxOutputTokens !== undefined) {
      const field = outputLimitField(target);
      set[field] = JSON.stringify(request.maxOutputTokens);
      remove.push(field === "max_tokens" ? "max_completion_tokens" : "max_tokens");
    }
    let body = withoutAssistantAudio(editJson(raw, { set, remove }), request.ignored);
    // A trailing assistant message (a prefill) is answered afresh by OpenAI: ask for its continuation.
    if (prefillText(request) !== undefined)
      body = appendJsonArrayItem(
        body,
        "messages",
        JSON.stringify({ role: "user", content: CONTINUE_INSTRUCTION }),
      );
    return { path: "/chat/completions", body };
  },

  unsent: (request) => request.ignored,

  response(text, ctx) {
    const edited = editJson(text, identityEdits(ctx, "id", "model"));
    return excludesReasoning(ctx) ? withoutReasoning(edited, "message") : edited;
  },

  tap(text) {
    const body = parseObject(text);
    const choice = Array.isArray(body.choices) ? body.choices[0] : undefined;
    const usage = usageFromWire(body.usage);
    const images = imagesFrom(choice?.message?.images).length;
    if (images > 0) usage.imageOutputs = images;
    return { usage, finishReason: finishReasonFromWire(choice?.finish_reason) };
  },

  streamEvent(event: SseEvent, ctx: EncodeContext) {
    const end = event.crlf ? "\r\n\r\n" : "\n\n";
    if (event.data === "[DONE]") return `data: [DONE]${end}`;
    if (!ctx.request.streamUsage && isUsageOnlyChunk(event.data)) return "";
    let data = withIdentity(event.data, ctx, "id", "model");
    if (excludesReasoning(ctx) && mayHoldReasoning(data)) data = withoutReasoning(data, "delta");
    return `data: ${data}${end}`;
  },

  // A chunk still under way (`finish_reason` null) that opens like the last decoded one (same id,
  // model, created) and holds nothing the meter counts: usage (OpenAI sends `"usage":null` on every
  // chunk when usage is asked for), an error, generated images. A quoted member name cannot occur
  // inside a string (its quotes would be escaped), so a match is a member. Any other spelling
  // (spaces after a colon, say) is decoded.
  passContent(event, ctx) {
    if (excludesReasoning(ctx)) return undefined;
    const opening = identityOpening(ctx, "id", "model", "data: ");
    if (!opening || !event.view.startsWith(opening.text, event.from)) return undefined;
    if (!objectDataLine(event, event.from)) return undefined;
    if (event.find('"finish_reason":null') < 0 || event.find('"error"') >= 0 || event.find('"images"') >= 0)
      return undefined;
    const usage = event.find('"usage"');
    if (usage >= 0 && !event.view.startsWith('"usage":null', usage)) return undefined;
    return { replace: opening.text.length, by: opening.edited };
  },
};

/** Removes `audio` from the messages the client face named (`messages[i].audio`, decode-request.ts). */
function withoutAssistantAudio(body: string, ignored: string[]): string {
  const named = new Set<number>();
  for (const name of ignored) {
    const match = /^messages\[(\d+)\]\.audio$/.exec(name);
    if (match) named.add(Number(match[1]));
  }
  if (named.size === 0) return body;
  return editJsonArrayItems(body, "messages", (message, i) =>
    named.has(i) ? editJson(message, { remove: ["audio"] }) : message,
  );
}

function excludesReasoning(ctx: EncodeContext): boolean {
  return ctx.request.reasoning?.exclude === true;
}

/** A cheap test before the edit: most chunks of a long answer carry only content. */
function mayHoldReasoning(data: string): boolean {
  return data.includes('"reasoning') || data.includes("\\u");
}

/** The answer with each choice's `message` (or stream `delta`) stripped of its reasoning. */
function withoutReasoning(text: string, holder: "message" | "delta"): string {
  return editJsonArrayItems(text, "choices", (choice) =>
    choice.startsWith("{") ? editJsonMember(choice, holder, { remove: REASONING_MEMBERS }) : choice,
  );
}

/** The chunk that carries only usage (`choices: []`), sent because the gateway asked for it. */
function isUsageOnlyChunk(data: string): boolean {
  return data.includes('"choices":[]') || /"choices"\s*:\s*\[\s*\]/.test(data);
}
