// Media parts ↔ IR media blocks.
//
// inlineData / fileData become IR blocks by mime type: image/* → image, audio/* → audio,
// text/plain inline bytes → a text document, everything else (application/pdf, video/*, other
// files Gemini reads) → a document carrying its mime type. Video has no IR block of its own: as a
// document it reaches a Gemini upstream unchanged, and other upstreams' encoders see a document
// media type they cannot take and refuse it there, rather than this decoder guessing for them.

import type { AudioBlock, DocumentBlock, ImageBlock, MediaSource } from "../../ir/request.ts";
import type { GeminiPart } from "./wire-types.ts";

export type MediaBlock = ImageBlock | AudioBlock | DocumentBlock;

/** The inlineData mime types the API accepts (docs/architecture.md §8); anything else is a 400 naming `….inlineData.mimeType`. */
export const INLINE_MIME_TYPES: ReadonlySet<string> = new Set([
  "application/pdf",
  "audio/mpeg",
  "audio/mp3",
  "audio/wav",
  "image/png",
  "image/jpeg",
  "image/webp",
  "text/plain",
  "video/mov",
  "video/mpeg",
  "video/mp4",
  "video/mpg",
  "video/avi",
  "video/wmv",
  "video/mpegps",
  "video/flv",
  "video/x-ms-wmv",
]);

/** Whether inline bytes of this type are accepted (parameters such as `; charset=utf-8` aside). */
export function isAcceptedInlineType(mimeType: string): boolean {
  return INLINE_MIME_TYPES.has(mimeType.split(";")[0].trim().toLowerCase());
}

export function inlineDataBlock(mimeType: string, data: string): MediaBlock {
  const type = mimeType.toLowerCase();
  if (type === "text/plain")
    return {
      type: "document",
      source: { kind: "text", text: Buffer.from(data, "base64").toString("utf8"), mediaType: "text/plain" },
    };
  return blockFor(type, { kind: "base64", mediaType: mimeType, data });
}

export function fileDataBlock(fileUri: string, mimeType: string | undefined): MediaBlock {
  const source: MediaSource = { kind: "url", url: fileUri };
  if (mimeType) source.mediaType = mimeType;
  return blockFor((mimeType ?? guessMimeType(fileUri) ?? "").toLowerCase(), source);
}

function blockFor(type: string, source: MediaSource): MediaBlock {
  if (type.startsWith("image/")) return { type: "image", source };
  if (type.startsWith("audio/")) return { type: "audio", source };
  return { type: "document", source };
}

const EXTENSION_TYPES: Record<string, string> = {
  png: "image/png",
  jpg: "image/jpeg",
  jpeg: "image/jpeg",
  webp: "image/webp",
  gif: "image/gif",
  heic: "image/heic",
  heif: "image/heif",
  pdf: "application/pdf",
  txt: "text/plain",
  mp3: "audio/mp3",
  wav: "audio/wav",
  ogg: "audio/ogg",
  flac: "audio/flac",
  aac: "audio/aac",
  mp4: "video/mp4",
  mov: "video/mov",
  webm: "video/webm",
};

export function guessMimeType(url: string): string | undefined {
  const path = url.split(/[?#]/)[0];
  const dot = path.lastIndexOf(".");
  if (dot < 0 || dot < path.lastIndexOf("/")) return undefined;
  return EXTENSION_TYPES[path.slice(dot + 1).toLowerCase()];
}

const FALLBACK_TYPE: Record<MediaBlock["type"], string> = {
  image: "image/jpeg",
  audio: "audio/mp3",
  document: "application/pdf",
};

/** IR media block → one Gemini part (inlineData for bytes and data: URLs, fileData for URLs and file ids). */
export function mediaPart(block: MediaBlock): GeminiPart {
  const source = block.source;
  if (source.kind === "text")
    return {
      inlineData: { mimeType: "text/plain", data: Buffer.from(source.text, "utf8").toString("base64") },
    };
  if (source.kind === "base64") return { inlineData: { mimeType: source.mediaType, data: source.data } };
  if (source.kind === "url") {
    const dataUrl = /^data:([^;,]+);base64,(.*)$/s.exec(source.url);
    if (dataUrl) return { inlineData: { mimeType: dataUrl[1], data: dataUrl[2] } };
    const mimeType = source.mediaType ?? guessMimeType(source.url) ?? FALLBACK_TYPE[block.type];
    return { fileData: { mimeType, fileUri: source.url } };
  }
  return { fileData: { mimeType: source.mediaType ?? FALLBACK_TYPE[block.type], fileUri: source.fileId } };
}
