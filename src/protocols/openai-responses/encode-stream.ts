// IR events → client: the Responses API's typed event stream, each event written as soon as its IR
// event arrives, every one with its `sequence_number` (from 0) and an `event:` line naming its type.
// The sequence clients assemble on (the openai SDK's ResponseStream, Codex, the AI SDK):
//   response.created, response.in_progress;
//   per text: response.output_item.added (a message), response.content_part.added,
//     response.output_text.delta…, response.output_text.done, response.content_part.done,
//     response.output_item.done (consecutive text blocks are parts of one message);
//   per thinking: response.output_item.added (a reasoning item), response.reasoning_summary_part.added,
//     response.reasoning_summary_text.delta…, response.reasoning_summary_text.done,
//     response.reasoning_summary_part.done, response.output_item.done (with `encrypted_content`);
//   per tool call: response.output_item.added, response.function_call_arguments.delta…,
//     response.function_call_arguments.done, response.output_item.done (custom tools:
//     response.custom_tool_call_input.delta / .done);
//   last: response.completed, or response.incomplete, with the whole response and its usage.
// Usage may come before or after the finish, and more than once (the last one counts): the closing
// event is written by end(). An upstream failure is response.failed, then an `error` event.

import type { GatewayError } from "../../ir/errors.ts";
import type { FinishReason, TokenLogprob } from "../../ir/response.ts";
import type { BlockDelta, BlockStart, StreamEvent } from "../../ir/stream.ts";
import type { Usage } from "../../ir/usage.ts";
import { customInput } from "../shared/custom-tools.ts";
import { errorBody } from "../shared/openai-errors.ts";
import { toOpenAILogprobs } from "../shared/openai-logprobs.ts";
import { jsonString } from "../shared/text.ts";
import type { EncodeContext, StreamEncoder } from "../types.ts";
import { finishReasonToWire } from "./map-finish-reason.ts";
import { usageToWire } from "./map-usage.ts";
import {
  completedAt,
  imageItem,
  itemId,
  messageItem,
  outputText,
  ResponseJson,
  type responseObject,
  toolCallItem,
  urlAnnotations,
  webSearchItem,
} from "./output-items.ts";
import { reasoningItem } from "./reasoning-item.ts";
import type {
  WireCustomToolCallItem,
  WireFunctionCallItem,
  WireMessageItem,
  WireOutputItem,
  WireOutputText,
  WireReasoningItem,
} from "./wire-types.ts";

// `deltaFields`: the fields of the block's delta events before the piece (see pieceEvent).
type BlockState =
  | {
      kind: "text";
      message: OpenMessage;
      contentIndex: number;
      part: WireOutputText;
      closed: boolean;
      deltaFields: string;
    }
  | {
      kind: "thinking";
      outputIndex: number;
      item: WireReasoningItem;
      text: string;
      signature: string;
      summaryOpen: boolean;
      closed: boolean;
      deltaFields: string;
    }
  | {
      kind: "tool";
      outputIndex: number;
      item: WireFunctionCallItem | WireCustomToolCallItem;
      args: string;
      closed: boolean;
      deltaFields: string;
    }
  | { kind: "other" };

interface OpenMessage {
  outputIndex: number;
  item: WireMessageItem;
}

/** The member that numbers each event, as JSON spells its name (the upstream's, in a relay). */
const SEQUENCE_MEMBER = '"sequence_number"';

export function streamEncoder(ctx: EncodeContext): StreamEncoder {
  return new ResponsesStreamEncoder(ctx);
}

class ResponsesStreamEncoder implements StreamEncoder {
  private readonly ctx: EncodeContext;
  private readonly blocks = new Map<number, BlockState>();
  private readonly output: WireOutputItem[] = [];
  /** The message item that the next text block joins, while nothing else came after it. */
  private message: OpenMessage | undefined;
  private sequence = 0;
  private opened = false;
  private done = false;
  private reason: FinishReason = "stop";
  private usage: Usage | undefined;
  /** Written at the first event (response.created), when the context holds the answering model. */
  private response: ResponseJson | undefined;

  constructor(ctx: EncodeContext) {
    this.ctx = ctx;
  }

  encode(event: StreamEvent): string {
    if (this.done) return "";
    const opening = this.open();
    switch (event.type) {
      case "start":
        return opening;
      case "block_start":
        return opening + this.blockStart(event.index, event.block);
      case "block_delta":
        return opening + this.blockDelta(event.index, event.delta);
      case "block_stop":
        return opening + this.blockStop(this.blocks.get(event.index));
      case "finish":
        this.reason = event.reason;
        return opening + this.closeAll();
      case "usage":
        this.usage = event.usage;
        return opening;
      case "logprobs":
        this.addLogprobs(event.logprobs);
        return opening;
      case "error":
        return opening + this.fail(event.error);
    }
  }

