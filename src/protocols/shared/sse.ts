// Server-Sent Events framing shared by the protocol encoders, and the reading of an upstream frame's
// data shared by their stream decoders.

import { upstreamFrameNotJson } from "../../ir/errors.ts";
import type { RawSseEvent } from "../types.ts";
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

/**
 * Whether a relayed event, from `dataAt` on, is one data line shaped as a JSON object:
 * `data: {…}` with `}` last. Not a parse: it is how a relay checks the events it passes on
 * undecoded (Relay.passContent), and a frame cut short (the usual broken frame) fails it.
 */
export function objectDataLine(event: RawSseEvent, dataAt: number): boolean {
  const { view, end } = event;
  return (
    startsAt(view, "data: {", dataAt) &&
    view.charCodeAt(end - 1) === 0x7d &&
    view.indexOf("\n", dataAt) === end
  );
}
