// Upstream Gemini responses → IR stream events, one GenerateContentResponse (a whole response or a
// stream chunk) at a time. Shared by decode-response.ts and decode-stream.ts so both read parts alike.
//
// - Only `thought: true` marks reasoning (docs/architecture.md §10: answer text must never land in
// reasoning).
//   Consecutive thought parts continue one thinking block until a part carrying a signature ends it.
// - Text parts continue an open text block. A `thoughtSignature` on a non-thought part becomes an
//   empty-text thinking block holding the signature, placed before that part's text (the encoders put
//   it back on the same text part; an empty `{text: "", thoughtSignature}` keeps just the signature).
// - An inlineData part of an image/* type (a generated image) → a whole image block.
// - A functionCall part → a whole tool_call block at once (start, one arguments delta, stop), its id
//   made when Gemini sent none and its `thoughtSignature` kept as the block signature. A call streamed
//   with `willContinue` / `partialArgs` is assembled and emitted when its closing part arrives.
// - usageMetadata (each chunk carries the running totals) is emitted after each chunk's events
//   when it changed, and with the finish; generated images and search queries are added to it
//   (output-units.ts). STOP after functionCall parts finishes as `tool_calls`.
// - groundingMetadata (supports × chunks) and citationMetadata become citations of the open text
//   block (map-citations.ts); finishMessage and a blocked prompt's blockReasonMessage ride on the finish.
// - A prompt blocked before generation (promptFeedback.blockReason, no candidates) finishes as
//   `content_filter`.

import type { StreamEvent } from "../../ir/stream.ts";
import { newToolCallId } from "../../ir/tool-call-id.ts";
import type { Usage } from "../../ir/usage.ts";
import { isObject, type Json } from "../shared/validate.ts";
import { citationsOf, searchesOf } from "./map-citations.ts";
import { finishReasonFromWire } from "./map-finish-reason.ts";
import { logprobsFromGemini } from "./map-logprobs.ts";
import { usageFromWire } from "./map-usage.ts";
import { OutputUnits } from "./output-units.ts";
import { PartialArgs } from "./partial-args.ts";

type Open = { type: "text"; index: number } | { type: "thinking"; index: number; signed: boolean };

export class CandidateReader {
  private nextIndex = 0;
  private open: Open | undefined;
  private streamedCall: { index: number; args: PartialArgs } | undefined;
  private started = false;
  private sawToolCall = false;
  private usage: Usage | undefined;
  private readonly units = new OutputUnits();
  /** The answer's text so far: Gemini locates cited passages by UTF-8 byte offsets into it. */
  private answerText = "";
  private readonly cited = new Set<string>();
  private readonly searched = new Set<string>();
  private sentUsage: string | undefined;
  finished = false;

  read(chunk: Json): StreamEvent[] {
    const events: StreamEvent[] = [];
    if (!this.started) {
      this.started = true;
      const start: StreamEvent = { type: "start" };
      if (typeof chunk.responseId === "string") start.id = chunk.responseId;
      if (typeof chunk.modelVersion === "string") start.model = chunk.modelVersion;
      events.push(start);
    }
    if (isObject(chunk.usageMetadata)) this.usage = usageFromWire(chunk.usageMetadata);
    this.units.read(chunk);
    const candidate = Array.isArray(chunk.candidates) ? chunk.candidates[0] : undefined;
    if (isObject(candidate)) {
      const content = candidate.content;
      const parts = isObject(content) && Array.isArray(content.parts) ? content.parts : [];
      for (const part of parts) if (isObject(part)) this.readPart(part, events);
      const logprobs = logprobsFromGemini(candidate);
      if (logprobs.length > 0) events.push({ type: "logprobs", logprobs });
      this.readCitations(candidate, events);
      const reason = candidate.finishReason;
      if (typeof reason === "string" && reason !== "" && !this.finished) {
        const message = typeof candidate.finishMessage === "string" ? candidate.finishMessage : undefined;
        this.finish(events, finishReasonFromWire(reason, this.sawToolCall), message);
      }
    } else if (!this.finished && isBlockedPrompt(chunk.promptFeedback)) {
      const feedback = chunk.promptFeedback as Json;
      const message =
        typeof feedback.blockReasonMessage === "string" ? feedback.blockReasonMessage : undefined;
      this.finish(events, "content_filter", message);
    }
    // The running totals as they come, not only with the finish: a stream its client leaves is
    // priced on them (src/gateway/meter.ts `estimate`).
    this.pushUsage(events);
    return events;
  }

