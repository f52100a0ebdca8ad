// IR stream events → the messages SSE stream (`event:` lines, as clients require).
//
// Rules the client relies on:
// - content block indexes are contiguous from 0 in the order blocks open, whatever indexes the IR
//   used, because the SDK appends each content_block_start to its content array;
// - one block is open at a time: a block that starts while another is streaming is deferred and
//   replayed when the first one stops;
// - a text (or thinking) block opens only with its first non-empty piece: never an empty block
//   (docs/architecture.md §10);
// - each input_json_delta piece is written as soon as it arrives (docs/architecture.md §10: no bursts);
// - a thinking signature is written once, just before its block stops (the SDK keeps the last one);
// - `finish` waits for the next usage (or the end) so message_delta carries the final usage.

import type { GatewayError } from "../../ir/errors.ts";
import type { FinishReason, WebSearchBlock } from "../../ir/response.ts";
import type { BlockDelta, BlockStart, StreamEvent } from "../../ir/stream.ts";
import { packToolCallId } from "../../ir/tool-call-id.ts";
import type { Usage } from "../../ir/usage.ts";
import { emptyUsage } from "../../ir/usage.ts";
import { sseEvent } from "../shared/sse.ts";
import { jsonString } from "../shared/text.ts";
import type { EncodeContext, StreamEncoder } from "../types.ts";
import { imageBlock, searchResultBlock, serverToolUse, stopDetails } from "./encode-response.ts";
import { errorType } from "./errors.ts";
import { finishReasonToWire } from "./map-finish-reason.ts";
import { deltaUsageToWire, usageToWire } from "./map-usage.ts";

interface Block {
  irIndex: number;
  start: BlockStart;
  /** Position in the client's content array, once the block has opened. */
  clientIndex?: number;
  /** Signature pieces, written once at the block's end (thinking) or folded into the id (tool call). */
  signature: string;
}

interface Deferred {
  block: Block;
  deltas: BlockDelta[];
  stopped: boolean;
}

export function streamEncoder(ctx: EncodeContext): StreamEncoder {
  return new MessagesStreamEncoder(ctx);
}

class MessagesStreamEncoder implements StreamEncoder {
  private readonly ctx: EncodeContext;
  private started = false;
  private active: Block | undefined;
  private readonly deferred: Deferred[] = [];
  private nextIndex = 0;
  private usage: Usage | undefined;
  private finish: { reason: FinishReason; stopSequence?: string; message?: string } | undefined;
  private deltaSent = false;
  private done = false;

  constructor(ctx: EncodeContext) {
    this.ctx = ctx;
  }

  encode(event: StreamEvent): string {
    if (this.done) return "";
    switch (event.type) {
      // message_start waits for the next event, so that a usage right behind `start` (input and cache
      // counts) is in it: the SDK takes the cache split from message_start only.
      case "start":
        return "";
      // The messages protocol has no log probabilities (docs/translation.md §13b).
      case "logprobs":
        return "";
      case "usage":
        return this.onUsage(event.usage);
      case "block_start":
        return this.messageStart() + this.onBlockStart(event.index, event.block);
      case "block_delta":
        return this.messageStart() + this.onBlockDelta(event.index, event.delta);
      case "block_stop":
        return this.messageStart() + this.onBlockStop(event.index);
      case "finish":
        this.finish = { reason: event.reason, stopSequence: event.stopSequence, message: event.message };
        return this.messageStart();
      case "error":
        this.done = true;
        return errorEvent(event.error);
    }
  }

  end(): string {
    if (this.done) return "";
    this.done = true;
    let out = this.messageStart() + this.closeAllBlocks();
    if (!this.deltaSent) out += this.messageDelta();
    return out + MESSAGE_STOP;
  }

  private onUsage(usage: Usage): string {
    this.usage = usage;
    let out = this.messageStart();
    if (this.finish) out += this.closeAllBlocks() + this.messageDelta();
    return out;
  }

