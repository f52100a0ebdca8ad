// Upstream → IR: a chat-completions SSE stream, decoded chunk by chunk as it arrives (nothing waits
// for the end). What real upstreams send, and what this handles:
// - reasoning as `delta.reasoning_details` pieces (OpenRouter: text pieces, then a piece carrying the
//   signature), `delta.reasoning`, or `delta.reasoning_content` (DeepSeek-style vendors);
// - tool calls keyed by `index`: the first piece has id and name, later pieces only argument text,
//   several calls possibly interleaved; some vendors repeat `type` or send empty pieces; a custom
//   tool's call (`type: "custom"`, `custom: {name, input}`) sends its free text in `custom.input`;
// - a Gemini function call's thought signature, as `extra_content.google.thought_signature` on the
//   call (Google) or as an encrypted reasoning item naming the call's `id`, just before it (OpenRouter);
// - usage on a chunk of its own (`choices: []`, or beside an empty delta) or on the finish chunk;
// - a chunk carrying `error` (mid-stream failure), and `[DONE]`.
// Text and thinking blocks close when another block starts; tool-call blocks stay open until the
// finish because their argument pieces may interleave. An encrypted item naming an id waits for the
// next event: it becomes that call's signature, or a redacted_thinking block if no call claims it.

import { GatewayError, upstreamStreamCut } from "../../ir/errors.ts";
import type { GeneratedImageBlock } from "../../ir/response.ts";
import type { BlockStart, StreamEvent } from "../../ir/stream.ts";
import { newToolCallId } from "../../ir/tool-call-id.ts";
import { citationsFromAnnotations } from "../shared/openai-annotations.ts";
import { fromOpenAILogprobs } from "../shared/openai-logprobs.ts";
import { frameJson } from "../shared/sse.ts";
import { StringSlots } from "../shared/string-slots.ts";
import { isObject } from "../shared/validate.ts";
import type { SseEvent, StreamDecoder } from "../types.ts";
import { argumentsText, customCall } from "./decode-response.ts";
import { decodeErrorObject } from "./errors.ts";
import { finishReasonFromWire, matchedStop } from "./map-finish-reason.ts";
import { usageFromWire } from "./map-usage.ts";
import { imagesFrom } from "./output-images.ts";
import { geminiThoughtSignature } from "./thought-signature.ts";

type Json = Record<string, unknown>;

export function streamDecoder(): StreamDecoder {
  return new ChatStreamDecoder();
}

class ChatStreamDecoder implements StreamDecoder {
  private started = false;
  private finished = false;
  private failed = false;
  private nextBlock = 0;
  /** The message's text so far (annotations give offsets into it). */
  private messageText = "";
  /** Generated images seen, billed as image outputs. */
  private images = 0;
  /** The open text or thinking block (only one at a time). */
  private flowing: { kind: "text" | "thinking"; block: number; segment?: unknown } | undefined;
  /** Upstream tool-call index → IR block index. */
  private readonly toolBlocks = new Map<number, number>();
  /**
   * Blocks of custom tools' calls: their input arrives as raw text pieces, which go on as pieces of
   * the JSON string in `{"input": …}` (opened with the call, closed at the finish).
   */
  private readonly customBlocks = new Set<number>();
  /** Open tool calls by id, for a signature that names its call after the call started. */
  private readonly callBlocks = new Map<string, number>();
  /** Encrypted items naming an id, not yet claimed by a tool call. */
  private pendingEncrypted: Array<{ id: string; data: string }> = [];
  private out: StreamEvent[] = [];
  /**
   * The last chunk parsed that carried only a piece of text, as a template: most of a stream is
   * that chunk again with another piece, read without JSON.parse (src/protocols/shared/string-slots.ts).
   */
  private textChunk: StringSlots | undefined;
  /**
   * Before any text chunk has been parsed, the last quiet chunk (the role chunk), from which the
   * text chunks' template is learned once a chunk that could be one arrives (textTemplateOfRoleChunk).
   * Not at once: a relay's tap never decodes text chunks, only the role, finish and usage chunks.
   */
  private roleChunk: RoleChunk | undefined;

