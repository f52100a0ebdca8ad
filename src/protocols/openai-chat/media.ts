// Media references as the chat protocol writes them: `data:` URLs for inline bytes, bare format names
// for audio (`wav`, `mp3`), and base64 file data with a filename hint.

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

/** chat `input_audio.format` → media type. `mp3` stays `audio/mp3` so it maps back unchanged. */
export function audioMediaType(format: string): string {
  return `audio/${format.toLowerCase()}`;
}

/** Media type → chat `input_audio.format` (`audio/mpeg` is the registered name of mp3). */
export function audioFormat(mediaType: string): string {
  const subtype = mediaType.toLowerCase().replace(/^audio\//, "");
  if (subtype === "mpeg" || subtype === "mpeg3" || subtype === "x-mpeg-3") return "mp3";
  if (subtype === "x-wav" || subtype === "wave" || subtype === "vnd.wave") return "wav";
  return subtype;
}

const typeByExtension: Record<string, string> = {
  pdf: "application/pdf",
  txt: "text/plain",
  md: "text/markdown",
  csv: "text/csv",
  html: "text/html",
  json: "application/json",
};

/**
 * The media type of a `file_data` that came without a `data:` prefix. Chat file inputs are PDFs
 * unless the filename says otherwise, so that is the default.
 */
export function fileMediaType(filename: string | undefined): string {
  const extension = filename?.split(".").pop()?.toLowerCase();
  return (extension && typeByExtension[extension]) || "application/pdf";
}
