// Admission for pay-as-you-go keys: an account with no credit left is refused before any upstream
// call. The answer is cached per account until this process settles a generation of that account,
// or for a second at most (another process may have settled or credited it), so the store is not
// read on every request.

import type { Caller } from "../auth/authenticator.ts";
import { GatewayError } from "../ir/errors.ts";
import type { Store } from "../ledger/types.ts";

const CACHE_MS = 1_000;

export class CreditCheck {
  private readonly store: Store;
  private readonly hasCredit = new Map<string, { ok: boolean; until: number }>();

  constructor(store: Store) {
    this.store = store;
  }

  async admit(caller: Caller): Promise<void> {
    if (caller.kind !== "payg") return;
    const now = Date.now();
    let entry = this.hasCredit.get(caller.accountId);
    if (!entry || entry.until <= now) {
      const balance = (await this.store.getAccount(caller.accountId))?.balance;
      // Balances are canonical decimal text: "0", or negative with a leading "-", means none left.
      entry = {
        ok: balance !== undefined && balance !== "0" && !balance.startsWith("-"),
        until: now + CACHE_MS,
      };
      if (this.hasCredit.size > 10_000) this.hasCredit.clear();
      this.hasCredit.set(caller.accountId, entry);
    }
    if (!entry.ok)
      throw new GatewayError("payment_required", "The account has no credit left. Add credits to continue.");
  }

  /** Settlement changed these balances: read them again on the next request. */
  forget(accountIds: Iterable<string>): void {
    for (const id of accountIds) this.hasCredit.delete(id);
  }
}
