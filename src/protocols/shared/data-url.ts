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

const TYPE_BY_EXTENSION: Record<string, string> = {
  pdf: "application/pdf",
  txt: "text/plain",
  md: "text/markdown",
  csv: "text/csv",
  html: "text/html",
  json: "application/json",
};

/**
 * The media type of a `file_data` that came without a `data:` prefix. OpenAI file inputs (chat and
 * the Responses API) are PDFs unless the filename says otherwise, so that is the default.
 */
export function fileMediaType(filename: string | undefined): string {
  const extension = filename?.split(".").pop()?.toLowerCase();
  return (extension && TYPE_BY_EXTENSION[extension]) || "application/pdf";
}

/**
 * An OpenAI file input's source: `file_data` (a data URL as documented, or bare base64 typed by its
 * filename), else `file_id`; undefined when it has neither.
 */
export function fileSource(
  fileData: string | undefined,
  fileId: string | undefined,
  filename: string | undefined,
): MediaSource | undefined {
  if (fileData)
    return {
      kind: "base64",
      ...(parseDataUrl(fileData) ?? { mediaType: fileMediaType(filename), data: fileData }),
    };
  if (!fileId) return undefined;
  const source: MediaSource = { kind: "file", fileId };
  if (filename) source.filename = filename;
  return source;
}
