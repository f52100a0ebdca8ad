// IR events → client: `chat.completion.chunk` Server-Sent Events, each written as soon as its event
// arrives (docs/architecture.md §10: pieces must not stall). What real clients assemble on
// (docs/architecture.md §10):
// - the first chunk is the role-only opening delta `{role: "assistant", content: ""}`;
// - a tool call opens with `{index, id, type, function: {name, arguments: ""}}` once, then sends only
//   `{index, function: {arguments}}` pieces, never an empty piece, and a call that got no arguments
//   ends with "{}"; a call of a tool the request declared custom goes whole, once its input is:
//   `{index, id, type: "custom", custom: {name, input}}`;
// - usage goes in its own chunk with `choices: []`, only when the client asked for it. It is written
//   at the end, just before `[DONE]`, because upstreams may report usage more than once and
//   before or after the finish (the last report is the one that counts);
// - an error mid-stream is a final chunk carrying `error`, then `data: [DONE]`. Both are written with
//   the error event itself, so the stream is closed properly even when the caller writes only that
//   event and never calls end() (end() then adds nothing).

import type { BlockDelta, BlockStart, StreamEvent } from "../../ir/stream.ts";
import { packToolCallId } from "../../ir/tool-call-id.ts";
import type { Usage } from "../../ir/usage.ts";
import { customInput, isCustomTool } from "../shared/custom-tools.ts";
import { sseData } from "../shared/sse.ts";
import type { EncodeContext, StreamEncoder } from "../types.ts";
import { errorBody } from "./errors.ts";
import { finishReasonToWire } from "./map-finish-reason.ts";
import { usageToWire } from "./map-usage.ts";
import { REASONING_FORMAT, reasoningDetail } from "./reasoning-details.ts";
import type { WireFinishReason } from "./wire-types.ts";

type Delta = Record<string, unknown>;

type BlockState =
  | { kind: "text" }
  | { kind: "thinking"; detailIndex: number }
  | {
      kind: "tool_call";
      toolIndex: number;
      sentArguments: boolean;
      closed: boolean;
      /** A custom tool's call: sent whole once its arguments are (its input is their `input`). */
      custom?: { id: string; name: string; args: string };
    }
  | { kind: "other" };

export function streamEncoder(ctx: EncodeContext): StreamEncoder {
  return new ChatStreamEncoder(ctx);
}

class ChatStreamEncoder implements StreamEncoder {
  private readonly ctx: EncodeContext;
  private readonly showReasoning: boolean;
  private readonly blocks = new Map<number, BlockState>();
  private opened = false;
  private failed = false;
  private toolCalls = 0;
  private reasoningSegments = 0;
  private usage: Usage | undefined;

  constructor(ctx: EncodeContext) {
    this.ctx = ctx;
    this.showReasoning = ctx.request.reasoning?.exclude !== true;
  }

  encode(event: StreamEvent): string {
    if (this.failed) return "";
    switch (event.type) {
      case "start":
        return this.open();
      case "block_start":
        return this.blockStart(event.index, event.block);
      case "block_delta":
        return this.blockDelta(event.index, event.delta);
      case "block_stop":
        return this.blockStop(event.index);
      case "finish":
        return this.open() + this.closeToolCalls() + this.chunk({}, finishReasonToWire(event.reason));
      case "usage":
        this.usage = event.usage;
        return "";
      case "error":
        this.failed = true;
        // OpenAI's own mid-stream error shape: no `choices`, so the openai SDK raises it as an
        // APIError and the Vercel AI SDK matches it as an error chunk rather than an empty chunk.
        return `${sseData(errorBody(event.error))}data: [DONE]\n\n`;
    }
  }

  end(): string {
    if (this.failed) return "";
    const usage =
      this.usage && this.ctx.request.streamUsage
        ? sseData({ ...this.envelope(), choices: [], usage: usageToWire(this.usage) })
        : "";
    return `${usage}data: [DONE]\n\n`;
  }

