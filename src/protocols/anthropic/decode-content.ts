// Content blocks of a messages-protocol request → IR content blocks. Each wrong shape is a 400 naming
// the field as the client wrote it (`messages[3].content[0].source.media_type`).

import { invalid } from "../../ir/errors.ts";
import type {
  Citation,
  ContentBlock,
  DocumentBlock,
  ImageBlock,
  MediaSource,
  TextBlock,
  ToolResultBlock,
} from "../../ir/request.ts";
import { unpackToolCallId } from "../../ir/tool-call-id.ts";
import {
  expectArray,
  expectObject,
  expectString,
  isObject,
  type Json,
  optionalBoolean,
  optionalString,
  setIfDefined,
} from "../shared/validate.ts";
import { decodeCacheControl } from "./cache-control.ts";

const IMAGE_MEDIA_TYPES = new Set(["image/jpeg", "image/png", "image/gif", "image/webp"]);
const PDF = new Set(["application/pdf"]);

/**
 * Blocks produced by Anthropic's own server tools (web search, code execution, MCP…). No other
 * upstream can take them back, so they are dropped and named in `ignored`.
 */
const SERVER_TOOL_BLOCKS = new Set([
  "server_tool_use",
  "web_search_tool_result",
  "web_fetch_tool_result",
  "code_execution_tool_result",
  "bash_code_execution_tool_result",
  "text_editor_code_execution_tool_result",
  "tool_search_tool_result",
  "mcp_tool_use",
  "mcp_tool_result",
  "container_upload",
]);

/** A message's `content` (string or blocks) as IR blocks. */
export function decodeContent(
  content: unknown,
  role: "user" | "assistant",
  param: string,
  ignored: string[],
): ContentBlock[] {
  if (typeof content === "string") return [{ type: "text", text: content }];
  const blocks: ContentBlock[] = [];
  expectArray(content, param).forEach((item, j) => {
    const block = decodeBlock(item, role, `${param}[${j}]`, ignored);
    if (block) blocks.push(block);
  });
  return blocks;
}

function decodeBlock(
  value: unknown,
  role: "user" | "assistant",
  param: string,
  ignored: string[],
): ContentBlock | undefined {
  const block = expectObject(value, param);
  const type = expectString(block.type, `${param}.type`);
  switch (type) {
    case "text":
      return decodeText(block, param);
    case "image":
      return decodeImage(block, param);
    case "document":
      return decodeDocument(block, param, ignored);
    case "search_result":
      return decodeSearchResult(block, param);
    case "tool_use":
      if (role !== "assistant")
        throw invalid(`${param}.type`, "tool_use blocks belong to assistant messages");
      return decodeToolUse(block, param);
    case "tool_result":
      if (role !== "user") throw invalid(`${param}.type`, "tool_result blocks belong to user messages");
      return decodeToolResult(block, param, ignored);
    case "thinking": {
      // The text may be empty while a signature is set: such blocks are replayed as they are
      // (docs/architecture.md §10).
      const text = expectString(block.thinking, `${param}.thinking`);
      const signature = optionalString(block.signature, `${param}.signature`);
      return signature === undefined ? { type: "thinking", text } : { type: "thinking", text, signature };
    }
    case "redacted_thinking":
      return { type: "redacted_thinking", data: expectString(block.data, `${param}.data`) };
    default:
      if (SERVER_TOOL_BLOCKS.has(type)) {
        ignored.push(param);
        return undefined;
      }
      throw invalid(`${param}.type`, `unknown content block type "${type}"`);
  }
}

export function decodeText(block: Json, param: string): TextBlock {
  const text: TextBlock = { type: "text", text: expectString(block.text, `${param}.text`) };
  setIfDefined(text, "cacheControl", decodeCacheControl(block.cache_control, `${param}.cache_control`));
  if (block.citations !== undefined && block.citations !== null) {
    const citations = expectArray(block.citations, `${param}.citations`).map((c, k): Citation => {
      const citation = expectObject(c, `${param}.citations[${k}]`);
      expectString(citation.type, `${param}.citations[${k}].type`);
      return citation as Citation;
    });
    if (citations.length > 0) text.citations = citations;
  }
  return text;
}