  decode(event: SseEvent): StreamEvent[] {
    this.out = [];
    if (this.failed) return [];
    const piece = this.template(event.data)?.read(event.data);
    // What readChoice does with such a chunk (`started` is true: the template was a parsed chunk).
    if (piece !== undefined) {
      if (!this.finished && piece) this.text(piece);
      return this.out;
    }
    const chunk = frameJson(event.data);
    if (chunk instanceof GatewayError) return this.fail(chunk);
    if (!isObject(chunk)) return [];
    if (chunk.error !== undefined && chunk.error !== null) return this.fail(decodeErrorObject(chunk.error));
    if (!this.started) {
      this.started = true;
      const start: StreamEvent = { type: "start" };
      if (typeof chunk.id === "string") start.id = chunk.id;
      if (typeof chunk.model === "string") start.model = chunk.model;
      this.out.push(start);
    }
    const choice = Array.isArray(chunk.choices) ? chunk.choices.find(isObject) : undefined;
    if (choice && !this.finished) this.readChoice(choice);
    if (isObject(chunk.usage)) {
      const usage = usageFromWire(chunk.usage);
      if (this.images > 0) usage.imageOutputs = this.images;
      this.out.push({ type: "usage", usage });
    }
    this.textChunk = textTemplate(event.data, chunk, choice) ?? this.textChunk;
    if (!this.textChunk && choice && quiet(chunk, choice) && isObject(choice.delta))
      this.roleChunk = { data: event.data, delta: choice.delta, slots: slotValues(chunk, TEXT_STAND_IN) };
    return this.out;
  }

  /** The text chunks' template, learned now from the role chunk if this chunk may be one. */
  private template(data: string): StringSlots | undefined {
    if (this.textChunk || !this.roleChunk || !data.includes(TEXT_DELTA)) return this.textChunk;
    this.textChunk = textTemplateOfRoleChunk(this.roleChunk);
    this.roleChunk = undefined;
    return this.textChunk;
  }

  end(): StreamEvent[] {
    if (this.failed || this.finished) return [];
    this.failed = true;
    return [{ type: "error", error: upstreamStreamCut("a finish_reason") }];
  }

  private readChoice(choice: Json): void {
    const delta = isObject(choice.delta) ? choice.delta : {};
    this.readReasoning(delta);
    if (typeof delta.content === "string" && delta.content) this.text(delta.content);
    // A refusal is what the model said instead of an answer; it reaches the client as text.
    if (typeof delta.refusal === "string" && delta.refusal) this.text(delta.refusal);
    if (Array.isArray(delta.tool_calls)) {
      delta.tool_calls.forEach((call, i) => {
        this.toolCall(call, i);
      });
    }
    for (const image of imagesFrom(delta.images)) this.image(image);
    this.annotations(delta.annotations);
    const logprobs = isObject(choice.logprobs) ? fromOpenAILogprobs(choice.logprobs.content) : [];
    if (logprobs.length > 0) this.out.push({ type: "logprobs", logprobs });
    if (typeof choice.finish_reason === "string" && choice.finish_reason) {
      this.closeAll();
      const stopped = matchedStop(choice);
      const reason = finishReasonFromWire(choice.finish_reason, stopped);
      const finish: StreamEvent = { type: "finish", reason };
      if (stopped !== undefined && reason === "stop_sequence") finish.stopSequence = stopped;
      this.out.push(finish);
      this.finished = true;
    }
  }

  private readReasoning(delta: Json): void {
    const details = Array.isArray(delta.reasoning_details) ? delta.reasoning_details.filter(isObject) : [];
    if (details.length > 0) {
      for (const item of details) this.reasoningDetail(item);
      return;
    }
    // Without details, the plain text (both names are sent by different vendors, never both).
    const text = [delta.reasoning, delta.reasoning_content].find((v) => typeof v === "string" && v);
    if (typeof text === "string") this.thinking(text, undefined);
  }

  private reasoningDetail(item: Json): void {
    if (item.type === "reasoning.encrypted") {
      if (typeof item.data === "string" && item.data) this.encrypted(item.data, item.id);
      return;
    }
    if (item.type !== "reasoning.text" && item.type !== "reasoning.summary") return;
    const text =
      typeof item.text === "string" ? item.text : typeof item.summary === "string" ? item.summary : "";
    if (text) this.thinking(text, item.index);
    if (typeof item.signature === "string" && item.signature) {
      // A signature arriving alone still belongs to a thinking block (docs/architecture.md §10: keep empty
      // signed blocks).
      this.flushPending();
      const block = this.thinkingBlock(item.index);
      this.out.push({
        type: "block_delta",
        index: block,
        delta: { type: "signature", signature: item.signature },
      });
    }
  }