  end(): string {
    if (this.done) return "";
    const text = this.open() + this.closeAll();
    this.done = true;
    const ending = finishReasonToWire(this.reason);
    const response = this.snapshot({
      ...ending,
      completed_at: completedAt(ending.status),
      usage: this.usage ? usageToWire(this.usage) : null,
    });
    const type = ending.status === "incomplete" ? "response.incomplete" : "response.completed";
    return text + this.eventOf(type, `,"response":${response}`);
  }

  follow(written: string): void {
    if (written === "") return;
    // The upstream opened the stream (response.created comes first): no second opening.
    this.opened = true;
    const at = written.lastIndexOf(SEQUENCE_MEMBER);
    const last =
      at < 0 ? undefined : /^\s*:\s*(\d+)/.exec(written.slice(at + SEQUENCE_MEMBER.length, at + 40));
    if (last) this.sequence = Number(last[1]) + 1;
  }

  /** response.created and response.in_progress, once, before anything else. */
  private open(): string {
    if (this.opened) return "";
    this.opened = true;
    // Both carry the same response, written as JSON once.
    const response = `,"response":${this.snapshot({ status: "in_progress", usage: null })}`;
    return this.eventOf("response.created", response) + this.eventOf("response.in_progress", response);
  }

  private blockStart(index: number, block: BlockStart): string {
    if (block.type === "text") return this.textStart(index);
    const out = this.closeMessage();
    const outputIndex = this.output.length;
    if (block.type === "thinking") {
      const item = reasoningItem({ type: "thinking", text: "" }, itemId(this.ctx, "rs", outputIndex));
      const deltaFields = fieldsBeforeDelta({
        item_id: item.id,
        output_index: outputIndex,
        summary_index: 0,
      });
      const state: BlockState = {
        kind: "thinking",
        outputIndex,
        item,
        text: "",
        signature: "",
        summaryOpen: false,
        closed: false,
        deltaFields,
      };
      return out + this.addItem(index, item, state);
    }
    if (block.type === "redacted_thinking")
      return out + this.wholeItem(index, reasoningItem(block, itemId(this.ctx, "rs", outputIndex)));
    if (block.type === "image") {
      const item = imageItem(
        { type: "image", source: { kind: "base64", mediaType: block.mediaType, data: block.data } },
        itemId(this.ctx, "ig", outputIndex),
      );
      return out + this.wholeItem(index, item, { ...item, status: "in_progress", result: null });
    }
    if (block.type === "web_search") {
      const item = webSearchItem(block.search, itemId(this.ctx, "ws", outputIndex));
      let events = this.addItem(index, item, { kind: "other" }, { ...item, status: "in_progress" });
      const at = { output_index: outputIndex, item_id: item.id };
      for (const step of ["in_progress", "searching", "completed"])
        events += this.event(`response.web_search_call.${step}`, at);
      return out + events + this.itemDone(outputIndex, item);
    }
    const call = { type: "tool_call" as const, id: block.id, name: block.name, arguments: "" };
    const item = toolCallItem(
      block.signature === undefined ? call : { ...call, signature: block.signature },
      this.ctx,
      outputIndex,
      "in_progress",
    );
    const deltaFields = fieldsBeforeDelta({ item_id: item.id, output_index: outputIndex });
    const state: BlockState = { kind: "tool", outputIndex, item, args: "", closed: false, deltaFields };
    return out + this.addItem(index, item, state);
  }

  /** A new output item other than a message: into the output, its block's state kept, and announced. */
  private addItem(index: number, item: WireOutputItem, state: BlockState, announced: unknown = item): string {
    const outputIndex = this.output.length;
    this.output.push(item);
    this.blocks.set(index, state);
    return this.event("response.output_item.added", { output_index: outputIndex, item: announced });
  }

  /** An item that arrives whole (redacted thinking, a generated image): added and done at once. */
  private wholeItem(index: number, item: WireOutputItem, announced: unknown = item): string {
    const outputIndex = this.output.length;
    return this.addItem(index, item, { kind: "other" }, announced) + this.itemDone(outputIndex, item);
  }

  private itemDone(outputIndex: number, item: WireOutputItem): string {
    return this.event("response.output_item.done", { output_index: outputIndex, item });
  }