function decodeImage(block: Json, param: string): ImageBlock {
  const sp = `${param}.source`;
  const media = mediaSource(expectObject(block.source, sp), sp, IMAGE_MEDIA_TYPES);
  if (!media) throw invalid(`${sp}.type`, 'must be "base64", "url" or "file"');
  const image: ImageBlock = { type: "image", source: media };
  setIfDefined(image, "cacheControl", decodeCacheControl(block.cache_control, `${param}.cache_control`));
  return image;
}

/**
 * The sources images and documents write alike: `base64` (`media_type`, one of `base64Types`, and
 * `data`), `url` and `file` (`file_id`). Undefined for another `type`, which the caller reads.
 */
function mediaSource(source: Json, sp: string, base64Types: ReadonlySet<string>): MediaSource | undefined {
  switch (source.type) {
    case "base64": {
      const mediaType = source.media_type;
      if (typeof mediaType !== "string" || !base64Types.has(mediaType)) {
        const types = [...base64Types];
        throw invalid(
          `${sp}.media_type`,
          types.length === 1 ? `must be "${types[0]}"` : `must be one of ${types.join(", ")}`,
        );
      }
      return { kind: "base64", mediaType, data: expectString(source.data, `${sp}.data`) };
    }
    case "url":
      return { kind: "url", url: expectString(source.url, `${sp}.url`) };
    case "file":
      return { kind: "file", fileId: expectString(source.file_id, `${sp}.file_id`) };
    default:
      return undefined;
  }
}

function decodeDocument(block: Json, param: string, ignored: string[]): DocumentBlock {
  const sp = `${param}.source`;
  const docSource = documentSource(expectObject(block.source, sp), sp, ignored);
  const doc: DocumentBlock = { type: "document", source: docSource };
  setIfDefined(doc, "title", optionalString(block.title, `${param}.title`));
  setIfDefined(doc, "context", optionalString(block.context, `${param}.context`));
  setIfDefined(doc, "citations", citationsEnabled(block.citations, `${param}.citations`));
  setIfDefined(doc, "cacheControl", decodeCacheControl(block.cache_control, `${param}.cache_control`));
  return doc;
}

/** A document's source: a PDF (base64 or, as the API's URL source always is, by URL), a file, or text. */
function documentSource(source: Json, sp: string, ignored: string[]): DocumentBlock["source"] {
  if (source.type === "text") {
    if (source.media_type !== "text/plain") throw invalid(`${sp}.media_type`, 'must be "text/plain"');
    return { kind: "text", mediaType: "text/plain", text: expectString(source.data, `${sp}.data`) };
  }
  if (source.type === "content")
    return { kind: "text", mediaType: "text/plain", text: contentSourceText(source.content, sp, ignored) };
  const media = mediaSource(source, sp, PDF);
  if (!media) throw invalid(`${sp}.type`, 'must be "base64", "text", "content", "url" or "file"');
  return media.kind === "url" ? { ...media, mediaType: "application/pdf" } : media;
}

/**
 * A `{type: "content"}` document source as plain text: the IR has no nested-block document, so its
 * text blocks are joined; images inside it cannot follow and are named in `ignored`.
 */
function contentSourceText(content: unknown, param: string, ignored: string[]): string {
  const cp = `${param}.content`;
  if (typeof content === "string") return content;
  const texts: string[] = [];
  expectArray(content, cp).forEach((item, k) => {
    const block = expectObject(item, `${cp}[${k}]`);
    if (block.type === "text") texts.push(expectString(block.text, `${cp}[${k}].text`));
    else if (block.type === "image") ignored.push(`${cp}[${k}]`);
    else throw invalid(`${cp}[${k}].type`, 'must be "text" or "image"');
  });
  return texts.join("\n\n");
}

function citationsEnabled(value: unknown, param: string): boolean | undefined {
  if (value === undefined || value === null) return undefined;
  const config = expectObject(value, param);
  return optionalBoolean(config.enabled, `${param}.enabled`);
}

/**
 * A `search_result` block becomes a plain-text document: the IR has no search-result block, and a
 * titled document is what every upstream understands (its `source` is kept as the context line).
 */
