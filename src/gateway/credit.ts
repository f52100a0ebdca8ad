// Admission: a generation is refused before any upstream call when the ledger could not record it
// (its in-memory backlog for an unavailable store is full: 503), or when a pay-as-you-go account has
// no credit left (402). The credit answer is cached per account until this process settles a
// generation of that account, or for a second at most (another process may have settled or credited
// it), so the store is not read on every request. While the store is unavailable the last answer
// stands (asked again about once a second); an account never seen is a 503. See docs/operations.md.

import type { Caller } from "../auth/authenticator.ts";
import { STALE_MS } from "../auth/authenticator.ts";
import { GatewayError } from "../ir/errors.ts";
import { isStoreUnavailable, StoreUnavailable } from "../ledger/ledger-errors.ts";
import type { Store } from "../ledger/types.ts";

const CACHE_MS = 1_000;
const OUTAGE_RECHECK_MS = 1_000;
/** Accounts cached at most; past it the cache starts again empty. */
const MAX_ACCOUNTS = 10_000;

interface CreditReading {
  ok: boolean;
  balance?: string;
  until: number;
  readAt: number;
}

export class CreditCheck {
  private readonly store: Store;
  private readonly hasCredit = new Map<string, CreditReading>();

  constructor(store: Store) {
    this.store = store;
  }

  async admit(caller: Caller): Promise<void> {
    if (!this.store.acceptsGenerations)
      throw new StoreUnavailable(
        undefined,
        "The gateway cannot record new generations right now; try again shortly.",
      );
    if (caller.kind !== "payg") return;
    if (!(await this.reading(caller.accountId)).ok)
      throw new GatewayError("payment_required", "The account has no credit left. Add credits to continue.");
  }

  /**
   * The balance `admit` last read, and when (spend reservations: src/limits/spend-reservations.ts).
   * Read again when the cache lost it since (emptied past MAX_ACCOUNTS by other accounts' requests
   * in between): a lost reading is not a balance of zero.
   */
  async balanceOf(accountId: string): Promise<{ balance: string; readAt: number } | undefined> {
    const entry = this.hasCredit.get(accountId) ?? (await this.reading(accountId));
    return entry.balance === undefined ? undefined : { balance: entry.balance, readAt: entry.readAt };
  }

  /** The cached reading while it is fresh, else the store's (the last one standing while it is away). */
  private async reading(accountId: string): Promise<CreditReading> {
    const now = Date.now();
    const entry = this.hasCredit.get(accountId);
    if (entry && entry.until > now) return entry;
    try {
      const balance = (await this.store.accounts.getAccount(accountId))?.balance;
      // Balances are canonical decimal text: "0", or negative with a leading "-", means none left.
      const fresh = {
        ok: balance !== undefined && balance !== "0" && !balance.startsWith("-"),
        balance,
        until: now + CACHE_MS,
        readAt: now,
      };
      if (this.hasCredit.size > MAX_ACCOUNTS) this.hasCredit.clear();
      this.hasCredit.set(accountId, fresh);
      return fresh;
    } catch (err) {
      if (!isStoreUnavailable(err) || !entry || now - entry.readAt > STALE_MS) throw err;
      entry.until = now + OUTAGE_RECHECK_MS;
      return entry;
    }
  }

  /**
   * Settlement changed these balances: read them again on the next request. (Expired, not dropped:
   * should the store then be unavailable, the last answer still stands.)
   */
  forget(accountIds: Iterable<string>): void {
    for (const id of accountIds) {
      const entry = this.hasCredit.get(id);
      if (entry) entry.until = 0;
    }
  }
}