  private encrypted(data: string, id: unknown): void {
    if (typeof id !== "string" || !id) {
      this.redacted(data);
      return;
    }
    const call = this.callBlocks.get(id);
    if (call === undefined) this.pendingEncrypted.push({ id, data });
    else this.out.push({ type: "block_delta", index: call, delta: { type: "signature", signature: data } });
  }

  private redacted(data: string): void {
    this.closeFlowing();
    const block = this.nextBlock++;
    this.out.push({ type: "block_start", index: block, block: { type: "redacted_thinking", data } });
    this.out.push({ type: "block_stop", index: block });
  }

  /** Encrypted items no call claimed are reasoning of their own, in the order they came. */
  private flushPending(): void {
    const pending = this.pendingEncrypted;
    this.pendingEncrypted = [];
    for (const item of pending) this.redacted(item.data);
  }

  private thinking(text: string, segment: unknown): void {
    this.flushPending();
    const block = this.thinkingBlock(segment);
    this.out.push({ type: "block_delta", index: block, delta: { type: "thinking", text } });
  }

  /** The open thinking block for this reasoning segment, opened if needed. */
  private thinkingBlock(segment: unknown): number {
    const open = this.flowing;
    const sameSegment = segment === undefined || open?.segment === undefined || open.segment === segment;
    if (open?.kind === "thinking" && sameSegment) {
      if (segment !== undefined) open.segment = segment;
      return open.block;
    }
    return this.openFlowing("thinking", { type: "thinking" }, segment);
  }

  /** Annotations locate passages of the message's text so far: citations of the flowing text block. */
  private annotations(value: unknown): void {
    const flowing = this.flowing;
    if (flowing?.kind !== "text") return;
    for (const citation of citationsFromAnnotations(this.messageText, value))
      this.out.push({ type: "block_delta", index: flowing.block, delta: { type: "citation", citation } });
  }

  private image(image: GeneratedImageBlock): void {
    this.flushPending();
    this.closeFlowing();
    const index = this.nextBlock++;
    const { mediaType, data } = image.source;
    this.out.push({ type: "block_start", index, block: { type: "image", mediaType, data } });
    this.out.push({ type: "block_stop", index });
    this.images++;
  }

  private text(text: string): void {
    this.flushPending();
    this.messageText += text;
    const block =
      this.flowing?.kind === "text" ? this.flowing.block : this.openFlowing("text", { type: "text" });
    this.out.push({ type: "block_delta", index: block, delta: { type: "text", text } });
  }

  private openFlowing(kind: "text" | "thinking", start: BlockStart, segment?: unknown): number {
    this.closeFlowing();
    const block = this.nextBlock++;
    this.out.push({ type: "block_start", index: block, block: start });
    this.flowing = { kind, block, segment };
    return block;
  }

  private closeFlowing(): void {
    if (!this.flowing) return;
    this.out.push({ type: "block_stop", index: this.flowing.block });
    this.flowing = undefined;
  }

  private toolCall(value: unknown, position: number): void {
    if (!isObject(value)) return;
    const key = typeof value.index === "number" ? value.index : position;
    const fn = isObject(value.function) ? value.function : {};
    const custom = customCall(value);
    let block = this.toolBlocks.get(key);
    if (block === undefined) {
      const id = typeof value.id === "string" && value.id ? value.id : newToolCallId();
      const signature = geminiThoughtSignature(value) ?? this.claimPending(id);
      this.flushPending();
      this.closeFlowing();
      block = this.nextBlock++;
      this.toolBlocks.set(key, block);
      this.callBlocks.set(id, block);
      const name = custom ? custom.name : typeof fn.name === "string" ? fn.name : "";
      const start: BlockStart = { type: "tool_call", id, name };
      if (signature) start.signature = signature;
      this.out.push({ type: "block_start", index: block, block: start });
      if (custom) {
        this.customBlocks.add(block);
        this.out.push({
          type: "block_delta",
          index: block,
          delta: { type: "tool_arguments", json: '{"input":"' },
        });
      }
    }
    if (this.customBlocks.has(block)) {
      const input = custom?.input;
      if (input) {
        const json = JSON.stringify(input).slice(1, -1);
        this.out.push({ type: "block_delta", index: block, delta: { type: "tool_arguments", json } });
      }
      return;
    }
    const json = argumentsText(fn.arguments);
    if (json) this.out.push({ type: "block_delta", index: block, delta: { type: "tool_arguments", json } });
  }

