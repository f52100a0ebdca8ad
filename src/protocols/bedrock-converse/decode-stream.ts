// A ConverseStream answer → IR stream events, one event-stream frame at a time. The frames reach
// this decoder as `SseEvent`s named by their `:event-type` (or `:exception-type`) with the JSON
// payload as data (src/providers/aws/event-stream.ts `toSseEvent`).
//
// Order on the wire: messageStart, then per content block an optional contentBlockStart (only a
// tool call has one: its id and name), contentBlockDelta pieces (text, tool input JSON, reasoning
// text, its signature, redacted reasoning, a citation) and contentBlockStop; then messageStop (the
// stop reason) and metadata (usage). A block without a start opens with its first delta, whose kind
// says what the block is. An exception frame (`modelStreamErrorException`, `throttlingException`…)
// ends the stream as an IR error.

import { type GatewayError, upstreamFrameNotJson, upstreamStreamCut } from "../../ir/errors.ts";
import type { BlockDelta, BlockStart, StreamEvent } from "../../ir/stream.ts";
import { isObject, type Json } from "../shared/validate.ts";
import type { SseEvent, StreamDecoder } from "../types.ts";
import { citationFromWire } from "./citations.ts";
import { streamException } from "./errors.ts";
import { finishReasonFromWire, stopSequenceFromWire } from "./map-finish-reason.ts";
import { usageFromWire } from "./map-usage.ts";

type BlockKind = "text" | "thinking" | "redacted_thinking" | "tool_call";

const EVENTS = new Set([
  "messageStart",
  "contentBlockStart",
  "contentBlockDelta",
  "contentBlockStop",
  "messageStop",
  "metadata",
]);

export function streamDecoder(): StreamDecoder {
  return new ConverseStreamDecoder();
}

class ConverseStreamDecoder implements StreamDecoder {
  /** Wire contentBlockIndex → IR index and kind, for the blocks still open. */
  private readonly open = new Map<number, { index: number; kind: BlockKind }>();
  private nextIndex = 0;
  private stopped = false;
  private done = false;

  decode(event: SseEvent): StreamEvent[] {
    if (this.done) return [];
    const name = event.event ?? "";
    if (!EVENTS.has(name))
      // An exception frame; an event type added after this was written is skipped.
      return name.endsWith("Exception") ? this.fail(streamException(name, event.data)) : [];
    let data: unknown;
    try {
      data = JSON.parse(event.data);
    } catch {
      return this.fail(upstreamFrameNotJson());
    }
    if (!isObject(data)) return [];
    switch (name) {
      case "messageStart":
        return [{ type: "start" }];
      case "contentBlockStart":
        return this.onBlockStart(data);
      case "contentBlockDelta":
        return this.onBlockDelta(data);
      case "contentBlockStop":
        return this.closeBlock(Number(data.contentBlockIndex));
      case "messageStop":
        return this.onMessageStop(data);
      default:
        // metadata: the usage, after messageStop; the stream is over.
        this.done = true;
        return isObject(data.usage) ? [{ type: "usage", usage: usageFromWire(data.usage) }] : [];
    }
  }

  end(): StreamEvent[] {
    if (this.done || this.stopped) return [];
    return this.fail(upstreamStreamCut("messageStop"));
  }

  private fail(error: GatewayError): StreamEvent[] {
    this.done = true;
    return [{ type: "error", error }];
  }

  private onBlockStart(data: Json): StreamEvent[] {
    const start = isObject(data.start) ? data.start : {};
    if (!isObject(start.toolUse)) return [];
    const call = start.toolUse;
    return this.openBlock(Number(data.contentBlockIndex), "tool_call", {
      type: "tool_call",
      id: typeof call.toolUseId === "string" ? call.toolUseId : "",
      name: typeof call.name === "string" ? call.name : "",
    });
  }

  private openBlock(wireIndex: number, kind: BlockKind, block: BlockStart): StreamEvent[] {
    const index = this.nextIndex++;
    this.open.set(wireIndex, { index, kind });
    return [{ type: "block_start", index, block }];
  }

  private closeBlock(wireIndex: number): StreamEvent[] {
    const block = this.open.get(wireIndex);
    if (!block) return [];
    this.open.delete(wireIndex);
    return [{ type: "block_stop", index: block.index }];
  }

  private onBlockDelta(data: Json): StreamEvent[] {
    const wireIndex = Number(data.contentBlockIndex);
    const delta = isObject(data.delta) ? data.delta : {};
    if (typeof delta.text === "string")
      return this.piece(wireIndex, "text", { type: "text", text: delta.text });
    if (isObject(delta.toolUse) && typeof delta.toolUse.input === "string")
      return this.piece(wireIndex, "tool_call", { type: "tool_arguments", json: delta.toolUse.input });
    if (isObject(delta.reasoningContent)) return this.onReasoning(wireIndex, delta.reasoningContent);
    if (isObject(delta.citation)) {
      const citation = citationFromWire(delta.citation);
      return citation ? this.piece(wireIndex, "text", { type: "citation", citation }) : [];
    }
    return [];
  }

  private onReasoning(wireIndex: number, reasoning: Json): StreamEvent[] {
    if (typeof reasoning.redactedContent === "string") {
      if (this.open.has(wireIndex)) return [];
      return this.openBlock(wireIndex, "redacted_thinking", {
        type: "redacted_thinking",
        data: reasoning.redactedContent,
      });
    }
    if (typeof reasoning.text === "string")
      return this.piece(wireIndex, "thinking", { type: "thinking", text: reasoning.text });
    if (typeof reasoning.signature === "string")
      return this.piece(wireIndex, "thinking", { type: "signature", signature: reasoning.signature });
    return [];
  }

  /** A delta of the block at `wireIndex`, which it opens when it is the block's first. */
  private piece(
    wireIndex: number,
    kind: Exclude<BlockKind, "redacted_thinking">,
    delta: BlockDelta,
  ): StreamEvent[] {
    const events = this.open.has(wireIndex) ? [] : this.openBlock(wireIndex, kind, startOf(kind));
    const block = this.open.get(wireIndex);
    if (block?.kind === kind && !isEmpty(delta))
      events.push({ type: "block_delta", index: block.index, delta });
    return events;
  }

  private onMessageStop(data: Json): StreamEvent[] {
    this.stopped = true;
    // A block the upstream never stopped is stopped here, so that every block ends before the finish.
    const events: StreamEvent[] = [...this.open.keys()].flatMap((wireIndex) => this.closeBlock(wireIndex));
    let reason = finishReasonFromWire(data.stopReason);
    const stopSequence = stopSequenceFromWire(data.additionalModelResponseFields);
    if (stopSequence !== undefined && reason === "stop") reason = "stop_sequence";
    events.push(
      stopSequence !== undefined ? { type: "finish", reason, stopSequence } : { type: "finish", reason },
    );
    return events;
  }
}

/** What a block that opens with a delta is (only a tool call has a start of its own). */
function startOf(kind: Exclude<BlockKind, "redacted_thinking">): BlockStart {
  return kind === "tool_call" ? { type: "tool_call", id: "", name: "" } : { type: kind };
}

function isEmpty(delta: BlockDelta): boolean {
  switch (delta.type) {
    case "text":
    case "thinking":
      return delta.text === "";
    case "tool_arguments":
      return delta.json === "";
    case "signature":
      return delta.signature === "";
    default:
      return false;
  }
}
