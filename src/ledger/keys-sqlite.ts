// API keys in the embedded store (keys-types.ts). The table is the ledger's (sqlite-schema.ts).

import { type Columns, keyColumnList, keyColumnValues, keyFromColumns, limitsColumn } from "./columns.ts";
import type { KeyStore } from "./keys-types.ts";
import { duplicateKey } from "./ledger-errors.ts";
import { isUniqueViolation, read } from "./sqlite-errors.ts";
import { SqlitePart } from "./sqlite-part.ts";
import { type RevocationStep, revocation, runSteps } from "./store-rules.ts";
import type { KeyBudget, KeyLimits, KeyRow } from "./types.ts";

export class SqliteKeys extends SqlitePart implements KeyStore {
  async insertKey(key: KeyRow): Promise<void> {
    this.transaction(() => {
      try {
        this.statement(`INSERT INTO keys (${keyColumnList}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`).run(
          ...keyColumnValues(key),
        );
      } catch (error) {
        if (isUniqueViolation(error)) throw duplicateKey(key.id);
        throw error;
      }
    });
  }

  async findKeyByHash(hash: string): Promise<KeyRow | undefined> {
    const row = read(() => this.statement(`SELECT ${keyColumnList} FROM keys WHERE hash = ?`).get(hash));
    return row ? keyFromColumns(row as Columns) : undefined;
  }

  async listKeys(accountId?: string): Promise<KeyRow[]> {
    const rows = read(() =>
      accountId === undefined
        ? this.statement(`SELECT ${keyColumnList} FROM keys ORDER BY created_at, id`).all()
        : this.statement(
            `SELECT ${keyColumnList} FROM keys WHERE account_id = ? ORDER BY created_at, id`,
          ).all(accountId),
    );
    return rows.map((row) => keyFromColumns(row as Columns));
  }

  async revokeKey(idOrPrefix: string): Promise<boolean> {
    return this.transaction(() =>
      runSteps(revocation(idOrPrefix, Date.now()), (step) => this.revocationStep(step)),
    );
  }

  private revocationStep(step: RevocationStep): unknown {
    switch (step.op) {
      case "readKey": {
        const row = this.statement("SELECT revoked_at FROM keys WHERE id = ?").get(step.id);
        return row ? { revoked: row.revoked_at !== null } : undefined;
      }
      case "liveKeysWithPrefix":
        return this.statement("SELECT id FROM keys WHERE prefix = ? AND revoked_at IS NULL")
          .all(step.prefix)
          .map((row) => String(row.id));
      case "revoke":
        this.statement("UPDATE keys SET revoked_at = ? WHERE id = ?").run(step.at, step.id);
        return undefined;
    }
  }

  async setKeyLimits(id: string, limits: KeyLimits | undefined, budget: KeyBudget | undefined) {
    const result = this.transaction(() =>
      this.statement("UPDATE keys SET limits = ?, budget = ? WHERE id = ?").run(
        limitsColumn(limits),
        limitsColumn(budget),
        id,
      ),
    );
    return result.changes > 0;
  }
}
