// Media references as the chat protocol writes them: `data:` URLs for inline bytes
// (src/protocols/shared/data-url.ts), bare format names for audio (`wav`, `mp3`), and base64 file
// data with a filename hint.

export { dataUrl, parseDataUrl, sourceFromUrl } from "../shared/data-url.ts";

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
