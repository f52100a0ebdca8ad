// Routing state shared by many gateway processes through Redis (scale-out). Each
// operation is one Redis command (see state.ts), with a short command timeout and no offline queue:
// routing statistics are advisory, so when Redis is slow or down a request never waits on it — the
// process carries on with its own in-memory state until Redis answers again.

import { RedisBacked } from "./redis-client.ts";
import { MemoryRoutingState, type RoutingState } from "./state.ts";

/** Counters and statistics outlive no one: keys unused for a day disappear. */
const KEY_TTL_MS = 24 * 60 * 60 * 1000;
/** After the shared state failed, how long operations use this process's own before trying it again. */
const RETRY_SHARED_MS = 1_000;

export class RedisRoutingState extends RedisBacked implements RoutingState {
  readonly prefix: string;

  constructor(url: string, opts: { prefix?: string } = {}) {
    super(url);
    this.prefix = opts.prefix ?? "switchyard:routing:";
  }

  async increment(key: string): Promise<number> {
    const k = this.prefix + key;
    const [[err, value]] = (await this.redis.multi().incr(k).pexpire(k, KEY_TTL_MS).exec()) ?? [[null, 0]];
    if (err) throw err;
    return Number(value);
  }

  async addToHash(key: string, fields: Record<string, number>): Promise<Record<string, number>> {
    const k = this.prefix + key;
    const names = Object.keys(fields);
    const pipeline = this.redis.pipeline();
    for (const name of names) pipeline.hincrbyfloat(k, name, fields[name]);
    pipeline.pexpire(k, KEY_TTL_MS);
    const results = (await pipeline.exec()) ?? [];
    const updated: Record<string, number> = {};
    names.forEach((name, i) => {
      const [err, value] = results[i] ?? [new Error("no reply"), null];
      if (err) throw err;
      updated[name] = Number(value);
    });
    return updated;
  }

  async setInHash(key: string, fields: Record<string, number>): Promise<void> {
    if (Object.keys(fields).length === 0) return;
    const k = this.prefix + key;
    await this.redis.multi().hset(k, fields).pexpire(k, KEY_TTL_MS).exec();
  }

  async readHash(key: string): Promise<Record<string, number>> {
    const raw = await this.redis.hgetall(this.prefix + key);
    return Object.fromEntries(Object.entries(raw).map(([field, value]) => [field, Number(value)]));
  }

  async mark(key: string, ttlMs: number, opts: { onlyIfAbsent?: boolean } = {}): Promise<boolean> {
    const ttl = Math.max(1, Math.round(ttlMs));
    const reply = opts.onlyIfAbsent
      ? await this.redis.set(this.prefix + key, "1", "PX", ttl, "NX")
      : await this.redis.set(this.prefix + key, "1", "PX", ttl);
    return reply === "OK";
  }

  async markedFor(key: string): Promise<number> {
    const left = await this.redis.pttl(this.prefix + key);
    return Math.max(0, left);
  }

  async unmark(key: string): Promise<void> {
    await this.redis.del(this.prefix + key);
  }
}

/**
 * A shared state that falls back to this process's own memory whenever the shared one fails, so
 * routing keeps working (per process) while Redis is away. After a failure the shared state is
 * left alone for RETRY_SHARED_MS: a Redis that hangs rather than refuses costs one command timeout
 * a second, not one per operation of every request. Nothing is queued for it meanwhile, so it
 * comes back with no backlog to replay. Warns at most once a minute. See docs/operations.md.
 */
export class FallbackRoutingState implements RoutingState {
  private readonly shared: RoutingState;
  private readonly local = new MemoryRoutingState();
  private readonly warn: (message: string) => void;
  private readonly now: () => number;
  private warnedAt = -Infinity;
  /** Until when operations go straight to memory, epoch ms. */
  private sharedAfter = 0;

  constructor(shared: RoutingState, warn: (message: string) => void, opts: { now?: () => number } = {}) {
    this.shared = shared;
    this.warn = warn;
    this.now = opts.now ?? Date.now;
  }

  increment(key: string) {
    return this.either((s) => s.increment(key));
  }
  addToHash(key: string, fields: Record<string, number>) {
    return this.either((s) => s.addToHash(key, fields));
  }
  setInHash(key: string, fields: Record<string, number>) {
    return this.either((s) => s.setInHash(key, fields));
  }
  readHash(key: string) {
    return this.either((s) => s.readHash(key));
  }
  mark(key: string, ttlMs: number, opts?: { onlyIfAbsent?: boolean }) {
    return this.either((s) => s.mark(key, ttlMs, opts));
  }
  markedFor(key: string) {
    return this.either((s) => s.markedFor(key));
  }
  unmark(key: string) {
    return this.either((s) => s.unmark(key));
  }

  private async either<T>(op: (state: RoutingState) => Promise<T>): Promise<T> {
    if (this.now() < this.sharedAfter) return op(this.local);
    try {
      return await op(this.shared);
    } catch (err) {
      const now = this.now();
      this.sharedAfter = now + RETRY_SHARED_MS;
      if (now - this.warnedAt > 60_000) {
        this.warnedAt = now;
        this.warn(`shared routing state unavailable, using this process's own: ${(err as Error).message}`);
      }
      return op(this.local);
    }
  }
}
