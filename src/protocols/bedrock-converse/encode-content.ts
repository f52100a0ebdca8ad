// IR system text and messages → Converse `system` and `messages`.
//
// Converse wants turns that alternate, so consecutive same-role messages are merged. A prompt-cache
// marker (`cacheControl`) becomes a `cachePoint` block right after the block it marks (Converse caches
// the prefix that ends there). Left out, as the upstream would refuse them: empty text ("text content
// blocks must be non-empty"), and thinking without a signature (reasoning the model cannot verify,
// named in the attempt's `Unsent`). A tool result with nothing in it carries a placeholder text, since
// Converse needs at least one content block there and refuses empty text. A result's error status goes
// only to the families that take it (Claude, Nova); to others it is named dropped (`tool_result.is_error`).
// Converse has no image detail, and citations replayed on earlier text have no slot (Converse's are
// the model's own output): both are named too.

import type { CacheControl, ContentBlock, Message, TextBlock, ToolResultBlock } from "../../ir/request.ts";
import { plainText, type Unsent, usesImageDetail } from "../shared/dropped-fields.ts";
import { argumentsObject } from "../shared/tool-arguments.ts";
import { DocumentNames, encodeAudio, encodeDocument, encodeImage } from "./media.ts";

export interface WireMessage {
  role: "user" | "assistant";
  content: object[];
}

/** What a tool result with no content says (Converse refuses an empty `content`). */
export const EMPTY_TOOL_RESULT = "(empty)";

/** `{cachePoint}` after a block the client marked for caching; nothing otherwise. */
export function cachePoint(control: CacheControl | undefined): object[] {
  if (control === undefined) return [];
  return [{ cachePoint: control.ttl === "1h" ? { type: "default", ttl: "1h" } : { type: "default" } }];
}

export function encodeSystem(system: TextBlock[], unsent: Unsent): object[] {
  return system.flatMap((block) => encodeText(block, unsent));
}

/** How the target model takes some blocks, and where what it cannot take is named. */
export interface ContentOptions {
  /** The model takes a tool result's `status` (Converse: "only supported by Amazon Nova and Anthropic Claude"). */
  toolResultStatus: boolean;
  unsent: Unsent;
}

interface Encoding extends ContentOptions {
  names: DocumentNames;
}

export function encodeMessages(messages: Message[], options: ContentOptions): WireMessage[] {
  const encoding: Encoding = { ...options, names: new DocumentNames() };
  const wire: WireMessage[] = [];
  for (const message of messages) {
    const content = message.content.flatMap((block) => encodeBlock(block, encoding));
    if (content.length === 0) continue;
    const last = wire.at(-1);
    if (last && last.role === message.role) last.content.push(...content);
    else wire.push({ role: message.role, content });
  }
  return wire;
}

function encodeBlock(block: ContentBlock, encoding: Encoding): object[] {
  const { unsent } = encoding;
  switch (block.type) {
    case "text":
      return encodeText(block, unsent);
    case "image":
      unsent.add("image.detail", usesImageDetail(block));
      return [encodeImage(block), ...cachePoint(block.cacheControl)];
    case "audio":
      return [encodeAudio(block), ...cachePoint(block.cacheControl)];
    case "document":
      return [encodeDocument(block, encoding.names), ...cachePoint(block.cacheControl)];
    case "tool_call":
      return [
        { toolUse: { toolUseId: block.id, name: block.name, input: argumentsObject(block.arguments) } },
        ...cachePoint(block.cacheControl),
      ];
    case "tool_result":
      return [encodeToolResult(block, encoding), ...cachePoint(block.cacheControl)];
    case "thinking":
      // Empty text with a signature is kept: the model needs the signed block back (docs/architecture.md §10).
      if (block.signature)
        return [{ reasoningContent: { reasoningText: { text: block.text, signature: block.signature } } }];
      unsent.add("thinking", block.text !== "");
      return [];
    case "redacted_thinking":
      return [{ reasoningContent: { redactedContent: block.data } }];
  }
}

/** Non-empty text, and the cache point after it. */
function encodeText(block: TextBlock, unsent: Unsent): object[] {
  const text = plainText(block, unsent);
  return text.length > 0 ? [{ text }, ...cachePoint(block.cacheControl)] : [];
}

function encodeToolResult(block: ToolResultBlock, encoding: Encoding): object {
  const { unsent } = encoding;
  const content = block.content.flatMap((inner): object[] => {
    if (inner.type === "text") {
      const text = plainText(inner, unsent);
      return text.length > 0 ? [{ text }] : [];
    }
    if (inner.type !== "image") return [encodeDocument(inner, encoding.names)];
    unsent.add("image.detail", usesImageDetail(inner));
    return [encodeImage(inner)];
  });
  return {
    toolResult: {
      toolUseId: block.toolCallId,
      content: content.length > 0 ? content : [{ text: EMPTY_TOOL_RESULT }],
      ...toolResultStatus(block, encoding),
    },
  };
}

/** `status`, for a model that takes it; to another an error result is named (`tool_result.is_error`). */
function toolResultStatus(block: ToolResultBlock, encoding: Encoding): { status?: string } {
  if (block.isError === undefined) return {};
  if (encoding.toolResultStatus) return { status: block.isError ? "error" : "success" };
  encoding.unsent.add("tool_result.is_error", block.isError);
  return {};
}
