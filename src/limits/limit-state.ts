// Where the limits' state lives: this process's memory, or Redis (redis-limit-state.ts) when the
// gateways share limits. Both apply the rule of buckets.ts.

import { decide, LEASE_TTL_MS, levelAt, type TakeRequest, type TakeResult } from "./buckets.ts";

export interface LimitState {
  /** Admits the request (taking from its buckets and a lease) or says which limit refuses it. */
  take(t: TakeRequest): Promise<TakeResult>;
  /** Puts `tokens` back into the key's tokens bucket (negative: takes more), up to its limit. */
  returnTokens(key: string, tpm: number, tokens: number): Promise<void>;
  /** Ends a concurrency lease. */
  release(key: string, lease: string): Promise<void>;
  /** Extends the leases still running. */
  renew(leases: Array<{ key: string; lease: string }>): Promise<void>;
  /** Resolves once the state can be used, or after `withinMs` (at once for memory). */
  ready(withinMs: number): Promise<void>;
  close(): Promise<void>;
}

interface Stored {
  level: number;
  at: number;
}

export class MemoryLimitState implements LimitState {
  private readonly requests = new Map<string, Stored>();
  private readonly tokens = new Map<string, Stored>();
  /** Per key: lease → expiry (epoch ms). */
  private readonly leases = new Map<string, Map<string, number>>();
  private readonly now: () => number;

  constructor(opts: { now?: () => number } = {}) {
    this.now = opts.now ?? Date.now;
  }

  async take(t: TakeRequest): Promise<TakeResult> {
    const now = this.now();
    const requests = t.rpm ? levelAt(this.requests.get(t.key), t.rpm, now) : 0;
    const tokens = t.tpm ? levelAt(this.tokens.get(t.key), t.tpm, now) : 0;
    const held = t.concurrency ? this.liveLeases(t.key, now) : undefined;
    const result = decide(t, requests, tokens, held?.size ?? 0);
    if (result.refused) return result;
    if (t.rpm) this.requests.set(t.key, { level: result.requestsLevel, at: now });
    if (t.tpm) this.tokens.set(t.key, { level: result.tokensLevel, at: now });
    held?.set(t.lease, now + LEASE_TTL_MS);
    return result;
  }

  async returnTokens(key: string, tpm: number, tokens: number): Promise<void> {
    const now = this.now();
    this.tokens.set(key, { level: Math.min(tpm, levelAt(this.tokens.get(key), tpm, now) + tokens), at: now });
  }

  async release(key: string, lease: string): Promise<void> {
    const held = this.leases.get(key);
    held?.delete(lease);
    if (held?.size === 0) this.leases.delete(key);
  }

  async renew(leases: Array<{ key: string; lease: string }>): Promise<void> {
    const until = this.now() + LEASE_TTL_MS;
    for (const { key, lease } of leases) {
      const held = this.leases.get(key);
      if (held?.has(lease)) held.set(lease, until);
    }
  }

  async ready(): Promise<void> {}

  async close(): Promise<void> {}

  private liveLeases(key: string, now: number): Map<string, number> {
    let held = this.leases.get(key);
    if (!held) {
      held = new Map();
      this.leases.set(key, held);
    }
    for (const [lease, expiry] of held) if (expiry <= now) held.delete(lease);
    return held;
  }
}
