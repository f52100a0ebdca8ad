// IR stream events → `streamGenerateContent?alt=sse` chunks, each a whole GenerateContentResponse
// (`data: {...}\n\n`) with responseId = the generation id and modelVersion = the catalog model.
//
// - Every text or (shown) thought delta goes out at once as its own chunk.
// - A tool call goes out as one functionCall part when its arguments are complete (block_stop):
//   Gemini sends whole `args` objects, and clients read them that way.
// - Signatures follow output-parts.ts: a shown thought's signature goes out at the thought's end as an
//   empty thought part; a hidden or empty thought's signature rides on the next text part, or goes
//   out alone ({text: "", thoughtSignature}) when something else comes next.
// - finishReason and usageMetadata go out together on the last chunk, written at end(): Gemini
//   clients replay a request whose stream has no finishReason (docs/architecture.md §8).
// - Every chunk carries a candidate with at least one non-empty part: the SDK's chat session drops
//   the whole model turn from its history when any chunk lacks one (the last chunk uses {text: ""},
//   as Gemini's own last chunks do).
// - An IR error event becomes a last chunk holding only the error object; nothing follows it.

import type { GatewayError } from "../../ir/errors.ts";
import type { TextBlock } from "../../ir/request.ts";
import type { FinishReason, TokenLogprob, WebSearchBlock } from "../../ir/response.ts";
import type { StreamEvent } from "../../ir/stream.ts";
import type { Usage } from "../../ir/usage.ts";
import { sseData } from "../shared/sse.ts";
import { jsonString } from "../shared/text.ts";
import type { EncodeContext, StreamEncoder } from "../types.ts";
import { addSources, createTime, modelContent, showsThoughts } from "./encode-response.ts";
import { errorBody } from "./errors.ts";
import { finishReasonToWire } from "./map-finish-reason.ts";
import { logprobsToGemini } from "./map-logprobs.ts";
import { usageToWire } from "./map-usage.ts";
import { functionCallPart } from "./output-parts.ts";
import type { GeminiCandidate, GeminiPart } from "./wire-types.ts";

type OpenBlock =
  | { type: "text" }
  | { type: "thinking"; hasText: boolean; signature?: string }
  | { type: "tool_call"; id: string; name: string; args: string; signature?: string }
  | { type: "redacted_thinking" };

class GeminiStreamEncoder implements StreamEncoder {
  private readonly ctx: EncodeContext;
  private readonly showThoughts: boolean;
  private readonly blocks = new Map<number, OpenBlock>();
  /** A signature waiting to ride on the next text part. */
  private pendingSignature: string | undefined;
  private finishReason: FinishReason | undefined;
  private usage: Usage | undefined;
  /** The text's token logprobs, written on the last chunk (a chunk of their own would need a part). */
  private readonly logprobs: TokenLogprob[] = [];
  private finishMessage: string | undefined;
  /** The text and its citations, whose sources go on the last chunk as groundingMetadata. */
  private readonly cited: TextBlock = { type: "text", text: "" };
  private readonly searches: WebSearchBlock[] = [];
  private closed = false;
  /** The request's arrival, as every chunk states it. */
  private readonly createTime: string;

  /**
   * What ends every chunk, after the candidates (and the last chunk's usage), as JSON text: the
   * same for the whole stream, so written once.
   */
  private readonly chunkTail: string;

  constructor(ctx: EncodeContext) {
    this.ctx = ctx;
    this.showThoughts = showsThoughts(ctx.request);
    this.createTime = createTime(ctx.created);
    const tail = { modelVersion: ctx.model, createTime: this.createTime, responseId: ctx.id };
    this.chunkTail = `,${JSON.stringify(tail).slice(1)}`;
  }

  encode(event: StreamEvent): string {
    if (this.closed) return "";
    switch (event.type) {
      case "block_start":
        return this.start(event.index, event.block);
      case "block_delta":
        return this.delta(event.index, event.delta);
      case "block_stop":
        return this.stop(event.index);
      case "finish":
        this.finishReason = event.reason;
        this.finishMessage = event.message;
        return "";
      case "usage":
        this.usage = event.usage;
        return "";
      case "logprobs":
        this.logprobs.push(...event.logprobs);
        return "";
      case "error":
        return this.fail(event.error);
      default:
        return "";
    }
  }

