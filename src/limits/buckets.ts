// What one key's limits keep between requests, and the rule that admits a request, shared by the
// in-memory state and (as a Lua script, the same rule) the Redis one. Requests and tokens per
// minute are token buckets: a bucket holds up to its limit, refills at limit/60 s, and a request
// takes 1 request and its token estimate from them. A request whose estimate is larger than the
// whole tokens-per-minute limit is admitted once the bucket is full, and takes it below zero (it is
// never refused for good). Concurrency is a set of leases, each with an expiry, so a process that
// dies cannot hold a slot for ever. docs/operations.md#limits-and-budgets says the same to users.

export const WINDOW_MS = 60_000;
/** How long a concurrency lease lives unless renewed (renewed every LEASE_RENEW_MS while it runs). */
export const LEASE_TTL_MS = 3 * 60_000;
export const LEASE_RENEW_MS = 60_000;

/**
 * What a process holds while its requests run and must renew lest it expire (concurrency leases,
 * spend holds): all of them at once every LEASE_RENEW_MS, by `renew`; no timer while none runs.
 */
export class Renewals<K, V> {
  private readonly running = new Map<K, V>();
  private readonly renew: (running: ReadonlyMap<K, V>) => void;
  private timer?: NodeJS.Timeout;

  constructor(renew: (running: ReadonlyMap<K, V>) => void) {
    this.renew = renew;
  }

  add(id: K, value: V): void {
    this.running.set(id, value);
    if (this.timer) return;
    this.timer = setInterval(() => this.renew(this.running), LEASE_RENEW_MS);
    this.timer.unref();
  }

  delete(id: K): void {
    this.running.delete(id);
    if (this.running.size === 0) this.stop();
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }
}

export interface TakeRequest {
  /** The key's id: every state entry of a key is named from it. */
  key: string;
  rpm?: number;
  tpm?: number;
  concurrency?: number;
  /** The request's token estimate (prompt + max output). */
  tokens: number;
  /** A unique id for this request's concurrency lease. */
  lease: string;
}

export type LimitName = "rpm" | "tpm" | "concurrency";

export interface TakeResult {
  /** The limit that refused the request, or undefined when it was admitted. */
  refused?: LimitName;
  /** When refused: how long until it would be admitted, ms. */
  waitMs: number;
  /** The buckets' levels after the request (before it, when refused). */
  requestsLevel: number;
  tokensLevel: number;
}

/** A bucket's level at `now`, from the level and time last stored (none stored: full). */
export function levelAt(
  stored: { level: number; at: number } | undefined,
  limit: number,
  now: number,
): number {
  if (!stored) return limit;
  return Math.min(limit, stored.level + ((now - stored.at) * limit) / WINDOW_MS);
}

/** How long a bucket at `level` takes to refill to `target`, ms. */
export function refillMs(level: number, target: number, limit: number): number {
  return Math.max(0, Math.ceil(((target - level) * WINDOW_MS) / limit));
}

/** The decision, given the current levels and the number of leases held: one rule for both states. */
export function decide(
  t: TakeRequest,
  requestsLevel: number,
  tokensLevel: number,
  leasesHeld: number,
): TakeResult {
  const levels = { requestsLevel, tokensLevel };
  if (t.rpm && requestsLevel < 1)
    return { refused: "rpm", waitMs: refillMs(requestsLevel, 1, t.rpm), ...levels };
  const need = t.tpm ? Math.min(t.tokens, t.tpm) : 0;
  if (t.tpm && tokensLevel < need)
    return { refused: "tpm", waitMs: refillMs(tokensLevel, need, t.tpm), ...levels };
  if (t.concurrency && leasesHeld >= t.concurrency)
    return { refused: "concurrency", waitMs: 1_000, ...levels };
  return { waitMs: 0, requestsLevel: requestsLevel - 1, tokensLevel: tokensLevel - t.tokens };
}
