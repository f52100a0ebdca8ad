// Accounts in PostgreSQL (accounts-types.ts). The table is the ledger's (postgres-schema.ts).

import type { PoolClient, QueryResultRow } from "pg";
import { canonicalDecimal, canonicalDiscount } from "../billing/money.ts";
import type { AccountStore } from "./accounts-types.ts";
import { accountColumnList, accountFromColumns } from "./columns.ts";
import { accountNotFound } from "./ledger-errors.ts";
import { PostgresPart } from "./postgres-part.ts";
import type { AccountRow } from "./types.ts";

export class PostgresAccounts extends PostgresPart implements AccountStore {
  async upsertAccount(id: string, opts: { balance?: string; discount?: string } = {}): Promise<AccountRow> {
    const balance = opts.balance === undefined ? null : canonicalDecimal(opts.balance, "balance");
    const discount = opts.discount === undefined ? null : canonicalDiscount(opts.discount);
    const result = await this.db.query(
      `INSERT INTO ${this.t("accounts")} AS a (id, balance, discount, created_at)
       VALUES ($1, COALESCE($2::numeric, 0), $3::numeric, $4)
       ON CONFLICT (id) DO UPDATE SET balance = COALESCE($2::numeric, a.balance),
                                      discount = COALESCE($3::numeric, a.discount)
       RETURNING ${accountColumnList}`,
      [id, balance, discount, Date.now()],
    );
    return accountFromColumns(result.rows[0]);
  }

  async getAccount(id: string): Promise<AccountRow | undefined> {
    const result = await this.db.query(
      `SELECT ${accountColumnList} FROM ${this.t("accounts")} WHERE id = $1`,
      [id],
    );
    return result.rows[0] ? accountFromColumns(result.rows[0]) : undefined;
  }

  async creditAccount(id: string, amount: string): Promise<string> {
    const delta = canonicalDecimal(amount, "amount");
    return this.db.transaction((client) => this.addToBalance(client, id, delta));
  }

  async listAccounts(): Promise<AccountRow[]> {
    const result = await this.db.query(`SELECT ${accountColumnList} FROM ${this.t("accounts")} ORDER BY id`);
    return result.rows.map(accountFromColumns);
  }

  /** Inside a transaction: balance + delta, exactly, in one statement (the row lock makes concurrent credits add up). */
  async addToBalance(db: PoolClient, id: string, delta: string): Promise<string> {
    const result = await db.query<QueryResultRow>(
      `UPDATE ${this.t("accounts")} SET balance = balance + $1::numeric WHERE id = $2 RETURNING balance`,
      [delta, id],
    );
    if (!result.rows[0]) throw accountNotFound(id);
    return canonicalDecimal(String(result.rows[0].balance));
  }
}