  /** A text block: a new part of the open message, or a new message when something came between. */
  private textStart(index: number): string {
    let out = "";
    let message = this.message;
    if (!message) {
      message = {
        outputIndex: this.output.length,
        item: messageItem(itemId(this.ctx, "msg", this.output.length), "in_progress"),
      };
      this.output.push(message.item);
      this.message = message;
      out += this.event("response.output_item.added", {
        output_index: message.outputIndex,
        item: message.item,
      });
    }
    const part = outputText("");
    const contentIndex = message.item.content.length;
    message.item.content.push(part);
    const at = { item_id: message.item.id, output_index: message.outputIndex, content_index: contentIndex };
    this.blocks.set(index, {
      kind: "text",
      message,
      contentIndex,
      part,
      closed: false,
      deltaFields: fieldsBeforeDelta(at),
    });
    return out + this.event("response.content_part.added", { ...at, part });
  }

  private blockDelta(index: number, delta: BlockDelta): string {
    const state = this.blocks.get(index);
    if (!state) return "";
    if (state.kind === "text" && delta.type === "citation" && !state.closed) {
      // The passage is in the part's text so far (citations follow what they cite).
      const [annotation] = urlAnnotations(state.part.text, [delta.citation]);
      if (!annotation) return "";
      state.part.annotations.push(annotation);
      return this.event("response.output_text.annotation.added", {
        item_id: state.message.item.id,
        output_index: state.message.outputIndex,
        content_index: state.contentIndex,
        annotation_index: state.part.annotations.length - 1,
        annotation,
      });
    }
    if (state.kind === "text" && delta.type === "text" && delta.text && !state.closed) {
      state.part.text += delta.text;
      return this.pieceEvent("response.output_text.delta", state.deltaFields, delta.text, ',"logprobs":[]');
    }
    if (state.kind === "thinking" && !state.closed) {
      if (delta.type === "signature") {
        state.signature += delta.signature;
        return "";
      }
      if (delta.type !== "thinking" || !delta.text) return "";
      let out = "";
      if (!state.summaryOpen) {
        state.summaryOpen = true;
        out += this.event("response.reasoning_summary_part.added", {
          item_id: state.item.id,
          output_index: state.outputIndex,
          summary_index: 0,
          part: { type: "summary_text", text: "" },
        });
      }
      state.text += delta.text;
      return out + this.pieceEvent("response.reasoning_summary_text.delta", state.deltaFields, delta.text);
    }
    if (state.kind === "tool" && delta.type === "tool_arguments" && delta.json && !state.closed) {
      state.args += delta.json;
      // A custom tool's text is known only once its arguments are whole (see blockStop).
      if (state.item.type === "custom_tool_call") return "";
      return this.pieceEvent("response.function_call_arguments.delta", state.deltaFields, delta.json);
    }
    // A signature that arrives after a tool call opened cannot join its id any more; upstream
    // decoders put the Gemini signature on the tool call's block_start.
    return "";
  }

  /**
   * Token logprobs follow the text they are for: they join the open text part, written with its
   * `output_text.done` and in the final response (the deltas already went out with none).
   */
  private addLogprobs(logprobs: TokenLogprob[]): void {
    if (!this.ctx.request.logprobs) return;
    let open: WireOutputText | undefined;
    for (const state of this.blocks.values()) if (state.kind === "text" && !state.closed) open = state.part;
    open?.logprobs.push(...toOpenAILogprobs(logprobs));
  }

  private blockStop(state: BlockState | undefined): string {
    if (!state || state.kind === "other" || state.closed) return "";
    state.closed = true;
    if (state.kind === "text") {
      const { message, contentIndex, part } = state;
      const at = { item_id: message.item.id, output_index: message.outputIndex, content_index: contentIndex };
      return (
        this.event("response.output_text.done", { ...at, text: part.text, logprobs: part.logprobs }) +
        this.event("response.content_part.done", { ...at, part })
      );
    }
    if (state.kind === "thinking") return this.closeThinking(state);
    return this.closeTool(state);
  }

  private closeThinking(state: Extract<BlockState, { kind: "thinking" }>): string {
    let out = "";
    const at = { item_id: state.item.id, output_index: state.outputIndex, summary_index: 0 };
    if (state.summaryOpen) {
      const part = { type: "summary_text", text: state.text };
      out += this.event("response.reasoning_summary_text.done", { ...at, text: state.text });
      out += this.event("response.reasoning_summary_part.done", { ...at, part });
    }
    const block = { type: "thinking" as const, text: state.text };
    const item = reasoningItem(
      state.signature ? { ...block, signature: state.signature } : block,
      state.item.id,
    );
    this.output[state.outputIndex] = item;
    return out + this.itemDone(state.outputIndex, item);
  }

