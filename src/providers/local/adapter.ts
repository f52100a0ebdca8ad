// The `local` provider: the demo models answer inside the process, streamed as IR events.

import { setTimeout as sleep } from "node:timers/promises";
import type { EmbeddingRequest, EmbeddingResponse } from "../../ir/embeddings.ts";
import { invalid } from "../../ir/errors.ts";
import type { Request } from "../../ir/request.ts";
import type { Response } from "../../ir/response.ts";
import type { StreamEvent } from "../../ir/stream.ts";
import type { CallReport, ProviderAdapter, Target } from "../types.ts";
import { LOCAL_DIMENSIONS } from "./embed.ts";
import type { LocalReply, LocalReplyOptions } from "./reply.ts";
import { onLocalThread } from "./thread.ts";

export class LocalProvider implements ProviderAdapter {
  /** Pause between streamed pieces, so streams look like streams (0 in tests that want speed). */
  private readonly chunkDelayMs: number;

  constructor(opts: { chunkDelayMs?: number } = {}) {
    this.chunkDelayMs = opts.chunkDelayMs ?? 0;
  }

  async complete(
    request: Request,
    target: Target,
    _signal?: AbortSignal,
    report?: CallReport,
  ): Promise<Response> {
    reportUnsupported(request, report);
    const reply = await replyTo(request, target);
    return {
      id: "",
      model: target.upstreamModel,
      content: reply.blocks,
      finishReason: reply.finishReason,
      stopSequence: reply.stopSequence,
      usage: reply.usage,
    };
  }

  /** One event per batch: the local model produces its words one at a time. */
  async *stream(
    request: Request,
    target: Target,
    signal: AbortSignal,
    report?: CallReport,
  ): AsyncIterable<StreamEvent[]> {
    reportUnsupported(request, report);
    for await (const event of this.events(request, target, signal)) yield [event];
  }

  private async *events(request: Request, target: Target, signal: AbortSignal): AsyncIterable<StreamEvent> {
    const reply = await replyTo(request, target);
    yield { type: "start", model: target.upstreamModel };
    for (const [index, block] of reply.blocks.entries()) {
      switch (block.type) {
        case "text":
          yield { type: "block_start", index, block: { type: "text" } };
          for (const piece of words(block.text)) {
            await this.pause(signal);
            yield { type: "block_delta", index, delta: { type: "text", text: piece } };
          }
          break;
        case "thinking":
          yield { type: "block_start", index, block: { type: "thinking" } };
          for (const piece of words(block.text)) {
            await this.pause(signal);
            yield { type: "block_delta", index, delta: { type: "thinking", text: piece } };
          }
          if (block.signature)
            yield { type: "block_delta", index, delta: { type: "signature", signature: block.signature } };
          break;
        case "tool_call":
          yield { type: "block_start", index, block: { type: "tool_call", id: block.id, name: block.name } };
          for (const piece of thirds(block.arguments)) {
            await this.pause(signal);
            yield { type: "block_delta", index, delta: { type: "tool_arguments", json: piece } };
          }
          break;
        case "redacted_thinking":
          yield { type: "block_start", index, block: { type: "redacted_thinking", data: block.data } };
          break;
      }
      yield { type: "block_stop", index };
    }
    yield { type: "finish", reason: reply.finishReason, stopSequence: reply.stopSequence };
    yield { type: "usage", usage: reply.usage };
  }

  /**
   * The local embedding model's vectors (embed.ts), made on the local models' thread. It reads words,
   * so Gemini's task types and titles change nothing and are named as dropped.
   */
  async embed(
    request: EmbeddingRequest,
    target: Target,
    _signal?: AbortSignal,
    report?: CallReport,
  ): Promise<EmbeddingResponse> {
    for (const input of request.inputs) {
      report?.add("taskType", input.taskType !== undefined);
      report?.add("title", input.title !== undefined);
    }
    const dimensions = request.dimensions ?? target.model.dimensions ?? LOCAL_DIMENSIONS;
    // The model's own length bounds a catalog record that names none (the gateway checks the rest).
    if (dimensions > LOCAL_DIMENSIONS)
      throw invalid(request.fields.dimensions, `must be at most ${LOCAL_DIMENSIONS} for the local model`);
    return (await onLocalThread({ op: "embed", inputs: request.inputs, dimensions })) as EmbeddingResponse;
  }

  private async pause(signal: AbortSignal): Promise<void> {
    if (this.chunkDelayMs > 0) await sleep(this.chunkDelayMs, undefined, { signal });
    signal.throwIfAborted();
  }
}

/** The answer, made on the local models' own thread (reply.ts, worker.ts): never on the event loop. */
function replyTo(request: Request, target: Target): Promise<LocalReply> {
  const options: LocalReplyOptions = {
    reasoning: target.model.reasoning,
    maxOutputTokens: target.model.maxOutputTokens,
    contextLength: target.model.contextLength,
  };
  return onLocalThread({ op: "reply", request, options }) as Promise<LocalReply>;
}

/** Words with their trailing space: the pieces a streamed text arrives in. */
function words(text: string): string[] {
  return text.match(/\S+\s*|\s+/g) ?? [];
}

/** Tool arguments in three pieces, as real upstreams split them mid-token. */
function thirds(json: string): string[] {
  const step = Math.max(1, Math.ceil(json.length / 3));
  const out: string[] = [];
  for (let i = 0; i < json.length; i += step) out.push(json.slice(i, i + step));
  return out;
}

/**
 * What the demo models cannot do, named in x-switchyard-ignored like an upstream encoder's drops:
 * they have no token logprobs and cannot search the web (docs/translation.md §13b, §13c).
 */
function reportUnsupported(request: Request, report: CallReport | undefined): void {
  report?.add("logprobs", request.logprobs !== undefined);
  report?.add("web_search", request.webSearch !== undefined);
}
