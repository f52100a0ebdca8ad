// IR → upstream: the conversation as Responses API `input` items. User text and media become user
// messages, tool results `function_call_output` (or `custom_tool_call_output`) items in their place;
// assistant text becomes assistant messages, thinking reasoning items whose `encrypted_content` is
// the signature (reasoning-item.ts), tool calls `function_call` (or `custom_tool_call`) items. Items
// go without ids: with `store: false` an upstream resolves no ids, and reasoning travels by its
// encrypted content alone. What an item has no place for (citations, a tool result's error flag,
// unsigned thinking, a document's context) is named in the attempt's `Unsent`.

import { type GatewayError, invalidPrompt } from "../../ir/errors.ts";
import type {
  AudioBlock,
  ContentBlock,
  DocumentBlock,
  ImageBlock,
  Message,
  Request,
  TextBlock,
  ToolCallBlock,
} from "../../ir/request.ts";
import { customInput } from "../shared/custom-tools.ts";
import { dataUrl } from "../shared/data-url.ts";
import { plainText, type Unsent } from "../shared/dropped-fields.ts";
import { reasoningItem } from "./reasoning-item.ts";

type Json = Record<string, unknown>;
type Part = TextBlock | ImageBlock | AudioBlock | DocumentBlock;

export function encodeInput(request: Request, unsent: Unsent): Json[] {
  const custom = new Set(request.tools.flatMap((tool) => (tool.custom ? [tool.name] : [])));
  // Calls of custom tools, whose results go back as custom_tool_call_output.
  const customCalls = new Set<string>();
  const items: Json[] = [];
  for (const message of request.messages) {
    if (message.role === "assistant") items.push(...assistantItems(message, custom, customCalls, unsent));
    else items.push(...userItems(message.content, customCalls, unsent));
  }
  return items;
}

function assistantItems(
  message: Message,
  custom: Set<string>,
  customCalls: Set<string>,
  unsent: Unsent,
): Json[] {
  const items: Json[] = [];
  let text: Json[] | undefined;
  for (const block of message.content) {
    if (block.type === "text") {
      if (!block.text) continue;
      if (!text) {
        text = [];
        items.push({ type: "message", role: "assistant", content: text });
      }
      text.push({ type: "output_text", text: plainText(block, unsent) });
      continue;
    }
    text = undefined;
    if (block.type === "tool_call") items.push(toolCallItem(block, custom, customCalls));
    else if (
      block.type === "redacted_thinking" ||
      (block.type === "thinking" && block.signature !== undefined)
    )
      items.push({ ...reasoningItem(block) });
    // Unsigned thinking is left out: the upstream takes back only reasoning it signed. An empty
    // block carried nothing.
    else if (block.type === "thinking") unsent.add("thinking", block.text !== "");
  }
  return items;
}

function toolCallItem(block: ToolCallBlock, custom: Set<string>, customCalls: Set<string>): Json {
  if (custom.has(block.name)) {
    customCalls.add(block.id);
    return {
      type: "custom_tool_call",
      call_id: block.id,
      name: block.name,
      input: customInput(block.arguments),
    };
  }
  return { type: "function_call", call_id: block.id, name: block.name, arguments: block.arguments || "{}" };
}

/** A user turn in order: its text and media as messages, its tool results as output items between them. */
function userItems(blocks: ContentBlock[], customCalls: Set<string>, unsent: Unsent): Json[] {
  const items: Json[] = [];
  let parts: Json[] | undefined;
  for (const block of blocks) {
    if (block.type === "tool_result") {
      parts = undefined;
      const type = customCalls.has(block.toolCallId) ? "custom_tool_call_output" : "function_call_output";
      items.push({ type, call_id: block.toolCallId, output: toolOutput(block.content, unsent) });
      // An output item says nothing of an error.
      unsent.add("tool_result.is_error", block.isError === true);
      continue;
    }
    if (
      block.type === "text" ||
      block.type === "image" ||
      block.type === "audio" ||
      block.type === "document"
    ) {
      if (block.type === "text" && !block.text) continue;
      if (!parts) {
        parts = [];
        items.push({ type: "message", role: "user", content: parts });
      }
      parts.push(inputPart(block, unsent));
    }
    // Tool calls and thinking never appear in a user turn; nothing to send for them.
  }
  return items;
}

/** A tool's output: its text as a string, or parts when it holds media. */
function toolOutput(content: Array<TextBlock | ImageBlock | DocumentBlock>, unsent: Unsent): string | Json[] {
  if (content.every((block) => block.type === "text"))
    return content.map((block) => plainText(block, unsent)).join("\n");
  return content.map((block) => inputPart(block, unsent));
}

function inputPart(block: Part, unsent: Unsent): Json {
  switch (block.type) {
    case "text":
      return { type: "input_text", text: plainText(block, unsent) };
    case "image":
      return imagePart(block);
    case "audio":
      throw unsupported("audio input");
    case "document":
      return filePart(block, unsent);
  }
}

function imagePart(block: ImageBlock): Json {
  const source = block.source;
  const part: Json = { type: "input_image", detail: block.detail ?? "auto" };
  if (source.kind === "file") part.file_id = source.fileId;
  else part.image_url = source.kind === "base64" ? dataUrl(source.mediaType, source.data) : source.url;
  return part;
}

function filePart(block: DocumentBlock, unsent: Unsent): Json {
  unsent.add("document.context", block.context !== undefined);
  unsent.add("citations", block.citations === true);
  const source = block.source;
  if (source.kind === "text")
    // Plain-text documents have no part of their own; their text is the content.
    return { type: "input_text", text: block.title ? `${block.title}\n\n${source.text}` : source.text };
  const part: Json = { type: "input_file" };
  if (source.kind === "file") part.file_id = source.fileId;
  else if (source.kind === "url") part.file_url = source.url;
  else {
    part.file_data = dataUrl(source.mediaType, source.data);
    // OpenAI requires a filename beside inline file data: the title serves when there is none.
    part.filename = block.filename ?? block.title ?? defaultFilename(source.mediaType);
    unsent.add("document.title", block.title !== undefined && block.filename !== undefined);
    return part;
  }
  // Beside a file id or a URL the title has nowhere to go.
  unsent.add("document.title", block.title !== undefined);
  const filename = block.filename ?? (source.kind === "file" ? source.filename : undefined);
  if (filename) part.filename = filename;
  return part;
}

function defaultFilename(mediaType: string): string {
  if (mediaType === "application/pdf") return "document.pdf";
  if (mediaType === "text/plain") return "document.txt";
  return "document";
}

function unsupported(what: string): GatewayError {
  return invalidPrompt(`this provider's Responses API cannot take ${what}`);
}
