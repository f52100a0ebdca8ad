// The routing state every gateway process shares: round-robin counters, per-endpoint statistics,
// and expiring marks (breaker open, retry-after cool-down, half-open probe). One process keeps it in
// memory; many processes will keep it in Redis. Each operation is one Redis command, so a Redis
// implementation is a thin mapping with no scripts and no read-modify-write transactions:
//
//   increment      INCR key
//   addToHash      HINCRBYFLOAT key field n      (one per field, pipelined)
//   setInHash      HSET key field value …
//   readHash       HGETALL key
//   mark           SET key 1 PX ttl [NX]
//   markedFor      PTTL key
//   unmark         DEL key

export interface RoutingState {
  /** Adds one to a counter and returns the new value (the first call returns 1). */
  increment(key: string): Promise<number>;
  /** Adds to numeric fields of a hash (missing fields start at 0); returns the new values. */
  addToHash(key: string, fields: Record<string, number>): Promise<Record<string, number>>;
  /** Sets numeric fields of a hash. */
  setInHash(key: string, fields: Record<string, number>): Promise<void>;
  /** Every field of a hash; an unknown key is an empty object. */
  readHash(key: string): Promise<Record<string, number>>;
  /**
   * Marks a key for `ttlMs`. With `onlyIfAbsent`, an existing unexpired mark is left alone and
   * false is returned (the caller did not get it); otherwise true.
   */
  mark(key: string, ttlMs: number, opts?: { onlyIfAbsent?: boolean }): Promise<boolean>;
  /** Milliseconds until the mark expires; 0 when the key is not marked. */
  markedFor(key: string): Promise<number>;
  unmark(key: string): Promise<void>;
}

/** The single-process state. `now` is injectable so tests can move time. */
export class MemoryRoutingState implements RoutingState {
  private readonly counters = new Map<string, number>();
  private readonly hashes = new Map<string, Record<string, number>>();
  /** key → epoch ms when the mark expires. */
  private readonly marks = new Map<string, number>();
  private readonly now: () => number;
  constructor(opts: { now?: () => number } = {}) {
    this.now = opts.now ?? Date.now;
  }

  async increment(key: string): Promise<number> {
    const next = (this.counters.get(key) ?? 0) + 1;
    // Wraps long before losing integer precision; callers use it modulo a small number.
    this.counters.set(key, next >= Number.MAX_SAFE_INTEGER ? 1 : next);
    return next;
  }

  async addToHash(key: string, fields: Record<string, number>): Promise<Record<string, number>> {
    const hash = this.hash(key);
    const updated: Record<string, number> = {};
    for (const field in fields) {
      hash[field] = (hash[field] ?? 0) + fields[field];
      updated[field] = hash[field];
    }
    return updated;
  }

  async setInHash(key: string, fields: Record<string, number>): Promise<void> {
    Object.assign(this.hash(key), fields);
  }

  async readHash(key: string): Promise<Record<string, number>> {
    return { ...this.hashes.get(key) };
  }

  async mark(key: string, ttlMs: number, opts: { onlyIfAbsent?: boolean } = {}): Promise<boolean> {
    if (opts.onlyIfAbsent && this.remaining(key) > 0) return false;
    this.marks.set(key, this.now() + Math.max(1, ttlMs));
    return true;
  }

  async markedFor(key: string): Promise<number> {
    return this.remaining(key);
  }

  async unmark(key: string): Promise<void> {
    this.marks.delete(key);
  }

  private remaining(key: string): number {
    const until = this.marks.get(key);
    if (until === undefined) return 0;
    const left = until - this.now();
    if (left > 0) return left;
    this.marks.delete(key);
    return 0;
  }

  private hash(key: string): Record<string, number> {
    let hash = this.hashes.get(key);
    if (!hash) {
      hash = {};
      this.hashes.set(key, hash);
    }
    return hash;
  }
}
