// Per-key rate limits (requests and tokens per minute, requests in flight), checked before any
// upstream call on every inference route. The state is Redis's when `redis.url` is set (shared by
// every gateway on it), else this process's. A Redis that fails is left alone for RETRY_SHARED_MS
// and this process's memory limits meanwhile: each process then admits up to the whole limit by
// itself, so the service may pass the limit (by the number of processes) while Redis is away, but
// no request fails or waits because of Redis. docs/operations.md#limits-and-budgets.

import { randomUUID } from "node:crypto";
import type { Caller } from "../auth/authenticator.ts";
import { GatewayError } from "../ir/errors.ts";
import type { KeyLimits } from "../ledger/types.ts";
import type { ProtocolName } from "../protocols/types.ts";
import { Renewals, type TakeResult } from "./buckets.ts";
import { type LimitState, MemoryLimitState } from "./limit-state.ts";
import { rateLimitHeaders, retryHeaders } from "./rate-limit-headers.ts";

const RETRY_SHARED_MS = 1_000;

/** A request admitted under its key's limits, until it ends. */
export interface Admission {
  /** The rate-limit headers for the answer. */
  readonly headers: Record<string, string>;
  /**
   * The request is over (in any way): its concurrency slot is freed and its token estimate replaced
   * by `usedTokens` (undefined: the estimate stands). Only the first call counts.
   */
  end(usedTokens?: number): void;
}

export class RateLimiter {
  private readonly shared?: LimitState;
  private readonly local = new MemoryLimitState();
  private readonly warn: (message: string) => void;
  private sharedAfter = 0;
  private warnedAt = -Infinity;
  /** Leases running on the shared state, renewed while they run. */
  private readonly running = new Renewals<string, { key: string; lease: string }>((running) => {
    this.shared?.renew([...running.values()]).catch((err) => this.failed(err));
  });

  constructor(opts: { shared?: LimitState; warn: (message: string) => void }) {
    this.shared = opts.shared;
    this.warn = opts.warn;
  }

  /**
   * Admits the request or throws a 429 naming the limit. `estimate` (the request's tokens) is asked
   * only for a key with a tokens-per-minute limit.
   */
  async admit(caller: Caller, face: ProtocolName, estimate: () => number): Promise<Admission | undefined> {
    const limits = caller.limits;
    if (!limits || (!limits.rpm && !limits.tpm && !limits.concurrency)) return undefined;
    const tokens = limits.tpm ? estimate() : 0;
    const take = { key: caller.keyId, ...limits, tokens, lease: randomUUID() };
    const { state, result } = await this.take(take);
    if (result.refused) throw refusal(face, limits, result);
    const shared = state !== this.local && limits.concurrency !== undefined;
    if (shared) this.running.add(take.lease, { key: take.key, lease: take.lease });
    let ended = false;
    return {
      headers: rateLimitHeaders(face, limits, result),
      end: (usedTokens) => {
        if (ended) return;
        ended = true;
        if (shared) this.running.delete(take.lease);
        const ops: Array<Promise<void>> = [];
        if (limits.concurrency) ops.push(state.release(take.key, take.lease));
        if (limits.tpm && usedTokens !== undefined && usedTokens !== tokens)
          ops.push(state.returnTokens(take.key, limits.tpm, tokens - usedTokens));
        // Best effort: a lease Redis did not hear about expires on its own (buckets.ts).
        Promise.all(ops).catch((err) => this.failed(err));
      },
    };
  }

  /** Resolves once the shared state is connected, or after `withinMs` (redis-client.ts). */
  async ready(withinMs: number): Promise<void> {
    await this.shared?.ready(withinMs);
  }

  async close(): Promise<void> {
    this.running.stop();
    await this.shared?.close();
  }

  private async take(
    t: Parameters<LimitState["take"]>[0],
  ): Promise<{ state: LimitState; result: TakeResult }> {
    if (this.shared && Date.now() >= this.sharedAfter) {
      try {
        return { state: this.shared, result: await this.shared.take(t) };
      } catch (err) {
        this.failed(err);
      }
    }
    return { state: this.local, result: await this.local.take(t) };
  }

  private failed(err: unknown): void {
    const now = Date.now();
    this.sharedAfter = now + RETRY_SHARED_MS;
    if (now - this.warnedAt < 60_000) return;
    this.warnedAt = now;
    this.warn(`shared key limits unavailable, using this process's own: ${(err as Error).message}`);
  }
}

const WHAT: Record<NonNullable<TakeResult["refused"]>, string> = {
  rpm: "requests per minute",
  tpm: "tokens per minute",
  concurrency: "concurrent requests",
};

function refusal(face: ProtocolName, limits: KeyLimits, result: TakeResult): GatewayError {
  const name = result.refused!;
  const seconds = Math.max(1, Math.ceil(result.waitMs / 1000));
  const message =
    `Rate limit reached for this key: ${limits[name]} ${WHAT[name]}. ` +
    (name === "concurrency" ? "Try again once a request in flight ends." : `Try again in ${seconds} s.`);
  return new GatewayError("rate_limit", message, {
    retryAfter: seconds,
    headers: { ...rateLimitHeaders(face, limits, result), ...retryHeaders(result.waitMs) },
  });
}
