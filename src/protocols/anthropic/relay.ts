// Messages client to a messages upstream: the request goes on unchanged but for the model and the
// two fields the API does not support (betas, cache_control, signatures, context_management… byte for
// byte), the answer comes back with the generation id and the catalog model.

import { identityEdits } from "../shared/identity.ts";
import { editJson, editJsonMember, parseObject } from "../shared/json-edit.ts";
import { measuredText, passNamedEvent } from "../shared/sse.ts";
import type { EncodeContext, RawSseEvent, Relay, RelayMemo, SseEvent } from "../types.ts";
import { messagesBetas } from "./headers.ts";
import { finishReasonFromWire } from "./map-finish-reason.ts";
import { usageFromWire } from "./map-usage.ts";

/**
 * The API lists these body fields as unsupported on this face (docs/architecture.md §8): removed even on a relay and named
 * (Claude Code sends `metadata.user_id`, which carries account and session ids).
 */
const UNSUPPORTED = ["metadata", "service_tier"];

export const anthropicRelay: Relay = {
  request(raw, request, target, unsent) {
    const edits = { set: { model: JSON.stringify(target.model) }, remove: UNSUPPORTED };
    unsent.addPaths(request.ignored.filter((name) => UNSUPPORTED.includes(name)));
    return { path: "/v1/messages", body: editJson(raw, edits) };
  },

  headers(clientHeaders): Record<string, string> {
    // Every beta checkMessagesHeaders saw, under either name.
    const betas = messagesBetas(clientHeaders);
    return betas.length > 0 ? { "anthropic-beta": [...new Set(betas)].join(",") } : {};
  },

  response(text, ctx) {
    return editJson(text, identityEdits(ctx, "id", "model"));
  },

  tap(text) {
    const body = parseObject(text);
    return { usage: usageFromWire(body.usage), finishReason: finishReasonFromWire(body.stop_reason) };
  },

  streamEvent(event: SseEvent, ctx: EncodeContext) {
    const name = event.event ?? "message";
    const data =
      name === "message_start"
        ? editJsonMember(event.data, "message", identityEdits(ctx, "id", "model"))
        : event.data;
    const eol = event.crlf ? "\r\n" : "\n";
    return `event: ${name}${eol}data: ${data}${eol}${eol}`;
  },

  // Only message_start carries the identity; every other event goes on as it came. A content delta
  // is not decoded (usage, the stop reason and errors come in events of their own); the others are,
  // for the meter (a ping too: it must not pass for the first token).
  passBytes(event, _ctx, memo) {
    const passed = passNamedEvent(event, {
      identity: (name) => name === "message_start",
      contentOnly: (name) => name === "content_block_delta",
    });
    if (passed && !passed.tap) measureDelta(event, memo);
    return passed;
  },
};

/** How a content delta begins, up to the separator after its first key (`:"` or, spaced, `: "`). */
const DELTA_OPENING = 'event: content_block_delta\ndata: {"type":';
/** It ends with its one string member (last in `delta`, `delta` last): `…"text":"…"}}`. */
const DELTA_END = '"}}';
const SPACE = 0x20;
const SIGNATURE_KEY = '"signature';

/**
 * The text of a content delta passed on undecoded, measured (RelayMemo.measured): its text,
 * thinking or tool arguments, escapes as written; a signature is no output of its own (0). A
 * delta of another layout is left unmeasured (a token an event, relay-stream.ts
 * undecodedOutputTokens). The value begins after the event's last key-value separator: within a
 * JSON string every quote but the closing one is escaped, so none of its text can look like one.
 * Searched backwards from the end, it costs a pass over the text, and no copy.
 */
function measureDelta(event: RawSseEvent, memo: RelayMemo): void {
  const { view, from, end } = event;
  const close = end - DELTA_END.length;
  if (!view.startsWith(DELTA_END, close) || !view.startsWith(DELTA_OPENING, from)) return;
  const separator = view.charCodeAt(from + DELTA_OPENING.length) === SPACE ? '": "' : '":"';
  // Ending before the closing quote: an escaped quote, a colon and that quote would look like one.
  const at = view.lastIndexOf(separator, close - separator.length);
  if (at < from) return;
  measuredText(
    memo,
    view.startsWith(SIGNATURE_KEY, at - SIGNATURE_KEY.length) ? 0 : close - at - separator.length,
  );
}