  end(): string {
    if (this.closed) return "";
    this.closed = true;
    const parts = this.takePending();
    if (parts.length === 0 && this.finishReason === undefined && this.usage === undefined) return "";
    const candidate: GeminiCandidate = {
      content: modelContent(parts.length > 0 ? parts : [{ text: "" }]),
      index: 0,
    };
    if (this.finishReason !== undefined) candidate.finishReason = finishReasonToWire(this.finishReason);
    if (this.ctx.request.logprobs && this.logprobs.length > 0)
      Object.assign(candidate, logprobsToGemini(this.logprobs));
    addSources(candidate, [this.cited, ...this.searches]);
    if (this.finishMessage) candidate.finishMessage = this.finishMessage;
    // The last chunk alone carries the usage, between the candidates and the tail.
    const usage = this.usage ? `,"usageMetadata":${JSON.stringify(usageToWire(this.usage))}` : "";
    return this.write(JSON.stringify(candidate), usage);
  }

  private start(index: number, block: Extract<StreamEvent, { type: "block_start" }>["block"]): string {
    if (block.type === "text") {
      this.blocks.set(index, { type: "text" });
      return "";
    }
    if (block.type === "redacted_thinking") {
      this.blocks.set(index, { type: "redacted_thinking" });
      return "";
    }
    // A waiting signature rides only on a text part that comes right after its thought.
    const waiting = this.emit(this.takePending());
    // A search the upstream ran is told on the last chunk, in groundingMetadata.
    if (block.type === "web_search") {
      this.searches.push(block.search);
      return waiting;
    }
    // A generated image goes out at once, whole, as Gemini sends it.
    if (block.type === "image")
      return waiting + this.emit([{ inlineData: { mimeType: block.mediaType, data: block.data } }]);
    if (block.type === "thinking") this.blocks.set(index, { type: "thinking", hasText: false });
    else
      this.blocks.set(index, {
        type: "tool_call",
        id: block.id,
        name: block.name,
        args: "",
        signature: block.signature,
      });
    return waiting;
  }

  private delta(index: number, delta: Extract<StreamEvent, { type: "block_delta" }>["delta"]): string {
    const block = this.blocks.get(index);
    if (!block) return "";
    if (delta.type === "citation") {
      this.cited.citations = [...(this.cited.citations ?? []), delta.citation];
      return "";
    }
    if (delta.type === "text" && block.type === "text") {
      if (delta.text === "") return "";
      this.cited.text += delta.text;
      if (this.pendingSignature === undefined) return this.textChunk(delta.text);
      const part: GeminiPart = { text: delta.text, thoughtSignature: this.pendingSignature };
      this.pendingSignature = undefined;
      return this.emit([part]);
    }
    if (delta.type === "thinking" && block.type === "thinking") {
      if (delta.text === "") return "";
      block.hasText = true;
      return this.showThoughts ? this.emit([{ text: delta.text, thought: true }]) : "";
    }
    if (delta.type === "signature" && (block.type === "thinking" || block.type === "tool_call")) {
      block.signature = (block.signature ?? "") + delta.signature;
      return "";
    }
    if (delta.type === "tool_arguments" && block.type === "tool_call") block.args += delta.json;
    return "";
  }

  private stop(index: number): string {
    const block = this.blocks.get(index);
    this.blocks.delete(index);
    if (block?.type === "tool_call")
      return this.emit([functionCallPart(block.id, block.name, block.args, block.signature)]);
    if (block?.type === "thinking" && block.signature !== undefined) {
      if (block.hasText && this.showThoughts)
        return this.emit([{ text: "", thought: true, thoughtSignature: block.signature }]);
      this.pendingSignature = block.signature;
    }
    return "";
  }

  private fail(error: GatewayError): string {
    this.closed = true;
    return sseData(errorBody(error));
  }

  private takePending(): GeminiPart[] {
    if (this.pendingSignature === undefined) return [];
    const part: GeminiPart = { text: "", thoughtSignature: this.pendingSignature };
    this.pendingSignature = undefined;
    return [part];
  }

  private emit(parts: GeminiPart[]): string {
    if (parts.length === 0) return "";
    return this.write(JSON.stringify({ content: modelContent(parts), index: 0 }));
  }

  /**
   * A chunk, `{"candidates":[candidate],"usageMetadata":…,"modelVersion":…,"createTime":…,
   * "responseId":…}` as JSON.stringify writes it, from the candidate's JSON and the usage's
   * field (`,"usageMetadata":…`, or none).
   */
  private write(candidateJson: string, usageField = ""): string {
    return `data: {"candidates":[${candidateJson}]${usageField}${this.chunkTail}\n\n`;
  }

  /**
   * A chunk of one plain text part, the answer's commonest chunk: the text is the only JSON written
   * for it (the bytes emit() writes for `[{text}]`, test/protocols/gemini/encode-stream.test.ts).
   */
  private textChunk(text: string): string {
    return `data: {"candidates":[{"content":{"parts":[{"text":${jsonString(text)}}],"role":"model"},"index":0}]${this.chunkTail}\n\n`;
  }
}

export function streamEncoder(ctx: EncodeContext): StreamEncoder {
  return new GeminiStreamEncoder(ctx);
}
