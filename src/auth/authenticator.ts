// Resolves a presented key to its account. Lookups are cached briefly so the store is not on every
// request's path; a revoked key stops working within the cache's lifetime. While the store is
// unavailable, a key this process verified in the last STALE_MS keeps its last answer (the store is
// asked again about once a second); any other key is a 503, never a guess. See docs/operations.md.
// A key's limits and budget come with it, so a change to them also applies within the cache's lifetime.

import { GatewayError } from "../ir/errors.ts";
import { isStoreUnavailable } from "../ledger/ledger-errors.ts";
import type { KeyBudget, KeyKind, KeyLimits, Store } from "../ledger/types.ts";
import { type AdminKeys, adminKeyRefused } from "./admin.ts";
import { hashKey } from "./keys.ts";

export interface Caller {
  keyId: string;
  accountId: string;
  kind: KeyKind;
  /** The key's rate limits and budget (src/limits/), as of the cached lookup. */
  limits?: KeyLimits;
  budget?: KeyBudget;
}

const CACHE_MS = 5_000;
/** How old a verified answer may be and still be used while the store cannot be asked. */
export const STALE_MS = 10 * 60_000;
/** While the store is unavailable, how often a key's entry asks it again. */
const OUTAGE_RECHECK_MS = 1_000;

interface Entry {
  caller: Caller | undefined;
  /** Epoch ms until which the entry is used without asking the store. */
  until: number;
  /** Epoch ms when the store last answered for this key. */
  verifiedAt: number;
  /** An admin key: refused here (admin.ts). */
  admin?: boolean;
}

export class Authenticator {
  private readonly cache = new Map<string, Entry>();
  private readonly store: Store;
  private readonly admins: AdminKeys | undefined;

  constructor(store: Store, admins?: AdminKeys) {
    this.store = store;
    this.admins = admins;
  }

  async authenticate(key: string | undefined): Promise<Caller> {
    if (key === undefined) throw new GatewayError("authentication", "No API key was provided.");
    // Cached by the presented key itself (it is in every request anyway), so a cache hit costs no
    // hash; the store only ever sees the hash.
    const now = Date.now();
    let entry = this.cache.get(key);
    if (!entry && this.admins?.isAdminKey(key)) {
      entry = { caller: undefined, until: Number.POSITIVE_INFINITY, verifiedAt: now, admin: true };
      this.cache.set(key, entry);
    }
    if (!entry || entry.until < now) {
      try {
        const row = await this.store.keys.findKeyByHash(hashKey(key));
        const caller: Caller | undefined =
          row && !row.revokedAt ? { keyId: row.id, accountId: row.accountId, kind: row.kind } : undefined;
        if (caller && row?.limits) caller.limits = row.limits;
        if (caller && row?.budget) caller.budget = row.budget;
        entry = { caller, until: now + CACHE_MS, verifiedAt: now };
        if (this.cache.size > 10_000) this.cache.clear();
        this.cache.set(key, entry);
      } catch (err) {
        if (!isStoreUnavailable(err) || !entry || now - entry.verifiedAt > STALE_MS) throw err;
        entry.until = now + OUTAGE_RECHECK_MS;
      }
    }
    if (entry.admin) throw adminKeyRefused();
    if (!entry.caller) throw new GatewayError("authentication", "The API key is not valid.");
    return entry.caller;
  }

  forget(): void {
    this.cache.clear();
  }
}
