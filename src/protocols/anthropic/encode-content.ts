// IR messages → messages-protocol `messages` for an Anthropic-protocol upstream.

import { invalidPrompt } from "../../ir/errors.ts";
import type {
  ContentBlock,
  DocumentBlock,
  ImageBlock,
  MediaSource,
  Message,
  TextBlock,
  ToolResultBlock,
} from "../../ir/request.ts";
import { type Unsent, usesImageDetail } from "../shared/dropped-fields.ts";
import { argumentsObject } from "../shared/tool-arguments.ts";
import { cacheControlField } from "./cache-control.ts";

export interface WireMessage {
  role: "user" | "assistant";
  content: object[];
}

/**
 * Consecutive same-role messages are merged; in a user message tool results go first (the protocol
 * requires them ahead of other content); blocks the upstream would refuse are left out: empty text
 * (docs/architecture.md §10: "text content blocks must be non-empty") and thinking without a signature
 * (reasoning from another provider, which Anthropic cannot verify, named in `unsent`). A message left
 * with nothing is dropped.
 */
export function encodeMessages(messages: Message[], unsent: Unsent): WireMessage[] {
  const wire: WireMessage[] = [];
  messages.forEach((message) => {
    const content = message.content.flatMap((block) => encodeBlock(block, unsent));
    if (content.length === 0) return;
    const last = wire.at(-1);
    if (last && last.role === message.role) last.content.push(...content);
    else wire.push({ role: message.role, content });
  });
  for (const message of wire)
    if (message.role === "user")
      message.content = toolResultsFirst(message.content as Array<{ type?: string }>);
  return wire;
}

function toolResultsFirst(content: Array<{ type?: string }>): object[] {
  const results = content.filter((b) => b.type === "tool_result");
  return results.length === 0 ? content : [...results, ...content.filter((b) => b.type !== "tool_result")];
}

function encodeBlock(block: ContentBlock, unsent: Unsent): object[] {
  switch (block.type) {
    case "text":
      return encodeText(block);
    case "image":
      return [encodeImage(block, unsent)];
    case "document":
      return [encodeDocument(block)];
    case "audio":
      throw invalidPrompt("an audio part: audio input is not supported by this model's provider");
    case "tool_call":
      return [
        {
          type: "tool_use",
          id: block.id,
          name: block.name,
          input: argumentsObject(block.arguments),
          ...cacheControlField(block.cacheControl),
        },
      ];
    case "tool_result":
      return [encodeToolResult(block, unsent)];
    case "thinking":
      // Empty text with a signature is kept (docs/architecture.md §10); without a signature the upstream
      // would refuse it (an empty one carried nothing).
      if (block.signature) return [{ type: "thinking", thinking: block.text, signature: block.signature }];
      unsent.add("thinking", block.text !== "");
      return [];
    case "redacted_thinking":
      return [{ type: "redacted_thinking", data: block.data }];
  }
}

export function encodeText(block: TextBlock): object[] {
  if (block.text.length === 0) return [];
  return [
    {
      type: "text",
      text: block.text,
      ...cacheControlField(block.cacheControl),
      ...(block.citations?.length ? { citations: block.citations } : {}),
    },
  ];
}

function encodeImage(block: ImageBlock, unsent: Unsent): object {
  unsent.add("image.detail", usesImageDetail(block));
  return { type: "image", source: mediaSource(block.source), ...cacheControlField(block.cacheControl) };
}

function mediaSource(source: MediaSource): object {
  switch (source.kind) {
    case "base64":
      return { type: "base64", media_type: source.mediaType, data: source.data };
    case "url":
      return { type: "url", url: source.url };
    case "file":
      return { type: "file", file_id: source.fileId };
  }
}

function encodeDocument(block: DocumentBlock): object {
  const source = block.source;
  let wireSource: object;
  if (source.kind === "text") wireSource = { type: "text", media_type: "text/plain", data: source.text };
  else if (source.kind === "base64" && source.mediaType.startsWith("text/"))
    // Plain text sent as file bytes (chat `file_data`): the protocol takes it as a text source.
    wireSource = {
      type: "text",
      media_type: "text/plain",
      data: Buffer.from(source.data, "base64").toString("utf8"),
    };
  else wireSource = mediaSource(source);
  return {
    type: "document",
    source: wireSource,
    ...(block.title !== undefined ? { title: block.title } : {}),
    ...(block.context !== undefined ? { context: block.context } : {}),
    ...(block.citations !== undefined ? { citations: { enabled: block.citations } } : {}),
    ...cacheControlField(block.cacheControl),
  };
}

function encodeToolResult(block: ToolResultBlock, unsent: Unsent): object {
  const content = block.content.flatMap((inner) => {
    if (inner.type === "text") return encodeText(inner);
    if (inner.type === "image") return [encodeImage(inner, unsent)];
    return [encodeDocument(inner)];
  });
  return {
    type: "tool_result",
    tool_use_id: block.toolCallId,
    ...(content.length > 0 ? { content } : {}),
    ...(block.isError !== undefined ? { is_error: block.isError } : {}),
    ...cacheControlField(block.cacheControl),
  };
}
