// Watches a generation's events for what the ledger records: timings, usage, finish reason.

import type { FinishReason } from "../ir/response.ts";
import type { StreamEvent } from "../ir/stream.ts";
import { emptyUsage, type Usage } from "../ir/usage.ts";
import type { Metrics } from "./metrics.ts";
import { tokensOfChars } from "./prompt-tokens.ts";

export class Meter {
  private readonly startedAt: number;
  private firstTokenAt?: number;
  private endedAt?: number;
  usage: Usage = emptyUsage();
  sawUsage = false;
  finishReason?: FinishReason;
  /** Characters of the output decoded so far (text, thinking, tool arguments): for `estimate`. */
  private outputChars = 0;
  /** Of those, the thinking's (reasoning tokens are a part of the output's). */
  private thinkingChars = 0;
  /** Time spent waiting on upstreams (connect to first answer), excluded from the overhead. */
  upstreamMs = 0;

  private readonly metrics: Metrics | undefined;

  /** `metrics`: where recordOverhead observes the overhead (none in a test of the meter alone). */
  constructor(startedAt = performance.now(), metrics?: Metrics) {
    this.startedAt = startedAt;
    this.metrics = metrics;
  }

  observe(event: StreamEvent): void {
    if (event.type === "block_delta") {
      this.firstTokenAt ??= performance.now();
      const delta = event.delta;
      if (delta.type === "text") this.outputChars += delta.text.length;
      else if (delta.type === "thinking") {
        this.outputChars += delta.text.length;
        this.thinkingChars += delta.text.length;
      } else if (delta.type === "tool_arguments") this.outputChars += delta.json.length;
    } else if (event.type === "block_start") this.firstTokenAt ??= performance.now();
    else if (event.type === "usage") {
      this.usage = event.usage;
      this.sawUsage = true;
    } else if (event.type === "finish") this.finishReason = event.reason;
  }

  /**
   * The client left before the upstream's final usage (docs/architecture.md §5, "cancelled"): the
   * counts are the larger of what the upstream reported so far and the gateway's own estimate, and
   * marked estimated wherever the estimate won. The estimate: the prompt as admission estimated it
   * (`promptTokens`); the output from what was decoded so far, a token per four characters of text,
   * thinking and tool arguments, plus `passedOutputTokens`, what a relay passed on undecoded
   * (Route.undecodedOutputTokens). A prompt count the upstream reported stands as it is: an upstream
   * counts the prompt whole before it writes (messages' `message_start`, Gemini's every chunk), so
   * that count is its final one; only its output counts are running ones. Usage reported with the
   * finish is the upstream's final word and is left alone. Without this a cancelled generation
   * would settle at nothing, or at the one output token `message_start` reports.
   */
  estimate(promptTokens: number, passedOutputTokens: number): void {
    if (this.sawUsage && this.finishReason !== undefined) return;
    const reported = this.usage;
    const usage: Usage = { ...reported };
    if (reported.promptTokens === 0) usage.promptTokens = promptTokens;
    usage.completionTokens = Math.max(
      reported.completionTokens,
      tokensOfChars(this.outputChars) + passedOutputTokens,
    );
    usage.reasoningTokens = Math.max(reported.reasoningTokens, tokensOfChars(this.thinkingChars));
    if (
      usage.promptTokens !== reported.promptTokens ||
      usage.completionTokens !== reported.completionTokens ||
      usage.reasoningTokens !== reported.reasoningTokens
    )
      usage.estimated = true;
    this.usage = usage;
    this.sawUsage = true;
  }

  /** Content a relay passed on undecoded arrived (route.ts Piece.content). */
  contentArrived(): void {
    this.firstTokenAt ??= performance.now();
  }

  /** A whole (non-streamed) answer arrived at once. */
  observeWhole(usage: Usage, finishReason: FinishReason): void {
    this.firstTokenAt ??= performance.now();
    this.usage = usage;
    this.sawUsage = true;
    this.finishReason = finishReason;
  }

  /**
   * The gateway's own time so far (arrival to now, upstream wait excluded), into the histogram;
   * returned formatted for the `x-switchyard-overhead-ms` header.
   */
  recordOverhead(api: string, mode: "whole" | "stream"): string {
    const ms = Math.max(0, performance.now() - this.startedAt - this.upstreamMs);
    this.metrics?.observeOverhead(api, mode, ms / 1000);
    return ms.toFixed(3);
  }

  end(): void {
    this.endedAt ??= performance.now();
  }

  /** Time to first token, ms. */
  get latencyMs(): number | undefined {
    return this.firstTokenAt === undefined ? undefined : Math.round(this.firstTokenAt - this.startedAt);
  }

  /** First token to completion, ms. */
  get generationTimeMs(): number | undefined {
    if (this.firstTokenAt === undefined) return undefined;
    return Math.round((this.endedAt ?? performance.now()) - this.firstTokenAt);
  }
}