  private blockStart(index: number, block: BlockStart): string {
    switch (block.type) {
      case "text":
        this.blocks.set(index, { kind: "text" });
        return this.open();
      case "thinking":
        this.blocks.set(index, { kind: "thinking", detailIndex: this.reasoningSegments++ });
        return this.open();
      case "redacted_thinking": {
        this.blocks.set(index, { kind: "other" });
        const detailIndex = this.reasoningSegments++;
        if (!this.showReasoning) return this.open();
        const detail = reasoningDetail({ type: "redacted_thinking", data: block.data }, detailIndex);
        return this.open() + this.chunk({ reasoning_details: [detail] });
      }
      case "tool_call": {
        const toolIndex = this.toolCalls++;
        const state: BlockState = { kind: "tool_call", toolIndex, sentArguments: false, closed: false };
        this.blocks.set(index, state);
        const id = packToolCallId(block.id, block.signature);
        if (isCustomTool(this.ctx.request.tools, block.name)) {
          state.custom = { id, name: block.name, args: "" };
          return this.open();
        }
        const opening = {
          index: toolIndex,
          id,
          type: "function",
          function: { name: block.name, arguments: "" },
        };
        return this.open() + this.chunk({ tool_calls: [opening] });
      }
    }
  }

  private blockDelta(index: number, delta: BlockDelta): string {
    const state = this.blocks.get(index);
    if (delta.type === "text") {
      return delta.text ? this.open() + this.chunk({ content: delta.text }) : "";
    }
    if (state?.kind === "thinking") {
      if (!this.showReasoning) return "";
      if (delta.type === "thinking" && delta.text) {
        const piece = {
          type: "reasoning.text",
          text: delta.text,
          format: REASONING_FORMAT,
          index: state.detailIndex,
        };
        return this.open() + this.chunk({ reasoning: delta.text, reasoning_details: [piece] });
      }
      if (delta.type === "signature" && delta.signature) {
        const piece = {
          type: "reasoning.text",
          text: "",
          signature: delta.signature,
          format: REASONING_FORMAT,
          index: state.detailIndex,
        };
        return this.open() + this.chunk({ reasoning_details: [piece] });
      }
      return "";
    }
    if (state?.kind === "tool_call" && delta.type === "tool_arguments" && delta.json && !state.closed) {
      if (state.custom) {
        state.custom.args += delta.json;
        return "";
      }
      state.sentArguments = true;
      return this.chunk({ tool_calls: [{ index: state.toolIndex, function: { arguments: delta.json } }] });
    }
    // A signature that arrives after a tool call opened cannot join its id any more; upstream
    // decoders put the Gemini signature on the tool call's block_start.
    return "";
  }

  private blockStop(index: number): string {
    const state = this.blocks.get(index);
    return state?.kind === "tool_call" ? this.closeToolCall(state) : "";
  }

  private closeToolCalls(): string {
    let out = "";
    for (const state of this.blocks.values())
      if (state.kind === "tool_call") out += this.closeToolCall(state);
    return out;
  }

  private closeToolCall(state: Extract<BlockState, { kind: "tool_call" }>): string {
    if (state.closed) return "";
    state.closed = true;
    if (state.custom) {
      const { id, name, args } = state.custom;
      const call = { index: state.toolIndex, id, type: "custom", custom: { name, input: customInput(args) } };
      return this.chunk({ tool_calls: [call] });
    }
    if (state.sentArguments) return "";
    return this.chunk({ tool_calls: [{ index: state.toolIndex, function: { arguments: "{}" } }] });
  }

  /** The role-only opening delta, once, before anything else the client assembles. */
  private open(): string {
    if (this.opened) return "";
    this.opened = true;
    return this.chunk({ role: "assistant", content: "", refusal: null });
  }

  private envelope() {
    return {
      id: this.ctx.id,
      object: "chat.completion.chunk",
      created: this.ctx.created,
      model: this.ctx.model,
    };
  }

  private chunk(delta: Delta, finishReason: WireFinishReason | null = null): string {
    return sseData({
      ...this.envelope(),
      choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }],
    });
  }
}
