// Server-Sent Events framing shared by the protocol encoders, and the reading of an upstream frame's
// data shared by their stream decoders.

import { upstreamFrameNotJson } from "../../ir/errors.ts";
import type { PassedBytes, RawSseEvent, RelayMemo } from "../types.ts";
import { startsAt } from "./text.ts";

/** `data: <json>\n\n` (chat-completions and content-generation streams). */
export function sseData(data: unknown): string {
  return `data: ${JSON.stringify(data)}\n\n`;
}

/** `event: <name>\ndata: <json>\n\n` (messages streams need the event line). */
export function sseEvent(name: string, data: unknown): string {
  return `event: ${name}\ndata: ${JSON.stringify(data)}\n\n`;
}

/**
 * An upstream stream frame's data as JSON: undefined for a frame that carries nothing (blank, or the
 * `[DONE]` end mark); for data that is not JSON, the 502 error the decoder fails the stream with
 * (`instanceof GatewayError`; JSON never parses to one).
 */
export function frameJson(data: string): unknown {
  const text = data.trim();
  if (text === "" || text === "[DONE]") return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return upstreamFrameNotJson();
  }
}

const EVENT_LINE = "event: ";
const DATA_FIELD = "data: ";

/** A relayed event passed on exactly as the upstream sent it, undecoded (Relay.passBytes). */
const AS_IT_CAME: PassedBytes = {};

/**
 * Relay.passBytes for a protocol that names its events (an `event:` line, then one data line
 * shaped as a JSON object; any other layout is decoded): an event whose name carries the identity
 * is decoded and framed again; one that carries only content goes on undecoded; any other goes on
 * as it came, decoded for the meter.
 */
export function passNamedEvent(
  event: RawSseEvent,
  names: { identity: (name: string) => boolean; contentOnly: (name: string) => boolean },
): PassedBytes | undefined {
  const { view, from, end } = event;
  if (!startsAt(view, EVENT_LINE, from)) return undefined;
  const nameEnd = view.indexOf("\n", from);
  if (!objectDataLine(event, nameEnd + 1)) return undefined;
  const name = view.slice(from + EVENT_LINE.length, nameEnd);
  if (names.identity(name)) return undefined;
  if (names.contentOnly(name)) return AS_IT_CAME;
  return { tap: { event: name, data: event.utf8(nameEnd + 1 + DATA_FIELD.length, end) } };
}

/**
 * Whether a relayed event, from `dataAt` on, is one data line shaped as a JSON object:
 * `data: {…}` with `}` last. Not a parse: it is how a relay checks the events it passes on
 * undecoded (Relay.passBytes), and a frame cut short (the usual broken frame) fails it.
 */
export function objectDataLine(event: RawSseEvent, dataAt: number): boolean {
  const { view, end } = event;
  return (
    startsAt(view, "data: {", dataAt) &&
    view.charCodeAt(end - 1) === 0x7d &&
    view.indexOf("\n", dataAt) === end
  );
}

/**
 * Counts an event passed on undecoded as `bytes` bytes of output text (escapes as written) for
 * RelayMemo.measured: what a stream its client leaves is priced on (src/gateway/meter.ts `estimate`).
 */
export function measuredText(memo: RelayMemo, bytes: number): void {
  memo.measured ??= { bytes: 0, events: 0 };
  memo.measured.bytes += bytes;
  memo.measured.events++;
}
