// IR media (images, documents, audio) → Converse content blocks. Converse takes bytes (base64 in the
// JSON body) or an S3 location, each with a `format` named from a fixed list, never a web URL or a
// file id: those are a 400 naming what was sent. A document needs a `name` of letters, digits, single
// spaces, hyphens, parentheses and square brackets, unique within the request.

import { invalidPrompt } from "../../ir/errors.ts";
import type { AudioBlock, DocumentBlock, ImageBlock, MediaSource } from "../../ir/request.ts";

const IMAGE_FORMATS: Record<string, string> = {
  "image/png": "png",
  "image/jpeg": "jpeg",
  "image/jpg": "jpeg",
  "image/gif": "gif",
  "image/webp": "webp",
};

const DOCUMENT_FORMATS: Record<string, string> = {
  "application/pdf": "pdf",
  "text/plain": "txt",
  "text/csv": "csv",
  "text/html": "html",
  "text/markdown": "md",
  "application/msword": "doc",
  "application/vnd.openxmlformats-officedocument.wordprocessingml.document": "docx",
  "application/vnd.ms-excel": "xls",
  "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet": "xlsx",
};

const AUDIO_FORMATS: Record<string, string> = {
  "audio/wav": "wav",
  "audio/x-wav": "wav",
  "audio/wave": "wav",
  "audio/mp3": "mp3",
  "audio/mpeg": "mp3",
  "audio/flac": "flac",
  "audio/aac": "aac",
  "audio/ogg": "ogg",
  "audio/opus": "opus",
  "audio/webm": "webm",
  "audio/mp4": "m4a",
  "audio/m4a": "m4a",
  "audio/x-m4a": "m4a",
  "audio/pcm": "pcm",
};

/** `{image: {format, source}}`. */
export function encodeImage(block: ImageBlock): object {
  const source = block.source;
  const format = formatOf(IMAGE_FORMATS, source, "an image");
  return { image: { format, source: wireSource(source, "an image") } };
}

/** `{audio: {format, source}}`. */
export function encodeAudio(block: AudioBlock): object {
  const format = formatOf(AUDIO_FORMATS, block.source, "an audio part");
  return { audio: { format, source: wireSource(block.source, "an audio part") } };
}

/** Names given to the request's documents so far: Converse refuses two documents of one name. */
export class DocumentNames {
  private readonly used = new Set<string>();

  /** The block's filename or title as a name Converse takes, made unique; `document` when neither gives one. */
  name(block: DocumentBlock): string {
    const base = cleanName(block.filename?.replace(/\.[^.]*$/, "") ?? block.title ?? "") || "document";
    let name = base;
    for (let n = 2; this.used.has(name); n++) name = `${base} (${n})`;
    this.used.add(name);
    return name;
  }
}

/** `{document: {format, name, source, context?, citations?}}`; a text source goes as its UTF-8 bytes. */
export function encodeDocument(block: DocumentBlock, names: DocumentNames): object {
  const source = block.source;
  const document: Record<string, unknown> = { name: names.name(block) };
  if (source.kind === "text") {
    document.format = "txt";
    document.source = { bytes: Buffer.from(source.text, "utf8").toString("base64") };
  } else {
    document.format = formatOf(DOCUMENT_FORMATS, source, "a document");
    document.source = wireSource(source, "a document");
  }
  if (block.context !== undefined) document.context = block.context;
  if (block.citations !== undefined) document.citations = { enabled: block.citations };
  return { document };
}

function wireSource(source: MediaSource, what: string): object {
  switch (source.kind) {
    case "base64":
      return { bytes: source.data };
    case "url":
      if (source.url.startsWith("s3://")) return { s3Location: { uri: source.url } };
      throw invalidPrompt(
        `${what} given by URL: this model's provider takes only inline data or an s3:// location`,
      );
    case "file":
      throw invalidPrompt(
        `${what} given by file id: this model's provider takes only inline data or an s3:// location`,
      );
  }
}

function formatOf(formats: Record<string, string>, source: MediaSource, what: string): string {
  const mediaType = (source.mediaType ?? typeFromPath(source) ?? "").toLowerCase().split(";")[0].trim();
  const format = formats[mediaType];
  if (format === undefined)
    throw invalidPrompt(
      `${what} of type '${mediaType || "unknown"}': this model's provider takes ${[...new Set(Object.values(formats))].join(", ")}`,
    );
  return format;
}

/** File extensions other than a format's own name (`key.jpg` is a jpeg). */
const EXTENSION_ALIASES: Record<string, string> = {
  jpg: "image/jpeg",
  htm: "text/html",
  markdown: "text/markdown",
};

/** An S3 object's type from its extension, since an s3:// location carries none. */
function typeFromPath(source: MediaSource): string | undefined {
  if (source.kind !== "url") return undefined;
  const extension = source.url.split(/[?#]/)[0].split(".").pop()?.toLowerCase() ?? "";
  const all = { ...IMAGE_FORMATS, ...DOCUMENT_FORMATS, ...AUDIO_FORMATS };
  return EXTENSION_ALIASES[extension] ?? Object.keys(all).find((type) => all[type] === extension);
}

function cleanName(text: string): string {
  return text
    .replace(/[^A-Za-z0-9\s\-()[\]]/g, " ")
    .replace(/\s+/g, " ")
    .trim()
    .slice(0, 200);
}
