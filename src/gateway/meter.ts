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
      if (delta.type === "text" || delta.type === "thinking") this.outputChars += delta.text.length;
      else if (delta.type === "tool_arguments") this.outputChars += delta.json.length;
    } else if (event.type === "block_start") this.firstTokenAt ??= performance.now();
    else if (event.type === "usage") {
      this.usage = event.usage;
      this.sawUsage = true;
    } else if (event.type === "finish") this.finishReason = event.reason;
  }

  /**
   * A stream cut before its upstream reported usage (the client left): the gateway's estimate
   * instead, marked so. The prompt as admission estimated it; the output from the text decoded so
   * far, a token per four characters, plus `passedOutputTokens`, what a relay passed on undecoded
   * (Route.undecodedOutputTokens). Without it the generation would settle at nothing, though the
   * upstream read the prompt and wrote tokens.
   */
  estimate(promptTokens: number, passedOutputTokens: number): void {
    if (this.sawUsage) return;
    const completionTokens = tokensOfChars(this.outputChars) + passedOutputTokens;
    this.usage = { ...emptyUsage(), promptTokens, completionTokens, estimated: true };
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