  /** Closes what is open and, when no finishReason came, finishes as `stop` (a whole response). */
  complete(): StreamEvent[] {
    const events: StreamEvent[] = [];
    if (!this.finished) this.finish(events, this.sawToolCall ? "tool_calls" : "stop");
    this.pushUsage(events);
    return events;
  }

  /** Closes open blocks without finishing (a stream cut short). */
  closeAll(): StreamEvent[] {
    const events: StreamEvent[] = [];
    this.closeOpen(events);
    this.closeStreamedCall(events);
    return events;
  }

  private finish(
    events: StreamEvent[],
    reason: ReturnType<typeof finishReasonFromWire>,
    message?: string,
  ): void {
    this.closeOpen(events);
    this.closeStreamedCall(events);
    this.pushUsage(events);
    events.push(message ? { type: "finish", reason, message } : { type: "finish", reason });
    this.finished = true;
  }

  private pushUsage(events: StreamEvent[]): void {
    if (!this.usage) return;
    const usage = this.units.apply(this.usage);
    const key = JSON.stringify(usage);
    if (key === this.sentUsage) return;
    this.sentUsage = key;
    events.push({ type: "usage", usage });
  }

  private readPart(part: Json, events: StreamEvent[]): void {
    const signature = typeof part.thoughtSignature === "string" ? part.thoughtSignature : undefined;
    if (isObject(part.functionCall)) {
      this.readFunctionCall(part.functionCall, signature, events);
    } else if (part.thought === true) {
      this.readThought(typeof part.text === "string" ? part.text : "", signature, events);
    } else {
      // Text, an image, or a part the IR has no output block for (code execution): any may carry a
      // signature that must come back.
      if (signature !== undefined) this.pushSignatureCarrier(signature, events);
      if (typeof part.text === "string" && part.text !== "") this.readText(part.text, events);
      else if (isObject(part.inlineData)) this.readImage(part.inlineData, events);
    }
  }

  private readThought(text: string, signature: string | undefined, events: StreamEvent[]): void {
    if (text === "" && signature === undefined) return; // an empty thought is no block at all
    let open = this.open;
    if (open?.type !== "thinking" || open.signed) {
      this.closeOpen(events);
      this.closeStreamedCall(events);
      open = { type: "thinking", index: this.nextIndex++, signed: false };
      this.open = open;
      events.push({ type: "block_start", index: open.index, block: { type: "thinking" } });
    }
    if (text !== "")
      events.push({ type: "block_delta", index: open.index, delta: { type: "thinking", text } });
    if (signature !== undefined) {
      events.push({ type: "block_delta", index: open.index, delta: { type: "signature", signature } });
      open.signed = true;
    }
  }

  private readText(text: string, events: StreamEvent[]): void {
    let open = this.open;
    if (open?.type !== "text") {
      this.closeOpen(events);
      this.closeStreamedCall(events);
      open = { type: "text", index: this.nextIndex++ };
      this.open = open;
      events.push({ type: "block_start", index: open.index, block: { type: "text" } });
    }
    events.push({ type: "block_delta", index: open.index, delta: { type: "text", text } });
    this.answerText += text;
  }

