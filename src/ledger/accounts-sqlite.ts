// Accounts in the embedded store (accounts-types.ts). The table is the ledger's (sqlite-schema.ts).

import { addDecimals, canonicalDecimal, canonicalDiscount, parseDecimal } from "../billing/money.ts";
import type { AccountStore } from "./accounts-types.ts";
import { accountColumnList, accountFromColumns, type Columns } from "./columns.ts";
import { accountNotFound } from "./ledger-errors.ts";
import { read } from "./sqlite-errors.ts";
import { SqlitePart } from "./sqlite-part.ts";
import type { AccountRow } from "./types.ts";

export class SqliteAccounts extends SqlitePart implements AccountStore {
  async upsertAccount(id: string, opts: { balance?: string; discount?: string } = {}): Promise<AccountRow> {
    const balance = opts.balance === undefined ? undefined : canonicalDecimal(opts.balance, "balance");
    const discount = opts.discount === undefined ? undefined : canonicalDiscount(opts.discount);
    return this.transaction(() => {
      const existing = this.readAccount(id);
      if (!existing) {
        this.statement("INSERT INTO accounts (id, balance, discount, created_at) VALUES (?, ?, ?, ?)").run(
          id,
          balance ?? "0",
          discount ?? null,
          Date.now(),
        );
      } else {
        if (balance !== undefined)
          this.statement("UPDATE accounts SET balance = ? WHERE id = ?").run(balance, id);
        if (discount !== undefined)
          this.statement("UPDATE accounts SET discount = ? WHERE id = ?").run(discount, id);
      }
      return this.readAccount(id)!;
    });
  }

  async getAccount(id: string): Promise<AccountRow | undefined> {
    return read(() => this.readAccount(id));
  }

  async creditAccount(id: string, amount: string): Promise<string> {
    parseDecimal(amount, "amount");
    return this.transaction(() => this.addToBalance(id, amount));
  }

  async listAccounts(): Promise<AccountRow[]> {
    const rows = read(() => this.statement(`SELECT ${accountColumnList} FROM accounts ORDER BY id`).all());
    return rows.map((row) => accountFromColumns(row as Columns));
  }

  /** Inside a transaction: balance + amount, exactly; the balance may go below zero. */
  addToBalance(id: string, amount: string): string {
    const row = this.statement("SELECT balance FROM accounts WHERE id = ?").get(id);
    if (!row) throw accountNotFound(id);
    const balance = addDecimals(String(row.balance), amount);
    this.statement("UPDATE accounts SET balance = ? WHERE id = ?").run(balance, id);
    return balance;
  }

  private readAccount(id: string): AccountRow | undefined {
    const row = this.statement(`SELECT ${accountColumnList} FROM accounts WHERE id = ?`).get(id);
    return row ? accountFromColumns(row as Columns) : undefined;
  }
}