  private closeTool(state: Extract<BlockState, { kind: "tool" }>): string {
    const { item, outputIndex } = state;
    let out = "";
    if (item.type === "custom_tool_call") {
      item.input = customInput(state.args);
      const at = { item_id: item.id, output_index: outputIndex };
      if (item.input)
        out += this.event("response.custom_tool_call_input.delta", { ...at, delta: item.input });
      out += this.event("response.custom_tool_call_input.done", { ...at, input: item.input });
    } else {
      const at = { item_id: item.id, output_index: outputIndex };
      // A call that got no arguments ends with "{}", never "" (clients JSON.parse it).
      if (!state.args) {
        state.args = "{}";
        out += this.event("response.function_call_arguments.delta", { ...at, delta: "{}" });
      }
      item.arguments = state.args;
      out += this.event("response.function_call_arguments.done", {
        ...at,
        name: item.name,
        arguments: item.arguments,
      });
    }
    item.status = "completed";
    return out + this.itemDone(outputIndex, item);
  }

  /** The open message item, done. */
  private closeMessage(): string {
    const message = this.message;
    if (!message) return "";
    this.message = undefined;
    let out = "";
    for (const state of this.blocks.values())
      if (state.kind === "text" && state.message === message) out += this.blockStop(state);
    message.item.status = "completed";
    return out + this.itemDone(message.outputIndex, message.item);
  }

  /** Everything still open, done (in the order the blocks started), then the open message. */
  private closeAll(): string {
    let out = "";
    for (const state of this.blocks.values()) if (state.kind !== "text") out += this.blockStop(state);
    return out + this.closeMessage();
  }

  private fail(error: GatewayError): string {
    this.done = true;
    const detail = errorBody(error).error;
    const response = this.snapshot({
      status: "failed",
      usage: this.usage ? usageToWire(this.usage) : null,
      error: {
        code: error.kind === "rate_limit" ? "rate_limit_exceeded" : "server_error",
        message: error.message,
      },
    });
    // response.failed is the terminal event Codex reads; the `error` event is the one the openai
    // SDK raises as an APIError (it carries `error`), with OpenAI's top-level fields beside it.
    return (
      this.eventOf("response.failed", `,"response":${response}`) +
      this.event("error", { code: detail.code, message: detail.message, param: detail.param, error: detail })
    );
  }

  /** The response as it stands, as JSON: the output so far, with the given ending. */
  private snapshot(fields: Omit<Parameters<typeof responseObject>[1], "output">): string {
    if (!this.response) this.response = new ResponseJson(this.ctx);
    return this.response.write({ ...fields, output: this.output });
  }

  /**
   * One SSE event: its type on the `event:` line and first in the data, then its sequence number,
   * then `fields` (never naming `type` or `sequence_number`). Their JSON is joined to the first
   * two as text: the bytes of JSON.stringify of the whole, without copying the fields into a new
   * object first.
   */
  private event(type: string, fields: Record<string, unknown>): string {
    const json = JSON.stringify(fields);
    return this.eventOf(type, json === "{}" ? "" : `,${json.slice(1, -1)}`);
  }

  /**
   * A delta event carrying a piece, written as text: most of a stream is such events, the same
   * JSON but for the sequence number and the piece, so only the piece is written as JSON (jsonString).
   * The bytes are event()'s with the fields whole (test/protocols/openai-responses/encode-stream.test.ts).
   */
  private pieceEvent(type: string, deltaFields: string, piece: string, after = ""): string {
    return this.eventOf(type, `${deltaFields}${jsonString(piece)}${after}`);
  }

  /**
   * event() with the fields after the sequence number given as JSON text (`,"key":…`): the bytes
   * JSON.stringify writes for the whole object, as `type` is a plain name.
   */
  private eventOf(type: string, fieldsJson: string): string {
    return `event: ${type}\ndata: {"type":"${type}","sequence_number":${this.sequence++}${fieldsJson}}\n\n`;
  }
}

/** `,"item_id":…,"delta":`: a delta event's fields before its piece, as event() writes them. */
function fieldsBeforeDelta(fields: Record<string, unknown>): string {
  return `,${JSON.stringify(fields).slice(1, -1)},"delta":`;
}