  private messageStart(): string {
    if (this.started) return "";
    this.started = true;
    return sseEvent("message_start", {
      type: "message_start",
      message: {
        id: this.ctx.id,
        type: "message",
        role: "assistant",
        model: this.ctx.model,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        stop_details: null,
        container: null,
        usage: usageToWire(this.usage ?? emptyUsage()),
      },
    });
  }

  private messageDelta(): string {
    this.deltaSent = true;
    const stopReason = finishReasonToWire(this.finish?.reason ?? "stop");
    return sseEvent("message_delta", {
      type: "message_delta",
      delta: {
        stop_reason: stopReason,
        stop_sequence: stopReason === "stop_sequence" ? (this.finish?.stopSequence ?? null) : null,
        stop_details: stopDetails(this.finish?.reason ?? "stop", this.finish?.message),
        container: null,
      },
      usage: deltaUsageToWire(this.usage ?? emptyUsage()),
    });
  }

  private onBlockStart(irIndex: number, start: BlockStart): string {
    const block: Block = { irIndex, start, signature: "" };
    if (this.active) {
      this.deferred.push({ block, deltas: [], stopped: false });
      return "";
    }
    this.active = block;
    return this.activate(block);
  }

  private onBlockDelta(irIndex: number, delta: BlockDelta): string {
    if (this.active?.irIndex === irIndex) return this.writeDelta(this.active, delta);
    this.deferred.find((d) => d.block.irIndex === irIndex)?.deltas.push(delta);
    return "";
  }

  private onBlockStop(irIndex: number): string {
    if (this.active?.irIndex === irIndex) {
      const out = this.close(this.active);
      this.active = undefined;
      return out + this.resumeDeferred();
    }
    const deferred = this.deferred.find((d) => d.block.irIndex === irIndex);
    if (deferred) deferred.stopped = true;
    return "";
  }

  /** Replays deferred blocks in the order they started, until one is still streaming. */
  private resumeDeferred(): string {
    let out = "";
    while (!this.active && this.deferred.length > 0) {
      const next = this.deferred.shift()!;
      this.active = next.block;
      out += this.activate(next.block);
      for (const delta of next.deltas) out += this.writeDelta(next.block, delta);
      if (next.stopped) {
        out += this.close(next.block);
        this.active = undefined;
      }
    }
    return out;
  }

  private closeAllBlocks(): string {
    let out = "";
    while (this.active || this.deferred.length > 0) {
      if (this.active) {
        out += this.close(this.active);
        this.active = undefined;
      }
      out += this.resumeDeferred();
    }
    return out;
  }

  /** Redacted thinking carries all it has at its start; every other kind opens with its first content. */
  private activate(block: Block): string {
    return block.start.type === "redacted_thinking" ? this.open(block) : "";
  }

  private writeDelta(block: Block, delta: BlockDelta): string {
    const kind = block.start.type;
    if (delta.type === "signature") {
      if (kind === "thinking" || (kind === "tool_call" && block.clientIndex === undefined))
        block.signature += delta.signature;
      return "";
    }
    if (delta.type === "citation") {
      // A citation joins its text block once that has opened (it never opens an empty one).
      if (kind !== "text" || block.clientIndex === undefined) return "";
      const wire = { type: "citations_delta", citation: delta.citation };
      return sseEvent("content_block_delta", {
        type: "content_block_delta",
        index: block.clientIndex,
        delta: wire,
      });
    }
    let opening: string;
    if (delta.type === "text" && kind === "text") opening = TEXT_DELTA;
    else if (delta.type === "thinking" && kind === "thinking") opening = THINKING_DELTA;
    else if (delta.type === "tool_arguments" && kind === "tool_call") opening = INPUT_JSON_DELTA;
    else return "";
    const piece = delta.type === "tool_arguments" ? delta.json : delta.text;
    if (piece.length === 0) return "";
    const out = this.open(block);
    return out + pieceEvent(block.clientIndex as number, opening, piece); // open() numbered the block
  }

