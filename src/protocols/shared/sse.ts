// Server-Sent Events framing shared by the protocol encoders, and the reading of an upstream frame's
// data shared by their stream decoders.

import { upstreamFrameNotJson } from "../../ir/errors.ts";

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
