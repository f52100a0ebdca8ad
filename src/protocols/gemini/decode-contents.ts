// Client → IR: `contents` (Content[] of Parts) become IR messages.
//
// - role `user` (the default; the legacy `function` role is read as user) → user, `model` → assistant;
//   consecutive contents of one role share one IR message.
// - `thought: true` parts → thinking blocks; a thought part carrying `thoughtSignature` closes its
//   block, and consecutive unsigned thought parts (a streamed thought, replayed chunk by chunk) join one.
// - A non-thought part may carry a `thoughtSignature` too (Gemini puts it on the first text part after
//   hidden reasoning, or on an empty text part at the end). It becomes an empty-text thinking block
//   holding the signature, placed just before that part's text; the encoders put such a block's
//   signature back on the text part that follows it (see output-parts.ts).
// - functionCall (model turns) → tool_call with the part's `thoughtSignature` as its signature, kept
//   byte for byte ("skip_thought_signature_validator" included). Calls without an id get one, and a
//   later functionResponse with the same name and no id gets the same id, first call first.
// - functionResponse (user turns) → tool_result carrying the name (other protocols need only the id).

import { invalid } from "../../ir/errors.ts";
import type {
  ContentBlock,
  DocumentBlock,
  ImageBlock,
  Message,
  TextBlock,
  ThinkingBlock,
  ToolResultBlock,
} from "../../ir/request.ts";
import { newToolCallId } from "../../ir/tool-call-id.ts";
import {
  expectArray,
  expectObject,
  expectString,
  isObject,
  type Json,
  optionalString,
} from "../shared/validate.ts";
import {
  fileDataBlock,
  INLINE_MIME_TYPES,
  inlineDataBlock,
  isAcceptedInlineType,
  type MediaBlock,
} from "./media.ts";
import { camelName, field } from "./read-field.ts";

const DATA_FIELDS = [
  "text",
  "inlineData",
  "fileData",
  "functionCall",
  "functionResponse",
  "executableCode",
  "codeExecutionResult",
  "toolCall",
  "toolResponse",
];
/** Results of Gemini's own server-side tools (code execution, search…), which the gateway does not run. */
const SERVER_TOOL_FIELDS = ["executableCode", "codeExecutionResult", "toolCall", "toolResponse"];
/** Part-level fields accepted beside the data field but not carried. */
const IGNORED_PART_FIELDS = ["videoMetadata", "partMetadata", "mediaProcessing", "speechMetadata"];

type Role = "user" | "assistant";

/** Pairs functionResponses with the functionCalls they answer when the client sent no ids. */
class CallIds {
  private readonly pending = new Map<string, string[]>();

  forCall(id: string | undefined, name: string): string {
    const callId = id ?? newToolCallId();
    const queue = this.pending.get(name) ?? [];
    queue.push(callId);
    this.pending.set(name, queue);
    return callId;
  }

  forResponse(id: string | undefined, name: string): string {
    const queue = this.pending.get(name) ?? [];
    if (id !== undefined) {
      const at = queue.indexOf(id);
      if (at >= 0) queue.splice(at, 1);
      return id;
    }
    return queue.shift() ?? newToolCallId();
  }
}

export function decodeContents(value: unknown, ignored: Set<string>): Message[] {
  const list = expectArray(value, "contents");
  if (list.length === 0) throw invalid("contents", "must contain at least one Content");
  const messages: Message[] = [];
  const callIds = new CallIds();
  list.forEach((item, i) => {
    const at = `contents[${i}]`;
    const content = expectObject(item, at);
    const role = decodeRole(content.role, `${at}.role`);
    const parts = expectArray(content.parts, `${at}.parts`);
    if (parts.length === 0) throw invalid(`${at}.parts`, "must contain at least one Part");
    const last = messages.at(-1);
    const message: Message = last?.role === role ? last : { role, content: [] };
    parts.forEach((part, j) => {
      decodePart(
        expectObject(part, `${at}.parts[${j}]`),
        `${at}.parts[${j}]`,
        role,
        message.content,
        callIds,
        ignored,
      );
    });
    if (message !== last && message.content.length > 0) messages.push(message);
  });
  return messages;
}

function decodeRole(value: unknown, at: string): Role {
  const role = optionalString(value, at) ?? "user";
  if (role === "user" || role === "function") return "user";
  if (role === "model") return "assistant";
  throw invalid(at, "must be user or model");
}