function decodeSearchResult(block: Json, param: string): DocumentBlock {
  const source = optionalString(block.source, `${param}.source`);
  const title = optionalString(block.title, `${param}.title`);
  const texts = expectArray(block.content, `${param}.content`).map(
    (item, k) => decodeText(expectObject(item, `${param}.content[${k}]`), `${param}.content[${k}]`).text,
  );
  const doc: DocumentBlock = {
    type: "document",
    source: { kind: "text", mediaType: "text/plain", text: texts.join("\n\n") },
  };
  if (title !== undefined) doc.title = title;
  if (source !== undefined) doc.context = `Source: ${source}`;
  setIfDefined(doc, "citations", citationsEnabled(block.citations, `${param}.citations`));
  setIfDefined(doc, "cacheControl", decodeCacheControl(block.cache_control, `${param}.cache_control`));
  return doc;
}

function decodeToolUse(block: Json, param: string): ContentBlock {
  // The id we gave the client may carry a Gemini thoughtSignature: restore it on the IR call.
  const { id, signature } = unpackToolCallId(expectString(block.id, `${param}.id`));
  const name = expectString(block.name, `${param}.name`);
  if (!isObject(block.input)) throw invalid(`${param}.input`, "must be an object");
  const call: ContentBlock = { type: "tool_call", id, name, arguments: JSON.stringify(block.input) };
  if (signature !== undefined) call.signature = signature;
  setIfDefined(call, "cacheControl", decodeCacheControl(block.cache_control, `${param}.cache_control`));
  return call;
}

function decodeToolResult(block: Json, param: string, ignored: string[]): ToolResultBlock {
  const toolCallId = unpackToolCallId(expectString(block.tool_use_id, `${param}.tool_use_id`)).id;
  const result: ToolResultBlock = { type: "tool_result", toolCallId, content: [] };
  const cp = `${param}.content`;
  if (typeof block.content === "string") result.content.push({ type: "text", text: block.content });
  else if (block.content !== undefined && block.content !== null)
    expectArray(block.content, cp).forEach((item, k) => {
      const inner = expectObject(item, `${cp}[${k}]`);
      const ip = `${cp}[${k}]`;
      switch (inner.type) {
        case "text":
          result.content.push(decodeText(inner, ip));
          return;
        case "image":
          result.content.push(decodeImage(inner, ip));
          return;
        case "document":
          result.content.push(decodeDocument(inner, ip, ignored));
          return;
        case "search_result":
          result.content.push(decodeSearchResult(inner, ip));
          return;
        case "tool_reference":
          // Tool search run by the client (Claude Code's): the named deferred tool is loaded. Another
          // protocol has no such block; its tool is sent in full (decodeTools) and this says so in text.
          result.content.push({ type: "text", text: toolReferenceText(decodeToolReference(inner, ip)) });
          ignored.push(ip);
          return;
        default:
          throw invalid(
            `${ip}.type`,
            'must be "text", "image", "document", "search_result" or "tool_reference"',
          );
      }
    });
  setIfDefined(result, "isError", optionalBoolean(block.is_error, `${param}.is_error`));
  setIfDefined(result, "cacheControl", decodeCacheControl(block.cache_control, `${param}.cache_control`));
  return result;
}

function decodeToolReference(block: Json, param: string): string {
  const name = expectString(block.tool_name, `${param}.tool_name`);
  if (name.length === 0) throw invalid(`${param}.tool_name`, "must not be empty");
  return name;
}

/** What a model of another protocol reads where the client sent a `tool_reference`. */
export function toolReferenceText(name: string): string {
  return `Tool loaded: ${name}`;
}

/**
 * The tools a conversation has loaded by tool search: each `tool_reference` in a tool result
 * (read after decodeContent has checked every block, so the shapes hold).
 */
export function referencedToolNames(messages: unknown): Set<string> {
  const names = new Set<string>();
  if (!Array.isArray(messages)) return names;
  for (const message of messages) {
    if (!isObject(message) || !Array.isArray(message.content)) continue;
    for (const block of message.content) {
      if (!isObject(block) || block.type !== "tool_result" || !Array.isArray(block.content)) continue;
      for (const inner of block.content)
        if (isObject(inner) && inner.type === "tool_reference" && typeof inner.tool_name === "string")
          names.add(inner.tool_name);
    }
  }
  return names;
}
