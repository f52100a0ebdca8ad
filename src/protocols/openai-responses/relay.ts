// Responses client to a Responses upstream: the request goes on unchanged but for the model (hosted
// tools, `include`, `prompt_cache_key`, reasoning items and their encrypted content… byte for byte),
// the answer comes back with the generation id and the catalog model. A stream's lifecycle events
// (response.created … response.completed) carry the response object whose id and model are set;
// every other event goes on as it came.

import { identityEdits } from "../shared/identity.ts";
import { editJson, editJsonMember, parseObject } from "../shared/json-edit.ts";
import { passNamedEvent } from "../shared/sse.ts";
import type { EncodeContext, Relay, SseEvent } from "../types.ts";
import { finishReasonFromWire, isClientToolCall } from "./map-finish-reason.ts";
import { usageFromWire, withHostedToolUnits } from "./map-usage.ts";

/** The events whose data holds the whole `response` object. */
const LIFECYCLE = new Set([
  "response.created",
  "response.in_progress",
  "response.queued",
  "response.completed",
  "response.incomplete",
  "response.failed",
]);

export const openaiResponsesRelay: Relay = {
  request(raw, _request, target) {
    return { path: "/responses", body: editJson(raw, { set: { model: JSON.stringify(target.model) } }) };
  },

  response(text, ctx) {
    return editJson(text, identityEdits(ctx, "id", "model"));
  },

  tap(text) {
    const body = parseObject(text);
    const output: unknown[] = Array.isArray(body.output) ? body.output : [];
    const calls = output.some(
      (item) =>
        typeof item === "object" && item !== null && isClientToolCall((item as { type?: unknown }).type),
    );
    const usage = withHostedToolUnits(usageFromWire(body.usage), output);
    return { usage, finishReason: finishReasonFromWire(body.status, body.incomplete_details, calls) };
  },

  streamEvent(event: SseEvent, ctx: EncodeContext) {
    const name = event.event ?? eventType(event.data);
    const data =
      name && LIFECYCLE.has(name)
        ? editJsonMember(event.data, "response", identityEdits(ctx, "id", "model"))
        : event.data;
    const eol = event.crlf ? "\r\n" : "\n";
    return event.event === undefined
      ? `data: ${data}${eol}${eol}`
      : `event: ${name}${eol}data: ${data}${eol}${eol}`;
  },

  // Only the lifecycle events carry the identity; every other event goes on as it came. Text,
  // reasoning and argument pieces (`….delta`) are not decoded (usage, the status and billable items
  // come in other events); the others are, for the meter.
  passBytes: (event) =>
    passNamedEvent(event, {
      identity: (name) => LIFECYCLE.has(name),
      contentOnly: (name) => name.endsWith(".delta"),
    }),
};

/** The `type` of an event sent without an `event:` line (it comes first in OpenAI's events). */
function eventType(data: string): string | undefined {
  return /^\s*\{\s*"type"\s*:\s*"([^"]+)"/.exec(data)?.[1];
}
