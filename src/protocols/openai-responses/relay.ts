// Responses client to a Responses upstream: the request goes on unchanged but for the model (hosted
// tools, `include`, `prompt_cache_key`, reasoning items and their encrypted content… byte for byte)
// and, when the gateway keeps the answer, an `include` asking for reasoning's encrypted content;
// the answer comes back with the generation id and the catalog model. A stream's lifecycle events
// (response.created … response.completed) carry the response object whose id and model are set;
// every other event goes on as it came.

import type { Request } from "../../ir/request.ts";
import { identityEdits } from "../shared/identity.ts";
import { editJson, editJsonMember, parseObject, topLevelMembers } from "../shared/json-edit.ts";
import { passNamedEvent } from "../shared/sse.ts";
import type { EncodeContext, Relay, SseEvent, UpstreamTarget } from "../types.ts";
import { ENCRYPTED_REASONING_INCLUDE } from "./decode-request.ts";
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
  request(raw, request, target) {
    const set: Record<string, string> = { model: JSON.stringify(target.model) };
    const include = target.kept ? includeToKeep(raw, request, target) : undefined;
    if (include) set.include = include;
    return { path: "/responses", body: editJson(raw, { set }) };
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

/**
 * The `include` an answer the gateway keeps is asked with (raw JSON), undefined to leave the client's
 * as sent. OpenAI gives a reasoning item's `encrypted_content` only when `include` asks for it, and
 * a later turn (`previous_response_id`, an `item_reference`) sends the stored item back without its
 * id: without it the reasoning is lost, or refused. Asked only of a model that reasons (the catalog
 * says so, or the client asked for reasoning): OpenAI refuses it of any other, naming `include`.
 *
 * The rest goes as the client sent it, on purpose:
 * - `store`: kept. A client that sends earlier output items back by id (the openai SDK's
 *   `input: [...response.output]`) relies on the upstream having stored them, as the real API does;
 *   `store: false` would make those ids unknown to it. The gateway's own chain never needs it.
 * - the answer keeps the `encrypted_content` the client did not ask for: the openai SDK and the AI
 *   SDK take the member (optional, nullish), a client that sends the output back whole then carries
 *   the signature itself, and cutting it would mean decoding the reasoning items' events and the
 *   last one, which the relay's fast path passes on as bytes (src/gateway/relay-fast-path.ts).
 */
function includeToKeep(raw: string, request: Request, target: UpstreamTarget): string | undefined {
  const reasoning = request.reasoning;
  if (reasoning?.enabled === false) return undefined;
  if (!target.reasoningModel && reasoning?.effort === undefined) return undefined;
  // Sought with `model`, which every body has: once it is found, a body that cannot hold `include`
  // is read no further (json-edit.ts memberList), and the edit then finds the same.
  const span = topLevelMembers(raw, ["model", "include"]).get("include");
  // The front door checked it: absent, null, or an array of strings.
  const asked: unknown = span ? JSON.parse(raw.slice(span.valueStart, span.end)) : undefined;
  const list = Array.isArray(asked) ? asked : [];
  return list.includes(ENCRYPTED_REASONING_INCLUDE)
    ? undefined
    : JSON.stringify([...list, ENCRYPTED_REASONING_INCLUDE]);
}

/** The `type` of an event sent without an `event:` line (it comes first in OpenAI's events). */
function eventType(data: string): string | undefined {
  return /^\s*\{\s*"type"\s*:\s*"([^"]+)"/.exec(data)?.[1];
}