function decodePart(
  part: Json,
  at: string,
  role: Role,
  out: ContentBlock[],
  callIds: CallIds,
  ignored: Set<string>,
): void {
  const present = DATA_FIELDS.filter((name) => field(part, name) !== undefined && field(part, name) !== null);
  if (present.length !== 1)
    throw invalid(at, `must hold exactly one of text, inlineData, fileData, functionCall, functionResponse`);
  const kind = present[0];
  const signature = optionalString(field(part, "thoughtSignature"), `${at}.thoughtSignature`);
  const thought = field(part, "thought");
  if (thought !== undefined && thought !== null && typeof thought !== "boolean")
    throw invalid(`${at}.thought`, "must be a boolean");
  for (const key of Object.keys(part))
    if (IGNORED_PART_FIELDS.includes(camelName(key))) ignored.add(`contents.parts.${camelName(key)}`);

  if (SERVER_TOOL_FIELDS.includes(kind)) {
    ignored.add(`contents.parts.${kind}`);
    return;
  }
  const value = field(part, kind);
  const where = `${at}.${kind}`;
  if (kind === "text") {
    const text = expectString(value, where);
    if (thought === true) {
      if (role === "assistant") pushThought(out, text, signature);
      else ignored.add("contents.parts.thought");
      return;
    }
    if (signature !== undefined && role === "assistant") out.push({ type: "thinking", text: "", signature });
    if (text !== "") out.push({ type: "text", text });
    return;
  }
  if (kind === "functionCall") {
    if (role !== "assistant") throw invalid(where, "is only allowed in model turns");
    const call = expectObject(value, where);
    const name = expectString(call.name, `${where}.name`);
    const args = call.args ?? {};
    if (!isObject(args)) throw invalid(`${where}.args`, "must be an object");
    const id = callIds.forCall(optionalString(call.id, `${where}.id`), name);
    out.push({
      type: "tool_call",
      id,
      name,
      arguments: JSON.stringify(args),
      ...(signature !== undefined && { signature }),
    });
    return;
  }
  if (kind === "functionResponse") {
    if (role !== "user") throw invalid(where, "is only allowed in user turns");
    out.push(decodeFunctionResponse(expectObject(value, where), where, callIds));
    return;
  }
  const media = kind === "inlineData" ? decodeInlineData(value, where) : decodeFileData(value, where);
  if (media.type === "image") {
    const detail = mediaResolutionDetail(field(part, "mediaResolution"));
    if (detail) media.detail = detail;
  }
  out.push(media);
}

function pushThought(out: ContentBlock[], text: string, signature: string | undefined): void {
  const last = out.at(-1);
  if (last?.type === "thinking" && last.signature === undefined) {
    last.text += text;
    if (signature !== undefined) last.signature = signature;
    return;
  }
  const block: ThinkingBlock = { type: "thinking", text };
  if (signature !== undefined) block.signature = signature;
  out.push(block);
}

function decodeInlineData(value: unknown, at: string): MediaBlock {
  const blob = expectObject(value, at);
  const mimeType = expectString(field(blob, "mimeType"), `${at}.mimeType`);
  if (!isAcceptedInlineType(mimeType))
    throw invalid(`${at}.mimeType`, `must be one of ${[...INLINE_MIME_TYPES].join(", ")}`);
  const data = expectString(blob.data, `${at}.data`);
  return inlineDataBlock(mimeType, data);
}

function decodeFileData(value: unknown, at: string): MediaBlock {
  const file = expectObject(value, at);
  const fileUri = expectString(field(file, "fileUri"), `${at}.fileUri`);
  return fileDataBlock(fileUri, optionalString(field(file, "mimeType"), `${at}.mimeType`));
}

/** Part-level `mediaResolution` (`{level: MEDIA_RESOLUTION_LOW}` or a bare level) → IR image detail. */
function mediaResolutionDetail(value: unknown): string | undefined {
  const level = isObject(value) ? value.level : value;
  if (typeof level !== "string") return undefined;
  if (level.endsWith("ULTRA_HIGH") || level.endsWith("HIGH")) return "high";
  if (level.endsWith("LOW")) return "low";
  return undefined;
}

function decodeFunctionResponse(response: Json, at: string, callIds: CallIds): ToolResultBlock {
  const name = expectString(response.name, `${at}.name`);
  const payload = response.response ?? {};
  if (!isObject(payload)) throw invalid(`${at}.response`, "must be an object");
  const id = callIds.forResponse(optionalString(response.id, `${at}.id`), name);
  // The SDK documents `output` for the result and `error` for a failure; `result` is what most
  // examples (and this gateway's encoder) use. Any other object is the result as a whole.
  const keys = Object.keys(payload);
  const isError = keys.length === 1 && keys[0] === "error";
  const single = keys.length === 1 && (isError || keys[0] === "result" || keys[0] === "output");
  const result = single ? payload[keys[0]] : payload;
  const content: ToolResultBlock["content"] = [
    { type: "text", text: typeof result === "string" ? result : JSON.stringify(result ?? null) },
  ];
  const parts = field(response, "parts");
  if (parts !== undefined && parts !== null)
    expectArray(parts, `${at}.parts`).forEach((item, k) => {
      content.push(functionResponseMedia(expectObject(item, `${at}.parts[${k}]`), `${at}.parts[${k}]`));
    });
  const block: ToolResultBlock = { type: "tool_result", toolCallId: id, name, content };
  if (isError) block.isError = true;
  return block;
}

/** A media part of a multimodal function response; the IR tool result holds images and documents. */
function functionResponseMedia(part: Json, at: string): ImageBlock | DocumentBlock | TextBlock {
  const inline = field(part, "inlineData");
  const file = field(part, "fileData");
  const media =
    inline !== undefined && inline !== null
      ? decodeInlineData(inline, `${at}.inlineData`)
      : file !== undefined && file !== null
        ? decodeFileData(file, `${at}.fileData`)
        : undefined;
  if (!media) throw invalid(at, "must hold inlineData or fileData");
  if (media.type === "audio") return { type: "document", source: media.source };
  return media;
}
