// Inline bytes as OpenAI's protocols write them (chat-completions and the Responses API alike):
// `data:<type>;base64,<data>` URLs.

import type { MediaSource } from "../../ir/request.ts";

/** `data:<type>;base64,<data>` → base64 source; anything else is a plain URL. */
export function sourceFromUrl(url: string): MediaSource {
  const inline = parseDataUrl(url);
  return inline ? { kind: "base64", ...inline } : { kind: "url", url };
}

export function parseDataUrl(url: string): { mediaType: string; data: string } | undefined {
  const match = /^data:([^;,]*)((?:;[^;,]*)*);base64,/i.exec(url);
  if (!match) return undefined;
  return { mediaType: match[1] || "application/octet-stream", data: url.slice(match[0].length) };
}

export function dataUrl(mediaType: string, data: string): string {
  return `data:${mediaType};base64,${data}`;
}
