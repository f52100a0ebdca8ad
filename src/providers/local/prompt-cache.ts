// Remembers which prompt prefixes the local model has "cached", and for how long.

import { createHash } from "node:crypto";

const TTL_MS = { "5m": 5 * 60_000, "1h": 60 * 60_000 };
const MAX_ENTRIES = 10_000;

export class PromptCache {
  private readonly expiries = new Map<string, number>();

  /** True when the prefix was cached and still fresh; either way it is (re)cached now. */
  hit(prefix: string, ttl: "5m" | "1h", now = Date.now()): boolean {
    const key = createHash("sha256").update(prefix).digest("base64");
    const expiry = this.expiries.get(key);
    const fresh = expiry !== undefined && expiry > now;
    if (this.expiries.size >= MAX_ENTRIES) this.expiries.clear();
    this.expiries.set(key, now + TTL_MS[ttl]);
    return fresh;
  }
}
