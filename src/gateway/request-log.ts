// One structured line per inference request, at level `info` (`logging.level`): what an operator
// greps for a slow or failed request. It names the request (generation id, route, model, provider,
// account and key id), its outcome (HTTP status, generation status, error kind), its timings, tokens
// and, when settled with its finish, its exact cost. Never the prompt, the answer, an error's text
// (an upstream's may quote the prompt) or a key: the key id is the non-secret `key_…` of listings.
// docs/operations.md#request-logs.

import type { Caller } from "../auth/authenticator.ts";
import type { GatewayError } from "../ir/errors.ts";
import type { ProtocolName } from "../protocols/types.ts";
import type { Meter } from "./meter.ts";
import type { GenerationRecorder } from "./recorder.ts";

export interface RequestLogger {
  info(obj: unknown, msg?: string): void;
  isLevelEnabled?(level: string): boolean;
}

/** What the pipeline learns of a request as it goes; the line is written from it at the end. */
export interface RequestFacts {
  id: string;
  face: ProtocolName;
  /** performance.now() at arrival. */
  arrivedAt: number;
  /** The HTTP status answered (a stream that fails after its start was answered 200). */
  status: number;
  /** The error answered, when one was. */
  error?: GatewayError;
  stream?: boolean;
  /** An embedding request: its route is `embeddings`, whichever face it came by. */
  embedding?: boolean;
  model?: string;
  caller?: Caller;
  meter?: Meter;
  generation?: GenerationRecorder;
}

const ROUTE: Record<ProtocolName, string> = {
  "openai-chat": "chat.completions",
  "openai-responses": "responses",
  anthropic: "messages",
  gemini: "generateContent",
};

export class RequestLog {
  private readonly log: RequestLogger;
  /** Whether lines are written at all: when not, a request pays one branch for its line. */
  readonly enabled: boolean;

  constructor(log: RequestLogger) {
    this.log = log;
    this.enabled = log.isLevelEnabled?.("info") ?? true;
  }

  /** Writes the request's line; a generation settled with its finish adds its cost once rated. */
  done(facts: RequestFacts): void {
    if (!this.enabled) return;
    const line = lineOf(facts, performance.now());
    const generation = facts.generation;
    if (!generation) {
      this.log.info(line, "request");
      return;
    }
    generation.cost.then((cost) => {
      if (cost !== undefined) line.costUsd = cost;
      if (generation.providerUsed) line.provider = generation.providerUsed;
      this.log.info(line, "request");
    });
  }
}

function lineOf(f: RequestFacts, now: number): Record<string, unknown> {
  const line: Record<string, unknown> = {
    generationId: f.id,
    route: f.embedding ? "embeddings" : ROUTE[f.face],
    status: f.status,
  };
  if (f.stream !== undefined) line.stream = f.stream;
  if (f.model) line.model = f.model;
  if (f.caller) {
    line.account = f.caller.accountId;
    line.keyId = f.caller.keyId;
  }
  if (f.generation?.status) line.outcome = f.generation.status;
  else if (f.status >= 400) line.outcome = "refused";
  if (f.error) line.error = f.error.kind;
  if (f.generation) line.attempts = f.generation.attemptsMade;
  line.durationMs = round(now - f.arrivedAt);
  const meter = f.meter;
  if (meter) {
    if (meter.latencyMs !== undefined) line.ttftMs = meter.latencyMs;
    line.upstreamMs = round(meter.upstreamMs);
    if (meter.sawUsage) {
      const u = meter.usage;
      line.tokens = {
        prompt: u.promptTokens,
        completion: u.completionTokens,
        cacheRead: u.cacheReadTokens,
        cacheWrite: u.cacheWrite5mTokens + u.cacheWrite1hTokens,
        reasoning: u.reasoningTokens,
      };
      if (u.estimated) line.usageEstimated = true;
    }
  }
  return line;
}

function round(ms: number): number {
  return Math.round(ms * 10) / 10;
}
