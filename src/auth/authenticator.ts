// Resolves a presented key to its account. Lookups are cached briefly so the store is not on every
// request's path; a revoked key stops working within the cache's lifetime.

import { GatewayError } from "../ir/errors.ts";
import type { KeyKind, Store } from "../ledger/types.ts";
import { hashKey } from "./keys.ts";

export interface Caller {
  keyId: string;
  accountId: string;
  kind: KeyKind;
}

const CACHE_MS = 5_000;

export class Authenticator {
  private readonly cache = new Map<string, { caller: Caller | undefined; until: number }>();
  private readonly store: Store;

  constructor(store: Store) {
    this.store = store;
  }

  async authenticate(key: string | undefined): Promise<Caller> {
    if (key === undefined) throw new GatewayError("authentication", "No API key was provided.");
    // Cached by the presented key itself (it is in every request anyway), so a cache hit costs no
    // hash; the store only ever sees the hash.
    const now = Date.now();
    let entry = this.cache.get(key);
    if (!entry || entry.until < now) {
      const row = await this.store.findKeyByHash(hashKey(key));
      const caller =
        row && !row.revokedAt ? { keyId: row.id, accountId: row.accountId, kind: row.kind } : undefined;
      entry = { caller, until: now + CACHE_MS };
      if (this.cache.size > 10_000) this.cache.clear();
      this.cache.set(key, entry);
    }
    if (!entry.caller) throw new GatewayError("authentication", "The API key is not valid.");
    return entry.caller;
  }

  forget(): void {
    this.cache.clear();
  }
}
