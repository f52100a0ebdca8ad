// Signed thinking kept for chat clients that drop it. A thinking Claude model that calls a tool must
// get its signed thinking back with the call on the next turn, or it refuses the call (400
// "Expected `thinking`…"). Many chat-completions clients (the Agents SDK's chat model, LangChain,
// opencode) send the call back without `reasoning_details`. So the thinking a translated answer gave
// beside its tool calls is kept in the store (any process reads it), per account and tool-call id,
// for an hour and up to 256 KiB per turn, and put back before a turn that sends such a call without
// it. What cannot be put back leaves thinking off for that call (src/protocols/anthropic/encode-request.ts).

import type { ContentBlock, RedactedThinkingBlock, Request, ThinkingBlock } from "../ir/request.ts";
import type { OutputBlock } from "../ir/response.ts";
import type { StreamEvent } from "../ir/stream.ts";
import type { KeptThinking, Store } from "../ledger/types.ts";
import type { ProtocolName } from "../protocols/types.ts";
import type { WarningLogger } from "./logger.ts";

/** How long thinking is kept after the answer that gave it. */
export const KEPT_THINKING_MS = 60 * 60_000;
/** A turn's thinking longer than this (as JSON) is not kept: the next turn then goes without thinking. */
export const KEPT_THINKING_MAX_CHARS = 256 * 1024;

type Thought = ThinkingBlock | RedactedThinkingBlock;

/** A chat client asking a reasoning model to think: its tool turns may need their thinking back. */
export function keepsThinking(face: ProtocolName, request: Request, reasoningModel: boolean): boolean {
  const r = request.reasoning;
  return (
    face === "openai-chat" && reasoningModel && r !== undefined && r.enabled !== false && r.effort !== "none"
  );
}

/**
 * Puts kept thinking back at the start of each assistant turn that calls tools without signed
 * thinking (unsigned reasoning text there is replaced: the upstream could not check it).
 */
export async function restoreKeptThinking(
  store: Store,
  accountId: string,
  request: Request,
  log: WarningLogger,
): Promise<void> {
  const turns = request.messages.filter((m) => m.role === "assistant" && lacksSignedThinking(m.content));
  if (turns.length === 0) return;
  const ids = turns.map((m) => firstCallId(m.content) as string);
  let kept: Map<string, string>;
  try {
    kept = await store.keptThinking(accountId, ids, Date.now());
  } catch (err) {
    // Best effort: a store that cannot answer leaves thinking off for the call, never fails it.
    log.warn({ err }, "kept thinking not read");
    return;
  }
  turns.forEach((turn, i) => {
    const blocks = kept.get(ids[i]);
    if (blocks === undefined) return;
    const rest = turn.content.filter((b) => b.type !== "thinking" && b.type !== "redacted_thinking");
    turn.content = [...(JSON.parse(blocks) as Thought[]), ...rest];
  });
}

function lacksSignedThinking(content: ContentBlock[]): boolean {
  return (
    firstCallId(content) !== undefined &&
    !content.some((b) => (b.type === "thinking" && b.signature) || b.type === "redacted_thinking")
  );
}

function firstCallId(content: ContentBlock[]): string | undefined {
  return content.find((b) => b.type === "tool_call")?.id;
}

/** The signed thinking and tool-call ids of a translated answer, read as it streams or whole. */
export class ThinkingCollector {
  private readonly open = new Map<number, Thought>();
  private readonly thoughts: Thought[] = [];
  private readonly callIds: string[] = [];
  private kept = false;

  observe(event: StreamEvent): void {
    if (event.type === "block_start") {
      const block = event.block;
      if (block.type === "thinking") this.open.set(event.index, { type: "thinking", text: "" });
      else if (block.type === "redacted_thinking")
        this.thoughts.push({ type: "redacted_thinking", data: block.data });
      else if (block.type === "tool_call") this.callIds.push(block.id);
    } else if (event.type === "block_delta") {
      const thought = this.open.get(event.index);
      if (thought?.type !== "thinking") return;
      if (event.delta.type === "thinking") thought.text += event.delta.text;
      else if (event.delta.type === "signature")
        thought.signature = (thought.signature ?? "") + event.delta.signature;
    } else if (event.type === "block_stop") {
      const thought = this.open.get(event.index);
      this.open.delete(event.index);
      if (thought) this.thoughts.push(thought);
    }
  }

  add(content: readonly OutputBlock[]): void {
    for (const block of content) {
      if (block.type === "thinking" || block.type === "redacted_thinking") this.thoughts.push(block);
      else if (block.type === "tool_call") this.callIds.push(block.id);
    }
  }

  /**
   * Keeps the turn's signed thinking under each of its calls' ids; never fails the generation.
   * Resolves once written (or given up on: it never rejects), so the answer's last bytes can wait for
   * it — the client's next turn may come the moment it has them, through any process. Once per turn.
   */
  keep(store: Store, accountId: string, log: WarningLogger): Promise<void> | undefined {
    if (this.kept) return undefined;
    this.kept = true;
    const signed = this.thoughts.filter((t) => t.type === "redacted_thinking" || t.signature);
    if (signed.length === 0 || this.callIds.length === 0) return undefined;
    const blocks = JSON.stringify(signed);
    if (blocks.length > KEPT_THINKING_MAX_CHARS) return undefined;
    const kept: KeptThinking[] = this.callIds.map((toolCallId) => ({ toolCallId, blocks }));
    return store
      .keepThinking(accountId, kept, Date.now() + KEPT_THINKING_MS)
      .catch((err) => log.warn({ err }, "thinking beside tool calls not kept"));
  }
}
