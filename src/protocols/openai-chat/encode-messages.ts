// IR → upstream: the conversation as chat `messages`. System blocks become one system message;
// thinking blocks ride on assistant turns as `reasoning_details` with their signatures (docs/architecture.md
// §10); tool results become tool messages, which must directly follow the assistant's tool calls; calls of
// custom tools are custom calls; media becomes content parts. What a chat message has no place for
// (citations, a tool result's error flag, a document's context) is named in the attempt's `Unsent`.

import { type GatewayError, invalidPrompt } from "../../ir/errors.ts";
import type {
  AudioBlock,
  ContentBlock,
  DocumentBlock,
  ImageBlock,
  Message,
  TextBlock,
  ToolCallBlock,
  ToolDefinition,
  ToolResultBlock,
} from "../../ir/request.ts";
import { customInput, isCustomTool } from "../shared/custom-tools.ts";
import { plainText, type Unsent } from "../shared/dropped-fields.ts";
import { audioFormat, dataUrl } from "./media.ts";
import { callSignatureDetail, reasoningDetailsFromBlocks } from "./reasoning-details.ts";
import { geminiExtraContent } from "./thought-signature.ts";
import type { WireContentPart, WireMessage, WireToolCall } from "./wire-types.ts";

export function encodeMessages(
  system: TextBlock[],
  messages: Message[],
  tools: ToolDefinition[],
  unsent: Unsent,
): WireMessage[] {
  const out: WireMessage[] = [];
  // One string, not an array of parts: several OpenAI-compatible servers accept only strings here.
  const systemText = system.map((b) => plainText(b, unsent)).join("\n\n");
  if (systemText) out.push({ role: "system", content: systemText });
  for (const message of messages) {
    if (message.role === "assistant") out.push(...encodeAssistant(message.content, tools, unsent));
    else out.push(...encodeUser(message.content, unsent));
  }
  return out;
}

function encodeAssistant(blocks: ContentBlock[], tools: ToolDefinition[], unsent: Unsent): WireMessage[] {
  const text = blocks.flatMap((b) => (b.type === "text" ? [plainText(b, unsent)] : [])).join("");
  const calls = blocks.flatMap((b) => (b.type === "tool_call" ? [b] : []));
  const reasoning = blocks.flatMap((b) =>
    b.type === "thinking" || b.type === "redacted_thinking" ? [b] : [],
  );
  if (!text && calls.length === 0 && reasoning.length === 0) return [];
  const message: Extract<WireMessage, { role: "assistant" }> = { role: "assistant", content: text || null };
  if (calls.length > 0) message.tool_calls = calls.map((call) => encodeToolCall(call, tools));
  // A call's Gemini signature goes both ways vendors read it: `extra_content` on the call (Google's
  // OpenAI-compatible endpoint) and an encrypted item naming the call (OpenRouter).
  const details = reasoningDetailsFromBlocks(reasoning);
  for (const call of calls) {
    if (call.signature)
      details.push(callSignatureDetail({ ...call, signature: call.signature }, details.length));
  }
  if (details.length > 0) message.reasoning_details = details;
  return [message];
}

function encodeToolCall(call: ToolCallBlock, tools: ToolDefinition[]): WireToolCall {
  if (isCustomTool(tools, call.name))
    return { id: call.id, type: "custom", custom: { name: call.name, input: customInput(call.arguments) } };
  const wire: WireToolCall = {
    id: call.id,
    type: "function",
    function: { name: call.name, arguments: call.arguments || "{}" },
  };
  if (call.signature) wire.extra_content = geminiExtraContent(call.signature);
  return wire;
}

/**
 * A user turn: its tool results first, as tool messages (they answer the previous assistant turn),
 * then the rest as one user message. Media inside tool results cannot go in a tool message (text
 * only), so it follows in that user message.
 */
function encodeUser(blocks: ContentBlock[], unsent: Unsent): WireMessage[] {
  const out: WireMessage[] = [];
  const parts: WireContentPart[] = [];
  for (const block of blocks) {
    if (block.type === "tool_result") {
      out.push(encodeToolResult(block, unsent));
      for (const inner of block.content) if (inner.type !== "text") parts.push(encodePart(inner, unsent));
    } else if (
      block.type === "text" ||
      block.type === "image" ||
      block.type === "audio" ||
      block.type === "document"
    ) {
      if (block.type !== "text" || block.text) parts.push(encodePart(block, unsent));
    }
    // Tool calls and thinking never appear in a user turn; nothing to send for them.
  }
  if (parts.length > 0) {
    const only = parts[0];
    const content = parts.length === 1 && only.type === "text" ? only.text : parts;
    out.push({ role: "user", content });
  }
  return out;
}

function encodeToolResult(block: ToolResultBlock, unsent: Unsent): WireMessage {
  const text = block.content.flatMap((b) => (b.type === "text" ? [plainText(b, unsent)] : [])).join("\n");
  // A tool message says nothing of an error.
  unsent.add("tool_result.is_error", block.isError === true);
  return { role: "tool", tool_call_id: block.toolCallId, content: text };
}

function encodePart(
  block: TextBlock | ImageBlock | AudioBlock | DocumentBlock,
  unsent: Unsent,
): WireContentPart {
  switch (block.type) {
    case "text":
      return { type: "text", text: plainText(block, unsent) };
    case "image":
      return encodeImage(block);
    case "audio":
      return encodeAudio(block);
    case "document":
      return encodeDocument(block, unsent);
  }
}

function encodeImage(block: ImageBlock): WireContentPart {
  const source = block.source;
  if (source.kind === "file") throw unsupported("an image given as a file id");
  const url = source.kind === "base64" ? dataUrl(source.mediaType, source.data) : source.url;
  const imageUrl: { url: string; detail?: string } = { url };
  if (block.detail) imageUrl.detail = block.detail;
  return { type: "image_url", image_url: imageUrl };
}

function encodeAudio(block: AudioBlock): WireContentPart {
  const source = block.source;
  if (source.kind !== "base64") throw unsupported("audio given by URL or file id (only inline audio)");
  return { type: "input_audio", input_audio: { data: source.data, format: audioFormat(source.mediaType) } };
}

function encodeDocument(block: DocumentBlock, unsent: Unsent): WireContentPart {
  unsent.add("document.context", block.context !== undefined);
  unsent.add("citations", block.citations === true);
  const source = block.source;
  if (source.kind === "text") {
    // Plain-text documents have no part of their own; their text is the content.
    return { type: "text", text: block.title ? `${block.title}\n\n${source.text}` : source.text };
  }
  if (source.kind === "url") throw unsupported("a document given by URL (only inline data or a file id)");
  const filename = block.filename ?? (source.kind === "file" ? source.filename : undefined);
  const file: { file_id?: string; file_data?: string; filename?: string } =
    source.kind === "file"
      ? { file_id: source.fileId }
      : { file_data: dataUrl(source.mediaType, source.data) };
  // OpenAI requires a filename beside inline file data: the title serves when there is none.
  if (!filename && source.kind === "base64") file.filename = block.title ?? defaultFilename(source.mediaType);
  else {
    if (filename) file.filename = filename;
    // Beside a filename or a file id the title has nowhere to go.
    unsent.add("document.title", block.title !== undefined);
  }
  return { type: "file", file };
}

function defaultFilename(mediaType: string): string {
  if (mediaType === "application/pdf") return "document.pdf";
  if (mediaType === "text/plain") return "document.txt";
  return "document";
}

function unsupported(what: string): GatewayError {
  return invalidPrompt(`this provider's chat-completions API cannot take ${what}`);
}
