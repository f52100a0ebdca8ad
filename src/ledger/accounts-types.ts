// Accounts in the ledger: a balance of credits (exact decimal text, billing/money.ts) and a discount.
// Both stores implement it (accounts-sqlite.ts, accounts-postgres.ts) and share one contract test
// (test/ledger/accounts-contract.ts). Settlement debits balances inside the stores' own write
// transactions, through each implementation's `addToBalance`.

import type { AccountRow } from "./types.ts";

export interface AccountStore {
  /** Creates the account (balance "0" unless given), or overwrites the given fields of an existing one. */
  upsertAccount(id: string, opts?: { balance?: string; discount?: string }): Promise<AccountRow>;
  getAccount(id: string): Promise<AccountRow | undefined>;
  /** Adds (or with a negative amount, removes) credits; returns the new balance. */
  creditAccount(id: string, amount: string): Promise<string>;
  /** Every account, by id. */
  listAccounts(): Promise<AccountRow[]>;
}