  /** The pending encrypted item that names this call, taken out of the queue. */
  private claimPending(id: string): string | undefined {
    const at = this.pendingEncrypted.findIndex((p) => p.id === id);
    if (at < 0) return undefined;
    return this.pendingEncrypted.splice(at, 1)[0].data;
  }

  private closeAll(): void {
    this.flushPending();
    this.closeFlowing();
    for (const block of this.toolBlocks.values()) {
      if (this.customBlocks.has(block))
        this.out.push({ type: "block_delta", index: block, delta: { type: "tool_arguments", json: '"}' } });
      this.out.push({ type: "block_stop", index: block });
    }
    this.toolBlocks.clear();
    this.customBlocks.clear();
    this.callBlocks.clear();
  }

  private fail(error: GatewayError): StreamEvent[] {
    this.failed = true;
    this.out.push({ type: "error", error });
    return this.out;
  }
}

/**
 * A chunk whose only effect is its `delta.content` piece, as a template for the next ones: no
 * error, usage, finish or log probabilities, and no other delta field but `role` holding anything
 * (null, or an empty list: nothing for readChoice to read).
 */
function textTemplate(data: string, chunk: Json, choice: Json | undefined): StringSlots | undefined {
  if (!choice || !quiet(chunk, choice)) return undefined;
  const delta = choice.delta;
  if (!isObject(delta) || typeof delta.content !== "string" || delta.content === "") return undefined;
  for (const key in delta) {
    const value = delta[key];
    if (
      key !== "content" &&
      key !== "role" &&
      !absent(value) &&
      !(Array.isArray(value) && value.length === 0)
    )
      return undefined;
  }
  return StringSlots.learn(data, slotValues(chunk, delta.content));
}

/**
 * How a text chunk's delta begins, as OpenAI writes it: a template from the role chunk fits no other, and the
 * relay learns its content shape from the chunks that hold it (relay.ts).
 */
export const TEXT_DELTA = '"delta":{"content":"';

/** A quiet chunk's text (the role chunk), its delta, and the slot values a text chunk like it would have. */
interface RoleChunk {
  data: string;
  delta: Json;
  slots: string[];
}

/** What stands in for the text in a role chunk's template (any text learn() finds once will do). */
const TEXT_STAND_IN = "piece";

/**
 * Before any text chunk has been parsed, the text chunks that follow a quiet chunk (the role chunk that
 * opens a stream): that chunk with `{"content": text}` as its whole delta, which is how
 * OpenAI writes them. Learning it costs a stringify of the delta and a copy of the text instead of
 * the parse of the first text chunk; a text chunk written otherwise is parsed, as without it.
 */
function textTemplateOfRoleChunk({ data, delta, slots }: RoleChunk): StringSlots | undefined {
  // No backslash (learn's rule), so the delta's text is its JSON.stringify, unless keys repeat.
  const written = `"delta":${JSON.stringify(delta)}`;
  const at = data.indexOf(written);
  if (at < 0 || data.indexOf(written, at + 1) >= 0) return undefined;
  const textChunk = `${data.slice(0, at)}"delta":{"content":"${TEXT_STAND_IN}"}${data.slice(at + written.length)}`;
  return StringSlots.learn(textChunk, slots);
}

/** No error, usage, finish or log probabilities: a chunk that only its delta can make count. */
function quiet(chunk: Json, choice: Json): boolean {
  return (
    absent(chunk.error) && !isObject(chunk.usage) && absent(choice.logprobs) && absent(choice.finish_reason)
  );
}

/** A template's slots: the text, and OpenAI's `obfuscation` padding of random length no one reads. */
function slotValues(chunk: Json, text: string): string[] {
  const obfuscation = chunk.obfuscation;
  return typeof obfuscation === "string" ? [text, obfuscation] : [text];
}

function absent(value: unknown): boolean {
  return value === undefined || value === null;
}
