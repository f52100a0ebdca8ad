// Media references as the chat protocol writes them: `data:` URLs for inline bytes
// (src/protocols/shared/data-url.ts), bare format names for audio (`wav`, `mp3`), and base64 file
// data with a filename hint.

export { dataUrl, fileSource, parseDataUrl, sourceFromUrl } from "../shared/data-url.ts";

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
