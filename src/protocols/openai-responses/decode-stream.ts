// Upstream → IR: a Responses API event stream, decoded event by event as it arrives. Each event names
// its type in its data (the `event:` line says the same and is not needed). What this reads:
// - response.created → start (id, model);
// - an output item's events, by `output_index`: a message's content parts are text blocks
//   (output_text and refusal deltas), a reasoning item a thinking block (summary and reasoning_text
//   deltas; its `encrypted_content`, complete in response.output_item.done, is the block's
//   signature), a function call a tool_call block (argument deltas; the done item's arguments when
//   no delta came), a custom tool call a tool_call block whose arguments are `{"input": …}` once
//   the item is done. Text and thinking blocks open with their first piece, so a part or a summary
//   with nothing in it makes no empty block (reasoning with only a signature opens at its done);
// - response.completed / response.incomplete → usage and finish; response.failed and `error` →
//   error. A stream that ends before its closing event ends with an error.
// Items of OpenAI's hosted tools (web search, code interpreter…) open no block; a web search is
// counted for billing.

import { GatewayError, upstreamStreamCut } from "../../ir/errors.ts";
import type { StreamEvent } from "../../ir/stream.ts";
import { newToolCallId } from "../../ir/tool-call-id.ts";
import { citationsFromAnnotations } from "../shared/openai-annotations.ts";
import { decodeErrorObject } from "../shared/openai-errors.ts";
import { fromOpenAILogprobs } from "../shared/openai-logprobs.ts";
import { frameJson } from "../shared/sse.ts";
import { isObject } from "../shared/validate.ts";
import type { SseEvent, StreamDecoder } from "../types.ts";
import { imageFromItem, searchFromItem, toolArguments } from "./decode-response.ts";
import { finishReasonFromWire, isClientToolCall } from "./map-finish-reason.ts";
import { usageFromWire, withHostedToolUnits } from "./map-usage.ts";
import { blockFromReasoningItem } from "./reasoning-item.ts";

type Json = Record<string, unknown>;

/** An output item's open IR block(s). */
interface ItemState {
  type: string;
  /** message: content index → block; other items: their one block under key 0. */
  blocks: Map<number, number>;
  /** Reasoning: the summary part last written, so parts after the first are set apart. */
  summaryIndex?: number;
  /** Function calls: argument text arrived as deltas. */
  sawArguments?: boolean;
}

export function streamDecoder(): StreamDecoder {
  return new ResponsesStreamDecoder();
}

class ResponsesStreamDecoder implements StreamDecoder {
  private started = false;
  private ended = false;
  private nextBlock = 0;
  private readonly items = new Map<number, ItemState>();
  private calledTools = false;
  /** Output items other than client tool calls; hosted tools among them are billed per call. */
  private readonly otherItems: Json[] = [];
  /** Each text block's text so far (annotations give offsets into it). */
  private readonly texts = new Map<number, string>();
  private out: StreamEvent[] = [];

  decode(event: SseEvent): StreamEvent[] {
    this.out = [];
    if (this.ended) return [];
    const e = frameJson(event.data);
    if (e instanceof GatewayError) return this.fail(e);
    if (!isObject(e)) return [];
    const type = typeof e.type === "string" ? e.type : event.event;
    switch (type) {
      case "response.created":
      case "response.in_progress":
        this.start(e.response);
        break;
      case "response.output_item.added":
        this.itemAdded(e);
        break;
      case "response.output_text.delta": {
        this.delta(e, "text");
        // Each delta carries the logprobs of its own tokens (output_text.done repeats them all).
        const logprobs = fromOpenAILogprobs(e.logprobs);
        if (logprobs.length > 0) this.out.push({ type: "logprobs", logprobs });
        break;
      }
      case "response.refusal.delta":
        this.delta(e, "text");
        break;
      case "response.output_text.annotation.added":
        this.annotation(e);
        break;
      case "response.reasoning_summary_text.delta":
      case "response.reasoning_text.delta":
        this.delta(e, "thinking");
        break;
      case "response.reasoning_summary_part.added":
        this.summaryPart(e);
        break;
      case "response.function_call_arguments.delta":
        this.argumentsDelta(e);
        break;
      case "response.content_part.done":
        this.partDone(e);
        break;
      case "response.output_item.done":
        this.itemDone(e);
        break;
      case "response.completed":
      case "response.incomplete":
        this.finish(e.response);
        break;
      case "response.failed":
        return this.fail(failure(isObject(e.response) ? e.response.error : undefined));
      case "error":
        return this.fail(failure(isObject(e.error) ? e.error : e));
    }
    return this.out;
  }

  end(): StreamEvent[] {
    if (this.ended) return [];
    this.ended = true;
    return [{ type: "error", error: upstreamStreamCut("response.completed") }];
  }

  private start(response: unknown): void {
    if (this.started) return;
    this.started = true;
    const start: StreamEvent = { type: "start" };
    if (isObject(response)) {
      if (typeof response.id === "string") start.id = response.id;
      if (typeof response.model === "string") start.model = response.model;
    }
    this.out.push(start);
  }

  private itemAdded(e: Json): void {
    this.start(undefined);
    const item = isObject(e.item) ? e.item : {};
    const type = typeof item.type === "string" ? item.type : "";
    const state: ItemState = { type, blocks: new Map() };
    this.items.set(outputIndex(e), state);
    // Text and thinking blocks open with their first piece: an empty one is never emitted.
    if (isClientToolCall(type)) {
      this.calledTools = true;
      const id = typeof item.call_id === "string" && item.call_id ? item.call_id : newToolCallId();
      this.open(state, 0, { type: "tool_call", id, name: typeof item.name === "string" ? item.name : "" });
    } else {
      this.otherItems.push({ type });
    }
  }

