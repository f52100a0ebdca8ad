// Client → IR: `input` (a string, or items) and `instructions`. System and developer messages become
// the IR system text wherever they appear; assistant messages, reasoning items and tool calls make up
// assistant turns; user messages and tool outputs make up user turns (consecutive items of one side
// share a turn). Tool-call ids that come back are unpacked, so that a Gemini signature that rode
// inside the id is restored (src/ir/tool-call-id.ts); a reasoning item's `encrypted_content` is the
// thinking's signature (reasoning-item.ts).
//
// Items that only OpenAI's hosted tools produce (web_search_call, computer_call, compaction…) have
// no IR form: they are dropped and named in `ignored` (a relay to a Responses upstream still sends
// them). An `item_reference` is resolved to the stored item before decoding (src/gateway/response-memory.ts);
// one that reaches the decoder had no memory to resolve it: 400.

import { GatewayError, invalid } from "../../ir/errors.ts";
import type {
  AudioBlock,
  ContentBlock,
  DocumentBlock,
  ImageBlock,
  MediaSource,
  Message,
  TextBlock,
  ToolCallBlock,
  ToolResultBlock,
} from "../../ir/request.ts";
import { unpackToolCallId } from "../../ir/tool-call-id.ts";
import { customArguments } from "../shared/custom-tools.ts";
import { fileSource, sourceFromUrl } from "../shared/data-url.ts";
import { expectArray, expectObject, expectString, isObject, optionalString } from "../shared/validate.ts";
import { namespacedName } from "./decode-tools.ts";
import { blockFromReasoningItem } from "./reasoning-item.ts";

export interface Conversation {
  system: TextBlock[];
  messages: Message[];
}

type Json = Record<string, unknown>;
type UserBlock = TextBlock | ImageBlock | AudioBlock | DocumentBlock;

/** The message a client gets when it asks for state the gateway does not serve. */
export const NOT_SERVED =
  "not served here: continue with `previous_response_id` or `conversation`, or send the whole " +
  "conversation in `input`";

export function decodeInput(input: unknown, instructions: unknown, ignored: string[]): Conversation {
  const conversation: Conversation = { system: [], messages: [] };
  const text = optionalString(instructions, "instructions");
  if (text) conversation.system.push({ type: "text", text });
  if (input === undefined || input === null) throw invalid("input", "is required");
  if (typeof input === "string") {
    if (input) conversation.messages.push({ role: "user", content: [{ type: "text", text: input }] });
    return conversation;
  }
  const items = expectArray(input, "input");
  const reader = new InputReader(conversation, ignored);
  items.forEach((item, i) => {
    reader.item(expectObject(item, `input[${i}]`), `input[${i}]`);
  });
  return conversation;
}

class InputReader {
  private readonly conversation: Conversation;
  private readonly ignored: string[];
  /** Tool outputs carry only the call id; Gemini upstreams also need the function name. */
  private readonly toolNames = new Map<string, string>();

  constructor(conversation: Conversation, ignored: string[]) {
    this.conversation = conversation;
    this.ignored = ignored;
  }

  item(item: Json, at: string): void {
    const type = item.type ?? (item.role !== undefined ? "message" : undefined);
    switch (type) {
      case "message":
        this.message(item, at);
        return;
      case "function_call":
        this.toolCall(item, at, optionalArguments(item.arguments, `${at}.arguments`));
        return;
      case "custom_tool_call":
        // A custom tool's input is free text; to every other protocol it is a function whose one
        // parameter, `input`, holds that text (decode-tools.ts).
        this.toolCall(item, at, customArguments(expectString(item.input, `${at}.input`)));
        return;
      case "function_call_output":
      case "custom_tool_call_output":
        this.toolOutput(item, at);
        return;
      case "reasoning": {
        const block = blockFromReasoningItem(item);
        if (block) this.push("assistant", [block]);
        return;
      }
      case "item_reference":
        throw new GatewayError("invalid_request", `${at}: no stored item to refer to.`, { param: at });
      default:
        if (typeof type !== "string") throw invalid(`${at}.type`, "is required");
        // An item of OpenAI's hosted tools (web search, computer use, compaction…): no other
        // upstream can take it.
        if (!this.ignored.includes(`input[].${type}`)) this.ignored.push(`input[].${type}`);
    }
  }

  private message(item: Json, at: string): void {
    const role = item.role;
    if (role === "system" || role === "developer") {
      this.conversation.system.push(...textParts(item.content, `${at}.content`, ["input_text"]));
    } else if (role === "user") {
      this.push("user", userContent(item.content, `${at}.content`));
    } else if (role === "assistant") {
      this.push(
        "assistant",
        textParts(item.content, `${at}.content`, ["output_text", "refusal", "input_text"]),
      );
    } else {
      throw invalid(`${at}.role`, "must be one of user, assistant, system, developer");
    }
  }

  private toolCall(item: Json, at: string, args: string): void {
    const packedId = expectString(item.call_id, `${at}.call_id`);
    if (!packedId) throw invalid(`${at}.call_id`, "must not be empty");
    const tool = expectString(item.name, `${at}.name`);
    // A call of a namespace group's tool names its group beside it; the IR knows it by one name.
    const group = optionalString(item.namespace, `${at}.namespace`);
    const name = group ? namespacedName(group, tool) : tool;
    const { id, signature } = unpackToolCallId(packedId);
    const block: ToolCallBlock = { type: "tool_call", id, name, arguments: args };
    if (signature !== undefined) block.signature = signature;
    this.toolNames.set(id, name);
    this.push("assistant", [block]);
  }