  /**
   * Grounding supports and recitation citations → citations of the open text block (they come with
   * or after the text they cite; once that block has closed they have nowhere to go).
   */
  private readCitations(candidate: Json, events: StreamEvent[]): void {
    const open = this.open;
    if (open?.type === "text")
      for (const citation of citationsOf(candidate, this.answerText)) {
        const key = JSON.stringify(citation);
        if (this.cited.has(key)) continue; // stream chunks may repeat the metadata
        this.cited.add(key);
        events.push({ type: "block_delta", index: open.index, delta: { type: "citation", citation } });
      }
    // Then the searches behind them, each once, as whole web_search blocks after that text.
    for (const search of searchesOf(candidate)) {
      if (this.searched.has(search.query)) continue;
      this.searched.add(search.query);
      this.closeOpen(events);
      this.closeStreamedCall(events);
      const index = this.nextIndex++;
      events.push({ type: "block_start", index, block: { type: "web_search", search } });
      events.push({ type: "block_stop", index });
    }
  }

  /** A generated image: a whole block at once. Other inline output (audio) has no IR block yet. */
  private readImage(blob: Json, events: StreamEvent[]): void {
    const { mimeType, data } = blob;
    if (typeof mimeType !== "string" || !mimeType.startsWith("image/") || typeof data !== "string") return;
    this.closeOpen(events);
    this.closeStreamedCall(events);
    const index = this.nextIndex++;
    events.push({ type: "block_start", index, block: { type: "image", mediaType: mimeType, data } });
    events.push({ type: "block_stop", index });
  }

  private pushSignatureCarrier(signature: string, events: StreamEvent[]): void {
    this.closeOpen(events);
    this.closeStreamedCall(events);
    const index = this.nextIndex++;
    events.push({ type: "block_start", index, block: { type: "thinking" } });
    events.push({ type: "block_delta", index, delta: { type: "signature", signature } });
    events.push({ type: "block_stop", index });
  }

  private readFunctionCall(call: Json, signature: string | undefined, events: StreamEvent[]): void {
    this.closeOpen(events);
    const streamed = this.streamedCall;
    // Continuations carry no name; a named part starts the next call.
    if (streamed && typeof call.name === "string" && call.name !== "") this.closeStreamedCall(events);
    else if (streamed) {
      // A continuation (or the empty closing part) of a call whose arguments are streaming.
      if (isObject(call.args)) Object.assign(streamed.args.args, call.args);
      streamed.args.add(call.partialArgs);
      if (signature !== undefined)
        events.push({ type: "block_delta", index: streamed.index, delta: { type: "signature", signature } });
      if (call.willContinue !== true) this.closeStreamedCall(events);
      return;
    }
    if (typeof call.name !== "string" || call.name === "") return;
    this.sawToolCall = true;
    const index = this.nextIndex++;
    const id = typeof call.id === "string" && call.id !== "" ? call.id : newToolCallId();
    const block: Extract<StreamEvent, { type: "block_start" }>["block"] = {
      type: "tool_call",
      id,
      name: call.name,
    };
    if (signature !== undefined) block.signature = signature;
    events.push({ type: "block_start", index, block });
    const initial = isObject(call.args) ? call.args : {};
    if (call.willContinue === true) {
      const args = new PartialArgs(initial);
      args.add(call.partialArgs);
      this.streamedCall = { index, args };
      return;
    }
    events.push({
      type: "block_delta",
      index,
      delta: { type: "tool_arguments", json: JSON.stringify(initial) },
    });
    events.push({ type: "block_stop", index });
  }

  private closeStreamedCall(events: StreamEvent[]): void {
    const streamed = this.streamedCall;
    if (!streamed) return;
    this.streamedCall = undefined;
    const json = JSON.stringify(streamed.args.args);
    events.push({ type: "block_delta", index: streamed.index, delta: { type: "tool_arguments", json } });
    events.push({ type: "block_stop", index: streamed.index });
  }

  private closeOpen(events: StreamEvent[]): void {
    if (!this.open) return;
    events.push({ type: "block_stop", index: this.open.index });
    this.open = undefined;
  }
}

function isBlockedPrompt(feedback: unknown): boolean {
  if (!isObject(feedback)) return false;
  const reason = feedback.blockReason;
  return typeof reason === "string" && reason !== "" && !reason.endsWith("_UNSPECIFIED");
}