  /** A `url_citation` of a text part: a citation of its block, the passage read from the text so far. */
  private annotation(e: Json): void {
    const block = this.items.get(outputIndex(e))?.blocks.get(contentIndex(e));
    if (block === undefined) return;
    for (const citation of citationsFromAnnotations(this.texts.get(block) ?? "", [e.annotation]))
      this.out.push({ type: "block_delta", index: block, delta: { type: "citation", citation } });
  }

  private delta(e: Json, kind: "text" | "thinking"): void {
    if (typeof e.delta !== "string" || !e.delta) return;
    const state = this.items.get(outputIndex(e));
    if (!state) return;
    const key = kind === "text" ? contentIndex(e) : 0;
    const owner = kind === "text" ? "message" : "reasoning";
    if (state.type !== owner) return;
    const block = state.blocks.get(key) ?? this.open(state, key, { type: kind });
    this.out.push({ type: "block_delta", index: block, delta: { type: kind, text: e.delta } });
    if (kind === "text") this.texts.set(block, (this.texts.get(block) ?? "") + e.delta);
  }

  /** Summary parts after the first are one thinking text, set apart by a blank line. */
  private summaryPart(e: Json): void {
    const state = this.items.get(outputIndex(e));
    if (state?.type !== "reasoning") return;
    const index = typeof e.summary_index === "number" ? e.summary_index : 0;
    const block = state.blocks.get(0);
    if (block !== undefined && state.summaryIndex !== undefined && index !== state.summaryIndex)
      this.out.push({ type: "block_delta", index: block, delta: { type: "thinking", text: "\n\n" } });
    state.summaryIndex = index;
  }

  private argumentsDelta(e: Json): void {
    const state = this.items.get(outputIndex(e));
    const block = state?.blocks.get(0);
    if (!state || block === undefined || typeof e.delta !== "string" || !e.delta) return;
    state.sawArguments = true;
    this.out.push({ type: "block_delta", index: block, delta: { type: "tool_arguments", json: e.delta } });
  }

  private partDone(e: Json): void {
    const state = this.items.get(outputIndex(e));
    if (state?.type !== "message") return;
    const key = contentIndex(e);
    const block = state.blocks.get(key);
    if (block === undefined) return;
    state.blocks.delete(key);
    this.out.push({ type: "block_stop", index: block });
  }

  private itemDone(e: Json): void {
    const index = outputIndex(e);
    const item = isObject(e.item) ? e.item : {};
    const state: ItemState = this.items.get(index) ?? { type: String(item.type ?? ""), blocks: new Map() };
    this.items.delete(index);
    if (state.type === "reasoning") {
      const reasoning = blockFromReasoningItem(item);
      if (reasoning?.type === "redacted_thinking" && state.blocks.size === 0) {
        this.open(state, 0, { type: "redacted_thinking", data: reasoning.data });
      } else if (reasoning?.type === "thinking" && reasoning.signature) {
        // Reasoning whose text nobody sees (no summary asked for) is still kept for its signature.
        const block = state.blocks.get(0) ?? this.open(state, 0, { type: "thinking" });
        this.out.push({
          type: "block_delta",
          index: block,
          delta: { type: "signature", signature: reasoning.signature },
        });
      }
    } else if (isClientToolCall(state.type)) {
      const block = state.blocks.get(0);
      // Arguments that came whole (a custom tool's input, or an upstream that sends no deltas).
      const json = toolArguments(item);
      if (block !== undefined && !state.sawArguments && json)
        this.out.push({ type: "block_delta", index: block, delta: { type: "tool_arguments", json } });
    } else if (state.type === "web_search_call") {
      const search = searchFromItem(item);
      if (search) this.open(state, 0, { type: "web_search", search });
    } else if (state.type === "image_generation_call") {
      const image = imageFromItem(item);
      if (image)
        this.open(state, 0, { type: "image", mediaType: image.source.mediaType, data: image.source.data });
    }
    for (const block of state.blocks.values()) this.out.push({ type: "block_stop", index: block });
  }

  private finish(response: unknown): void {
    this.start(response);
    // Items still open (an upstream that skips their done events) end before the finish.
    for (const state of this.items.values())
      for (const block of state.blocks.values()) this.out.push({ type: "block_stop", index: block });
    this.items.clear();
    const body = isObject(response) ? response : {};
    const usage = withHostedToolUnits(usageFromWire(body.usage), this.otherItems);
    this.out.push({ type: "usage", usage });
    this.out.push({
      type: "finish",
      reason: finishReasonFromWire(body.status, body.incomplete_details, this.calledTools),
    });
    this.ended = true;
  }

  private open(
    state: ItemState,
    key: number,
    block: Extract<StreamEvent, { type: "block_start" }>["block"],
  ): number {
    const index = this.nextBlock++;
    state.blocks.set(key, index);
    this.out.push({ type: "block_start", index, block });
    return index;
  }

  private fail(error: GatewayError): StreamEvent[] {
    this.ended = true;
    this.out.push({ type: "error", error });
    return this.out;
  }
}

function outputIndex(e: Json): number {
  return typeof e.output_index === "number" ? e.output_index : 0;
}

function contentIndex(e: Json): number {
  return typeof e.content_index === "number" ? e.content_index : 0;
}

/** An error object from response.failed or an `error` event → GatewayError. */
function failure(detail: unknown): GatewayError {
  if (!isObject(detail)) return new GatewayError("api_error", "upstream stream error", { status: 502 });
  // `rate_limit_exceeded` is the one code that says to come back later.
  if (detail.code === "rate_limit_exceeded")
    return new GatewayError("rate_limit", String(detail.message ?? "rate limited"), { status: 429 });
  return decodeErrorObject(detail);
}
