// `reasoning` items ↔ IR thinking blocks. A reasoning item carries its text as one summary part and
// its signature, whatever vendor made it, as `encrypted_content`: OpenAI's own encrypted reasoning,
// an Anthropic thinking signature, a Gemini thought signature or a chat `reasoning_details`
// signature all ride there opaquely and come back on the next turn exactly as they went out (the
// next turn's tool use needs them). Redacted thinking (Anthropic's encrypted reasoning, whose text
// nobody sees) goes in `encrypted_content` too, behind a prefix that no base64 signature can start
// with, so that it comes back as redacted thinking and not as a signature.

import type { RedactedThinkingBlock, ThinkingBlock } from "../../ir/request.ts";
import { isObject } from "../shared/validate.ts";
import type { WireReasoningItem } from "./wire-types.ts";

export type ReasoningBlock = ThinkingBlock | RedactedThinkingBlock;

/** Marks `encrypted_content` that holds redacted thinking (`:` is outside every base64 alphabet). */
const REDACTED = "redacted_thinking:";

/** A reasoning item → its block; undefined when it carries nothing (no text, no signature). */
export function blockFromReasoningItem(item: Record<string, unknown>): ReasoningBlock | undefined {
  const encrypted =
    typeof item.encrypted_content === "string" && item.encrypted_content ? item.encrypted_content : undefined;
  if (encrypted?.startsWith(REDACTED))
    return { type: "redacted_thinking", data: encrypted.slice(REDACTED.length) };
  const block: ThinkingBlock = { type: "thinking", text: reasoningText(item) };
  if (encrypted) block.signature = encrypted;
  return block.text || block.signature ? block : undefined;
}

/**
 * The item's text: its summary parts, or else its `reasoning_text` content (open-weight models
 * served through the Responses API give their raw reasoning there). Parts are joined with a blank
 * line; a block this module wrote has one part, so its text comes back exactly.
 */
export function reasoningText(item: Record<string, unknown>): string {
  const fromSummary = partsText(item.summary, "summary_text");
  return fromSummary || partsText(item.content, "reasoning_text");
}

function partsText(parts: unknown, type: string): string {
  if (!Array.isArray(parts)) return "";
  const texts: string[] = [];
  for (const part of parts)
    if (isObject(part) && (part.type === type || part.type === undefined) && typeof part.text === "string")
      texts.push(part.text);
  return texts.join("\n\n");
}

/** A block → the reasoning item a client gets (with its id) or an upstream gets (without). */
export function reasoningItem(block: ReasoningBlock, id: string): WireReasoningItem;
export function reasoningItem(block: ReasoningBlock): Omit<WireReasoningItem, "id">;
export function reasoningItem(block: ReasoningBlock, id?: string): Omit<WireReasoningItem, "id"> {
  const item: Omit<WireReasoningItem, "id"> & { id?: string } =
    id === undefined ? { type: "reasoning", summary: [] } : { id, type: "reasoning", summary: [] };
  if (block.type === "redacted_thinking") {
    item.encrypted_content = REDACTED + block.data;
    return item;
  }
  if (block.text) item.summary = [{ type: "summary_text", text: block.text }];
  if (block.signature !== undefined) item.encrypted_content = block.signature;
  return item;
}

/** The `encrypted_content` a block travels with (see reasoningItem), if any. */
export function encryptedContent(block: ReasoningBlock): string | undefined {
  return block.type === "redacted_thinking" ? REDACTED + block.data : block.signature;
}
