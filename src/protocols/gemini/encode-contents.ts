// IR messages → upstream `contents`.
//
// - assistant → role `model` (parts per output-parts.ts: only signed thoughts go back, with their
//   signatures exactly as received); user → role `user`; consecutive turns of one role share a Content.
// - tool_result → functionResponse {id, name, response}: the name comes from the block, else from the
//   earlier tool_call with that id (the other protocols carry only the id). `response` is the result
//   JSON object when the text is one, else {result: text}; an error result is {error: …}. Images and
//   documents of a result follow the functionResponse as sibling parts of the same Content, which
//   every Gemini model reads (functionResponse.parts only the 3 generation).
// - 3-generation models reject a model turn whose function calls carry no thought signature (a
//   conversation begun with another model, or a client that lost it). Google documents the value
//   "skip_thought_signature_validator" for that case; it goes on the first call of such a turn.
// - what a part has no member for (citations, an image's detail, a document's title and context) and
//   unsigned thoughts are named in the attempt's `Unsent` (`leaveOutUnsaid`).

import { invalidPrompt } from "../../ir/errors.ts";
import type { ContentBlock, Message, ToolResultBlock } from "../../ir/request.ts";
import { type Unsent, usesImageDetail } from "../shared/dropped-fields.ts";
import { geminiGeneration } from "./map-reasoning.ts";
import { mediaPart } from "./media.ts";
import { partsFromOutput } from "./output-parts.ts";
import type { GeminiContent, GeminiPart } from "./wire-types.ts";

export const SKIP_SIGNATURE_VALIDATOR = "skip_thought_signature_validator";

export function encodeContents(messages: readonly Message[], model: string, unsent: Unsent): GeminiContent[] {
  const callNames = new Map<string, string>();
  const contents: GeminiContent[] = [];
  messages.forEach((message) => {
    const role = message.role === "assistant" ? "model" : "user";
    let parts: GeminiPart[];
    if (role === "model") {
      for (const block of message.content) {
        if (block.type === "tool_call") callNames.set(block.id, block.name);
        leaveOutUnsaid(block, unsent);
      }
      parts = partsFromOutput(message.content, "signed");
    } else {
      parts = userParts(message.content, callNames, unsent);
    }
    if (parts.length === 0) return;
    const last = contents.at(-1);
    if (last?.role === role) last.parts.push(...parts);
    else contents.push({ role, parts });
  });
  if (geminiGeneration(model) >= 3)
    for (const content of contents) if (content.role === "model") signFirstCall(content);
  return contents;
}

function signFirstCall(content: GeminiContent): void {
  const calls = content.parts.filter((part) => part.functionCall !== undefined);
  if (calls.length === 0 || calls.some((part) => part.thoughtSignature !== undefined)) return;
  calls[0].thoughtSignature = SKIP_SIGNATURE_VALIDATOR;
}

/**
 * Names what a part has no member for, of a block sent as one. A model turn's blocks become parts in
 * output-parts.ts, shared with the answers, so each block of a turn is named here rather than there.
 */
function leaveOutUnsaid(block: ContentBlock, unsent: Unsent): void {
  if (block.type === "text") unsent.add("citations", (block.citations?.length ?? 0) > 0);
  else if (block.type === "image") unsent.add("image.detail", usesImageDetail(block));
  else if (block.type === "document") {
    unsent.add("citations", block.citations === true);
    unsent.add("document.title", block.title !== undefined);
    unsent.add("document.context", block.context !== undefined);
  }
  // Only signed thoughts go back to Gemini (output-parts.ts); an empty one carried nothing.
  else if (block.type === "thinking")
    unsent.add("thinking", block.signature === undefined && block.text !== "");
  else if (block.type === "tool_result") for (const inner of block.content) leaveOutUnsaid(inner, unsent);
}

function userParts(
  blocks: readonly ContentBlock[],
  callNames: Map<string, string>,
  unsent: Unsent,
): GeminiPart[] {
  const parts: GeminiPart[] = [];
  blocks.forEach((block) => {
    leaveOutUnsaid(block, unsent);
    if (block.type === "text") {
      if (block.text !== "") parts.push({ text: block.text });
    } else if (block.type === "image" || block.type === "audio" || block.type === "document") {
      parts.push(mediaPart(block));
    } else if (block.type === "tool_result") {
      parts.push(...toolResultParts(block, callNames));
    }
  });
  return parts;
}

function toolResultParts(block: ToolResultBlock, callNames: Map<string, string>): GeminiPart[] {
  const name = block.name ?? callNames.get(block.toolCallId);
  // The protocol names a function's result by the function's name, which only the call gives.
  if (name === undefined)
    throw invalidPrompt(`the tool result for call ${block.toolCallId} answers no earlier tool call`);
  const text = block.content
    .filter((item) => item.type === "text")
    .map((item) => item.text)
    .join("");
  const value = jsonObject(text);
  const response = block.isError ? { error: value ?? text } : (value ?? { result: text });
  const parts: GeminiPart[] = [{ functionResponse: { id: block.toolCallId, name, response } }];
  for (const item of block.content) if (item.type !== "text") parts.push(mediaPart(item));
  return parts;
}

function jsonObject(text: string): Record<string, unknown> | undefined {
  const trimmed = text.trim();
  if (!trimmed.startsWith("{")) return undefined;
  try {
    const value: unknown = JSON.parse(trimmed);
    return typeof value === "object" && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}