  private open(block: Block): string {
    if (block.clientIndex !== undefined) return "";
    block.clientIndex = this.nextIndex++;
    const start = block.start;
    if (start.type === "text") return textBlockStart(block.clientIndex);
    let contentBlock: object;
    switch (start.type) {
      case "thinking":
        contentBlock = { type: "thinking", thinking: "", signature: "" };
        break;
      case "redacted_thinking":
        contentBlock = { type: "redacted_thinking", data: start.data };
        break;
      case "tool_call":
        contentBlock = {
          type: "tool_use",
          id: packToolCallId(start.id, start.signature ?? (block.signature || undefined)),
          name: start.name,
          input: {},
          caller: { type: "direct" },
        };
        break;
      case "image":
        contentBlock = imageBlock(start.mediaType, start.data);
        break;
      case "web_search":
        return this.searchBlocks(block, start.search);
    }
    return sseEvent("content_block_start", {
      type: "content_block_start",
      index: block.clientIndex,
      content_block: contentBlock,
    });
  }

  /**
   * A web search is two client blocks: the server_tool_use (its query as one input_json_delta, as the
   * API streams it) closed here, and the web_search_tool_result, whole, left open for close().
   */
  private searchBlocks(block: Block, search: WebSearchBlock): string {
    const call = serverToolUse(search);
    const callIndex = block.clientIndex;
    const input = JSON.stringify(call.input);
    let out = sseEvent("content_block_start", {
      type: "content_block_start",
      index: callIndex,
      content_block: { ...call, input: {} },
    });
    out += sseEvent("content_block_delta", {
      type: "content_block_delta",
      index: callIndex,
      delta: { type: "input_json_delta", partial_json: input },
    });
    out += blockStop(callIndex as number);
    block.clientIndex = this.nextIndex++;
    return (
      out +
      sseEvent("content_block_start", {
        type: "content_block_start",
        index: block.clientIndex,
        content_block: searchResultBlock(search),
      })
    );
  }

  private close(block: Block): string {
    const kind = block.start.type;
    let out = "";
    if (block.clientIndex === undefined) {
      // Never-opened text or unsigned empty thinking: nothing to show. A tool call without arguments
      // and a signed empty thinking block are real blocks (input `{}`; replayable reasoning,
      // docs/architecture.md §10).
      if (kind === "text" || (kind === "thinking" && block.signature === "")) return "";
      out += this.open(block);
    }
    if (kind === "thinking" && block.signature !== "")
      out += sseEvent("content_block_delta", {
        type: "content_block_delta",
        index: block.clientIndex,
        delta: { type: "signature_delta", signature: block.signature },
      });
    return out + blockStop(block.clientIndex as number); // open() numbered the block
  }
}

/** How a delta carrying a piece opens, up to the piece: its type, and the field the piece is in. */
const deltaOpening = (type: string, field: string) => `,"delta":{"type":"${type}","${field}":`;
const TEXT_DELTA = deltaOpening("text_delta", "text");
const THINKING_DELTA = deltaOpening("thinking_delta", "thinking");
const INPUT_JSON_DELTA = deltaOpening("input_json_delta", "partial_json");

// A text block's start, a block's stop and message_stop, the same text in every stream but for the
// block's index: written as the text sseEvent writes for their objects, without JSON.stringify
// (test/protocols/anthropic/encode-stream.test.ts).
const textBlockStart = (index: number) =>
  `event: content_block_start\ndata: {"type":"content_block_start","index":${index},"content_block":{"type":"text","text":""}}\n\n`;
const blockStop = (index: number) =>
  `event: content_block_stop\ndata: {"type":"content_block_stop","index":${index}}\n\n`;
const MESSAGE_STOP = 'event: message_stop\ndata: {"type":"message_stop"}\n\n';

/**
 * A content_block_delta carrying a piece, written as text: most of a stream is this event, the
 * same JSON but for its index and piece, so only the piece is written as JSON (jsonString). The bytes
 * are those of sseEvent with the whole object (test/protocols/anthropic/encode-stream.test.ts).
 */
function pieceEvent(index: number, deltaOpening: string, piece: string): string {
  return `event: content_block_delta\ndata: {"type":"content_block_delta","index":${index}${deltaOpening}${jsonString(piece)}}}\n\n`;
}

function errorEvent(error: GatewayError): string {
  return sseEvent("error", { type: "error", error: { type: errorType(error), message: error.message } });
}
