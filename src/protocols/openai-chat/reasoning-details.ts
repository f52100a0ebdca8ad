// `reasoning_details` (docs/architecture.md §8) ↔ IR thinking blocks. The items carry the signatures that
// must come back unchanged on the next turn (docs/architecture.md §10: thinking signatures), so both
// directions keep them exactly, including signed items whose text is empty.
//
// OpenRouter also carries a Gemini function call's thought signature here: a `reasoning.encrypted`
// item whose `id` is the tool call's id (format `google-gemini-v1`). Such an item is the call's
// signature, not a block of its own (docs/architecture.md §10: Gemini thoughtSignature on functionCall
// parts).

import { invalid } from "../../ir/errors.ts";
import type { RedactedThinkingBlock, ThinkingBlock, ToolCallBlock } from "../../ir/request.ts";
import { isObject } from "../shared/validate.ts";
import type { ReasoningDetail } from "./wire-types.ts";

/** We cannot know which vendor produced a signature that crossed the IR; OpenRouter's word for that. */
export const REASONING_FORMAT = "unknown";
/** OpenRouter's format name for Gemini reasoning, used for tool-call signatures (only Gemini has them). */
export const GEMINI_FORMAT = "google-gemini-v1";

type ReasoningBlock = ThinkingBlock | RedactedThinkingBlock;

export interface ReasoningRead {
  blocks: ReasoningBlock[];
  /** Tool-call id → the call's thought signature. */
  callSignatures: Map<string, string>;
}

/**
 * Items → blocks. Pieces of one segment (same `type: reasoning.text` and same `index`, as a client
 * collects them from a stream) join into one block. An encrypted item whose `id` is one of `callIds`
 * is that call's signature. With `param` set (client face) a malformed item is a 400 naming it;
 * without (upstream face) it is skipped.
 */
export function readReasoningDetails(
  items: unknown,
  options: { param?: string; callIds?: ReadonlySet<string> } = {},
): ReasoningRead {
  const { param, callIds } = options;
  const read: ReasoningRead = { blocks: [], callSignatures: new Map() };
  if (!Array.isArray(items)) {
    if (param && items !== undefined && items !== null) throw invalid(param, "must be an array");
    return read;
  }
  let last: { block: ThinkingBlock; index: unknown } | undefined;
  items.forEach((item, i) => {
    const at = `${param}[${i}]`;
    if (!isObject(item)) {
      if (param) throw invalid(at, "must be an object");
      return;
    }
    const text = stringField(item, "text", at, param) ?? stringField(item, "summary", at, param);
    const signature = stringField(item, "signature", at, param);
    if (item.type === "reasoning.encrypted") {
      last = undefined;
      const data = stringField(item, "data", at, param);
      if (!data) return;
      if (typeof item.id === "string" && callIds?.has(item.id)) read.callSignatures.set(item.id, data);
      else read.blocks.push({ type: "redacted_thinking", data });
      return;
    }
    if (item.type !== "reasoning.text" && item.type !== "reasoning.summary") return;
    const sameSegment = last && typeof item.index === "number" && item.index === last.index;
    if (sameSegment && last) {
      last.block.text += text ?? "";
      if (signature) last.block.signature = signature;
      return;
    }
    const block: ThinkingBlock = { type: "thinking", text: text ?? "" };
    if (signature) block.signature = signature;
    if (!block.text && !block.signature) return;
    read.blocks.push(block);
    last = { block, index: item.index };
  });
  return read;
}

/** Gives each call without a signature the one `reasoning_details` carried for it. */
export function applyCallSignatures(calls: ToolCallBlock[], signatures: Map<string, string>): void {
  for (const call of calls) {
    const signature = signatures.get(call.id);
    if (signature && call.signature === undefined) call.signature = signature;
  }
}

function stringField(
  item: Record<string, unknown>,
  name: string,
  at: string,
  param: string | undefined,
): string | undefined {
  const value = item[name];
  if (value === undefined || value === null) return undefined;
  if (typeof value === "string") return value;
  if (param) throw invalid(`${at}.${name}`, "must be a string");
  return undefined;
}

/** Blocks → items, numbered in order (`index` = position of the reasoning segment). */
export function reasoningDetailsFromBlocks(blocks: ReadonlyArray<ReasoningBlock>): ReasoningDetail[] {
  return blocks.map((block, index) => reasoningDetail(block, index));
}

export function reasoningDetail(block: ReasoningBlock, index: number): ReasoningDetail {
  if (block.type === "redacted_thinking")
    return { type: "reasoning.encrypted", data: block.data, format: REASONING_FORMAT, index };
  const detail: ReasoningDetail = {
    type: "reasoning.text",
    text: block.text,
    format: REASONING_FORMAT,
    index,
  };
  if (block.signature !== undefined) detail.signature = block.signature;
  return detail;
}

/** A signed tool call as OpenRouter wants its Gemini signature back. */
export function callSignatureDetail(
  call: ToolCallBlock & { signature: string },
  index: number,
): ReasoningDetail {
  return { type: "reasoning.encrypted", data: call.signature, id: call.id, format: GEMINI_FORMAT, index };
}
