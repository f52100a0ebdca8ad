// An Anthropic-protocol upstream's SSE stream → IR stream events, one SSE event at a time: each piece
// goes out as soon as it arrives (docs/architecture.md §10: input_json_delta must not stall into a burst).

import { type GatewayError, upstreamFrameNotJson, upstreamStreamCut } from "../../ir/errors.ts";
import type { Citation } from "../../ir/request.ts";
import type { StreamEvent } from "../../ir/stream.ts";
import { StringSlots } from "../shared/string-slots.ts";
import { isObject, type Json } from "../shared/validate.ts";
import type { SseEvent, StreamDecoder } from "../types.ts";
import { errorFromWire } from "./errors.ts";
import { isJsonTool } from "./json-mode.ts";
import { finishReasonFromWire } from "./map-finish-reason.ts";
import { mergeWireUsage, usageFromWire } from "./map-usage.ts";
import { knownEvent, textDeltaForm } from "./stream-forms.ts";
import { searchFromResult, searchQuery } from "./web-search.ts";

type BlockKind = "text" | "thinking" | "redacted_thinking" | "tool_call" | "json_answer";

export function streamDecoder(): StreamDecoder {
  return new MessagesStreamDecoder();
}

class MessagesStreamDecoder implements StreamDecoder {
  /** Upstream block index → IR index; server-tool blocks have no IR form and are not in it. */
  private readonly blocks = new Map<number, { index: number; kind: BlockKind }>();
  private nextIndex = 0;
  /** Upstream index of a web search's server_tool_use → its id and input JSON so far. */
  private readonly serverCalls = new Map<number, { id: string; input: string }>();
  /** A finished search call's id → its query. */
  private readonly queries = new Map<string, string>();
  private startUsage: Json | undefined;
  private toolCalls = 0;
  private jsonAnswer = false;
  private done = false;
  /**
   * The last text_delta event parsed, as a template: most of a stream is that event again with
   * another piece of text, read without JSON.parse (src/protocols/shared/string-slots.ts).
   */
  private textDelta: { name: string | undefined; wireIndex: number; slots: StringSlots } | undefined;

  decode(event: SseEvent): StreamEvent[] {
    // A ping carries nothing, whatever its data (the default case below): not parsed.
    if (this.done || event.event === "ping") return [];
    const learned = this.textDelta;
    if (learned !== undefined && event.event === learned.name) {
      const text = learned.slots.read(event.data);
      if (text !== undefined) return this.textPiece(this.blocks.get(learned.wireIndex), text);
    }
    let data: unknown = knownEvent(event.data);
    if (data === undefined) {
      try {
        data = JSON.parse(event.data);
      } catch {
        if (event.data.trim() === "") return [];
        return this.fail(upstreamFrameNotJson());
      }
    }
    if (!isObject(data)) return [];
    const name = event.event ?? (typeof data.type === "string" ? data.type : "");
    switch (name) {
      case "message_start":
        return this.onMessageStart(data);
      case "content_block_start":
        return this.onBlockStart(data);
      case "content_block_delta":
        this.learnTextDelta(event, data);
        return this.onBlockDelta(data);
      case "content_block_stop": {
        const call = this.serverCalls.get(Number(data.index));
        if (call) this.queries.set(call.id, searchQuery(call.input));
        const block = this.blocks.get(Number(data.index));
        return block ? [{ type: "block_stop", index: block.index }] : [];
      }
      case "message_delta":
        return this.onMessageDelta(data);
      case "message_stop":
        this.done = true;
        return [];
      case "error":
        // An upstream error in the middle of a stream (docs/architecture.md §10): it ends the stream as an IR
        // error.
        return this.fail(errorFromWire(data.error));
      default:
        // `ping`, and event types added after this was written (the protocol says to skip them).
        return [];
    }
  }

  end(): StreamEvent[] {
    if (this.done) return [];
    return this.fail(upstreamStreamCut("message_stop"));
  }

  private fail(error: GatewayError): StreamEvent[] {
    this.done = true;
    return [{ type: "error", error }];
  }

  private onMessageStart(data: Json): StreamEvent[] {
    const message = isObject(data.message) ? data.message : {};
    const start: StreamEvent = { type: "start" };
    if (typeof message.id === "string") start.id = message.id;
    if (typeof message.model === "string") start.model = message.model;
    if (!isObject(message.usage)) return [start];
    // Input and cache counts are known now; passing them on at once lets a cut-off stream still be metered.
    this.startUsage = message.usage;
    return [start, { type: "usage", usage: usageFromWire(this.startUsage) }];
  }