  private toolOutput(item: Json, at: string): void {
    const { id } = unpackToolCallId(expectString(item.call_id, `${at}.call_id`));
    const result: ToolResultBlock = {
      type: "tool_result",
      toolCallId: id,
      content: toolOutputContent(item.output, `${at}.output`),
    };
    const name = this.toolNames.get(id);
    if (name) result.name = name;
    this.push("user", [result]);
  }

  /** Adds blocks to the last turn when it is this side's, else opens a turn; nothing empty is kept. */
  private push(role: Message["role"], blocks: ContentBlock[]): void {
    if (blocks.length === 0) return;
    const last = this.conversation.messages.at(-1);
    if (last?.role === role) last.content.push(...blocks);
    else this.conversation.messages.push({ role, content: blocks });
  }
}

function optionalArguments(value: unknown, param: string): string {
  if (value === undefined || value === null) return "";
  if (typeof value === "string") return value;
  // Some clients replay the parsed object; its JSON text is what the model produced.
  if (isObject(value)) return JSON.stringify(value);
  throw invalid(param, "must be a string");
}

/** Text-only content (system, developer and assistant messages): a string or text parts. */
function textParts(content: unknown, param: string, types: readonly string[]): TextBlock[] {
  if (typeof content === "string") return content ? [{ type: "text", text: content }] : [];
  const parts = expectArray(content, param);
  const blocks: TextBlock[] = [];
  parts.forEach((value, j) => {
    const at = `${param}[${j}]`;
    const part = expectObject(value, at);
    if (typeof part.type !== "string" || !types.includes(part.type))
      throw invalid(`${at}.type`, `must be one of ${types.join(", ")}`);
    const text = expectString(
      part.type === "refusal" ? part.refusal : part.text,
      `${at}.${part.type === "refusal" ? "refusal" : "text"}`,
    );
    if (text) blocks.push({ type: "text", text });
  });
  return blocks;
}

/** A user message's content: a string or input_text / input_image / input_file / input_audio parts. */
function userContent(content: unknown, param: string): UserBlock[] {
  if (typeof content === "string") return content ? [{ type: "text", text: content }] : [];
  const blocks: UserBlock[] = [];
  expectArray(content, param).forEach((value, j) => {
    const block = userPart(expectObject(value, `${param}[${j}]`), `${param}[${j}]`);
    if (block) blocks.push(block);
  });
  return blocks;
}

/** A tool's output: a string, or input_text / input_image / input_file parts. */
function toolOutputContent(output: unknown, param: string): ToolResultBlock["content"] {
  if (typeof output === "string") return output ? [{ type: "text", text: output }] : [];
  const blocks: ToolResultBlock["content"] = [];
  expectArray(output, param).forEach((value, j) => {
    const at = `${param}[${j}]`;
    const block = userPart(expectObject(value, at), at);
    if (block?.type === "audio")
      throw invalid(`${at}.type`, "must be one of input_text, input_image, input_file");
    if (block) blocks.push(block);
  });
  return blocks;
}

const IMAGE_DETAILS = new Set(["auto", "low", "high", "original"]);

function userPart(part: Json, at: string): UserBlock | undefined {
  switch (part.type) {
    case "input_text": {
      const text = expectString(part.text, `${at}.text`);
      return text ? { type: "text", text } : undefined;
    }
    case "input_image":
      return imagePart(part, at);
    case "input_file":
      return filePart(part, at);
    case "input_audio": {
      const audio = expectObject(part.input_audio, `${at}.input_audio`);
      const data = expectString(audio.data, `${at}.input_audio.data`);
      const format = expectString(audio.format, `${at}.input_audio.format`);
      return { type: "audio", source: { kind: "base64", mediaType: `audio/${format.toLowerCase()}`, data } };
    }
    default:
      throw invalid(`${at}.type`, "must be one of input_text, input_image, input_file, input_audio");
  }
}

function imagePart(part: Json, at: string): ImageBlock {
  const url = optionalString(part.image_url, `${at}.image_url`);
  const fileId = optionalString(part.file_id, `${at}.file_id`);
  let source: MediaSource;
  if (url) source = sourceFromUrl(url);
  else if (fileId) source = { kind: "file", fileId };
  else throw invalid(at, "needs image_url or file_id");
  const block: ImageBlock = { type: "image", source };
  const detail = optionalString(part.detail, `${at}.detail`);
  if (detail !== undefined) {
    if (!IMAGE_DETAILS.has(detail)) throw invalid(`${at}.detail`, "must be one of auto, low, high, original");
    // `auto` asks for nothing (every SDK sends it: the field is required); `original` (full
    // resolution) is OpenAI's own, the highest detail to everyone else.
    if (detail !== "auto") block.detail = detail === "original" ? "high" : detail;
  }
  return block;
}

function filePart(part: Json, at: string): DocumentBlock {
  const fileData = optionalString(part.file_data, `${at}.file_data`);
  const fileId = optionalString(part.file_id, `${at}.file_id`);
  const fileUrl = optionalString(part.file_url, `${at}.file_url`);
  const filename = optionalString(part.filename, `${at}.filename`);
  const source: MediaSource | undefined =
    fileSource(fileData, fileId, filename) ?? (fileUrl ? { kind: "url", url: fileUrl } : undefined);
  if (!source) throw invalid(at, "needs file_data, file_id or file_url");
  const block: DocumentBlock = { type: "document", source };
  if (filename) block.filename = filename;
  return block;
}
