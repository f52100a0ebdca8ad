// Client → IR: the content of user, system, developer and tool messages (strings or typed parts).

import { invalid } from "../../ir/errors.ts";
import type { AudioBlock, CacheControl, DocumentBlock, ImageBlock, TextBlock } from "../../ir/request.ts";
import { expectObject, expectString, isObject, type Json, optionalString } from "../shared/validate.ts";
import { audioMediaType, fileSource, sourceFromUrl } from "./media.ts";

export type UserBlock = TextBlock | ImageBlock | AudioBlock | DocumentBlock;

const imageDetails = new Set(["auto", "low", "high"]);

/**
 * A message's `content`: a string (one text block; none when empty) or an array of parts, each read
 * by `decodePart` (nothing for an empty text). `shape` says what else the content must be.
 */
export function decodeContent<B>(
  content: unknown,
  param: string,
  shape: string,
  decodePart: (part: Json, at: string) => B | undefined,
): (B | TextBlock)[] {
  if (typeof content === "string") return content ? [{ type: "text", text: content }] : [];
  if (!Array.isArray(content)) throw invalid(param, `must be ${shape}`);
  const blocks: (B | TextBlock)[] = [];
  content.forEach((part, j) => {
    const at = `${param}[${j}]`;
    const block = decodePart(expectObject(part, at), at);
    if (block) blocks.push(block);
  });
  return blocks;
}

/** `content` that may only hold text (system, developer, tool): string or array of text parts. */
export function decodeTextContent(content: unknown, param: string): TextBlock[] {
  return decodeContent(content, param, "a string or an array of text parts", (part, at) => {
    if (part.type !== "text") throw invalid(`${at}.type`, "must be 'text'");
    return decodeTextPart(part, at);
  });
}

/** A user message's `content`: string or array of text / image_url / input_audio / file parts. */
export function decodeUserContent(content: unknown, param: string): UserBlock[] {
  return decodeContent(content, param, "a string or an array of content parts", decodeUserPart);
}

function decodeUserPart(obj: Json, at: string): UserBlock | undefined {
  switch (obj.type) {
    case "text":
      return decodeTextPart(obj, at);
    case "image_url":
      return decodeImagePart(obj, at);
    case "input_audio":
      return decodeAudioPart(obj, at);
    case "file":
      return decodeFilePart(obj, at);
    default:
      throw invalid(`${at}.type`, "must be one of text, image_url, input_audio, file");
  }
}

function decodeTextPart(obj: Record<string, unknown>, at: string): TextBlock | undefined {
  const text = expectString(obj.text, `${at}.text`);
  if (!text) return undefined;
  const block: TextBlock = { type: "text", text };
  const cacheControl = decodeCacheControl(obj.cache_control);
  if (cacheControl) block.cacheControl = cacheControl;
  return block;
}

function decodeImagePart(obj: Record<string, unknown>, at: string): ImageBlock {
  // Some older clients send the URL itself instead of `{url}`.
  const image = typeof obj.image_url === "string" ? { url: obj.image_url } : obj.image_url;
  const imageUrl = expectObject(image, `${at}.image_url`);
  const url = expectString(imageUrl.url, `${at}.image_url.url`);
  if (!url) throw invalid(`${at}.image_url.url`, "must not be empty");
  const block: ImageBlock = { type: "image", source: sourceFromUrl(url) };
  const detail = optionalString(imageUrl.detail, `${at}.image_url.detail`);
  if (detail !== undefined) {
    if (!imageDetails.has(detail)) throw invalid(`${at}.image_url.detail`, "must be one of auto, low, high");
    block.detail = detail;
  }
  const cacheControl = decodeCacheControl(obj.cache_control);
  if (cacheControl) block.cacheControl = cacheControl;
  return block;
}

function decodeAudioPart(obj: Record<string, unknown>, at: string): AudioBlock {
  const audio = expectObject(obj.input_audio, `${at}.input_audio`);
  const data = expectString(audio.data, `${at}.input_audio.data`);
  const format = expectString(audio.format, `${at}.input_audio.format`);
  if (!format) throw invalid(`${at}.input_audio.format`, "must not be empty");
  return { type: "audio", source: { kind: "base64", mediaType: audioMediaType(format), data } };
}

function decodeFilePart(obj: Record<string, unknown>, at: string): DocumentBlock {
  const file = expectObject(obj.file, `${at}.file`);
  const fileId = optionalString(file.file_id, `${at}.file.file_id`);
  const fileData = optionalString(file.file_data, `${at}.file.file_data`);
  const filename = optionalString(file.filename, `${at}.file.filename`);
  const source = fileSource(fileData, fileId, filename);
  if (!source) throw invalid(`${at}.file`, "needs file_id or file_data");
  const block: DocumentBlock = { type: "document", source };
  if (filename) block.filename = filename;
  const cacheControl = decodeCacheControl(obj.cache_control);
  if (cacheControl) block.cacheControl = cacheControl;
  return block;
}

/**
 * `cache_control` on a part is not in OpenAI's protocol, but OpenRouter clients send it for
 * Anthropic models; kept so an Anthropic-protocol upstream keeps caching (docs/architecture.md §10).
 * Malformed: ignored.
 */
function decodeCacheControl(value: unknown): CacheControl | undefined {
  if (!isObject(value) || value.type !== "ephemeral") return undefined;
  const cacheControl: CacheControl = { type: "ephemeral" };
  if (value.ttl === "5m" || value.ttl === "1h") cacheControl.ttl = value.ttl;
  return cacheControl;
}