  private onBlockStart(data: Json): StreamEvent[] {
    const block = isObject(data.content_block) ? data.content_block : {};
    const wireIndex = Number(data.index);
    const index = this.nextIndex;
    const events: StreamEvent[] = [];
    switch (block.type) {
      case "text":
        events.push({ type: "block_start", index, block: { type: "text" } });
        if (typeof block.text === "string" && block.text !== "")
          events.push({ type: "block_delta", index, delta: { type: "text", text: block.text } });
        this.blocks.set(wireIndex, { index, kind: "text" });
        this.expectTextDeltas(wireIndex);
        break;
      case "thinking":
        events.push({ type: "block_start", index, block: { type: "thinking" } });
        if (typeof block.thinking === "string" && block.thinking !== "")
          events.push({ type: "block_delta", index, delta: { type: "thinking", text: block.thinking } });
        if (typeof block.signature === "string" && block.signature !== "")
          events.push({
            type: "block_delta",
            index,
            delta: { type: "signature", signature: block.signature },
          });
        this.blocks.set(wireIndex, { index, kind: "thinking" });
        break;
      case "redacted_thinking":
        events.push({
          type: "block_start",
          index,
          block: { type: "redacted_thinking", data: typeof block.data === "string" ? block.data : "" },
        });
        this.blocks.set(wireIndex, { index, kind: "redacted_thinking" });
        break;
      case "tool_use": {
        const json = isJsonTool(block.name);
        if (json) {
          this.jsonAnswer = true;
          events.push({ type: "block_start", index, block: { type: "text" } });
        } else {
          this.toolCalls++;
          const id = typeof block.id === "string" ? block.id : "";
          const name = typeof block.name === "string" ? block.name : "";
          events.push({ type: "block_start", index, block: { type: "tool_call", id, name } });
        }
        // Input given whole at the start (programmatic tool calling) instead of in pieces.
        if (isObject(block.input) && Object.keys(block.input).length > 0) {
          const text = JSON.stringify(block.input);
          events.push({
            type: "block_delta",
            index,
            delta: json ? { type: "text", text } : { type: "tool_arguments", json: text },
          });
        }
        this.blocks.set(wireIndex, { index, kind: json ? "json_answer" : "tool_call" });
        break;
      }
      case "server_tool_use":
        // A search's query: held until its result block, where the IR block stands (web-search.ts).
        if (block.name === "web_search" && typeof block.id === "string") {
          const given = isObject(block.input) && Object.keys(block.input).length > 0;
          this.serverCalls.set(wireIndex, { id: block.id, input: given ? JSON.stringify(block.input) : "" });
        }
        return [];
      case "web_search_tool_result": {
        const query = this.queries.get(String(block.tool_use_id)) ?? "";
        events.push({
          type: "block_start",
          index,
          block: { type: "web_search", search: searchFromResult(block, query) },
        });
        events.push({ type: "block_stop", index });
        break;
      }
      default:
        return [];
    }
    this.nextIndex++;
    return events;
  }

  /** The block's deltas as the API writes them are the template, unless one was learned for it. */
  private expectTextDeltas(wireIndex: number): void {
    if (this.textDelta?.wireIndex === wireIndex) return;
    const slots = textDeltaForm(wireIndex);
    if (slots) this.textDelta = { name: "content_block_delta", wireIndex, slots };
  }

  /** A text_delta (nothing else in it is read) as the template of the next ones. */
  private learnTextDelta(event: SseEvent, data: Json): void {
    const delta = data.delta;
    if (!isObject(delta) || delta.type !== "text_delta" || typeof delta.text !== "string" || !delta.text)
      return;
    const slots = StringSlots.learn(event.data, [delta.text]);
    if (slots) this.textDelta = { name: event.event, wireIndex: Number(data.index), slots };
  }

  private textPiece(block: { index: number } | undefined, text: string): StreamEvent[] {
    return block && text !== ""
      ? [{ type: "block_delta", index: block.index, delta: { type: "text", text } }]
      : [];
  }

  private onBlockDelta(data: Json): StreamEvent[] {
    const block = this.blocks.get(Number(data.index));
    const delta = isObject(data.delta) ? data.delta : undefined;
    const call = this.serverCalls.get(Number(data.index));
    if (call && delta?.type === "input_json_delta" && typeof delta.partial_json === "string")
      call.input += delta.partial_json;
    if (!block || !delta) return [];
    const index = block.index;
    switch (delta.type) {
      case "text_delta":
        return typeof delta.text === "string" ? this.textPiece(block, delta.text) : [];
      case "input_json_delta": {
        const piece = typeof delta.partial_json === "string" ? delta.partial_json : "";
        if (piece === "") return [];
        return block.kind === "json_answer"
          ? [{ type: "block_delta", index, delta: { type: "text", text: piece } }]
          : [{ type: "block_delta", index, delta: { type: "tool_arguments", json: piece } }];
      }
      case "thinking_delta":
        return typeof delta.thinking === "string" && delta.thinking !== ""
          ? [{ type: "block_delta", index, delta: { type: "thinking", text: delta.thinking } }]
          : [];
      case "signature_delta":
        return typeof delta.signature === "string" && delta.signature !== ""
          ? [{ type: "block_delta", index, delta: { type: "signature", signature: delta.signature } }]
          : [];
      case "citations_delta":
        return isObject(delta.citation) && typeof delta.citation.type === "string"
          ? [
              {
                type: "block_delta",
                index,
                delta: { type: "citation", citation: delta.citation as Citation },
              },
            ]
          : [];
      default:
        // Later kinds have no IR delta.
        return [];
    }
  }

  private onMessageDelta(data: Json): StreamEvent[] {
    const events: StreamEvent[] = [];
    const delta = isObject(data.delta) ? data.delta : {};
    if (delta.stop_reason !== undefined && delta.stop_reason !== null) {
      let reason = finishReasonFromWire(delta.stop_reason);
      if (reason === "tool_calls" && this.jsonAnswer && this.toolCalls === 0) reason = "stop";
      events.push(
        typeof delta.stop_sequence === "string"
          ? { type: "finish", reason, stopSequence: delta.stop_sequence }
          : { type: "finish", reason },
      );
    }
    if (isObject(data.usage))
      events.push({ type: "usage", usage: usageFromWire(mergeWireUsage(this.startUsage, data.usage)) });
    return events;
  }
}
