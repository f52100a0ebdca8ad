// API keys in PostgreSQL (keys-types.ts). The table is the ledger's (postgres-schema.ts).

import type { PoolClient } from "pg";
import { keyColumnList, keyColumnValues, keyFromColumns, limitsColumn } from "./columns.ts";
import type { KeyStore } from "./keys-types.ts";
import { duplicateKey } from "./ledger-errors.ts";
import { isUniqueViolation } from "./postgres-errors.ts";
import { PostgresPart } from "./postgres-part.ts";
import { type RevocationStep, revocation, runStepsAsync } from "./store-rules.ts";
import type { KeyBudget, KeyLimits, KeyRow } from "./types.ts";

export class PostgresKeys extends PostgresPart implements KeyStore {
  async insertKey(key: KeyRow): Promise<void> {
    try {
      await this.db.query(
        `INSERT INTO ${this.t("keys")} (${keyColumnList}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
        keyColumnValues(key),
      );
    } catch (error) {
      if (isUniqueViolation(error)) throw duplicateKey(key.id);
      throw error;
    }
  }

  async findKeyByHash(hash: string): Promise<KeyRow | undefined> {
    const result = await this.db.query(`SELECT ${keyColumnList} FROM ${this.t("keys")} WHERE hash = $1`, [
      hash,
    ]);
    return result.rows[0] ? keyFromColumns(result.rows[0]) : undefined;
  }

  async listKeys(accountId?: string): Promise<KeyRow[]> {
    const result =
      accountId === undefined
        ? await this.db.query(`SELECT ${keyColumnList} FROM ${this.t("keys")} ORDER BY created_at, id`)
        : await this.db.query(
            `SELECT ${keyColumnList} FROM ${this.t("keys")} WHERE account_id = $1 ORDER BY created_at, id`,
            [accountId],
          );
    return result.rows.map(keyFromColumns);
  }

  async revokeKey(idOrPrefix: string): Promise<boolean> {
    return this.db.transaction((client) =>
      runStepsAsync(revocation(idOrPrefix, Date.now()), (step) => this.revocationStep(client, step)),
    );
  }

  /** Inside a transaction: one statement of the revocation rule, its rows locked. */
  private async revocationStep(client: PoolClient, step: RevocationStep): Promise<unknown> {
    const keys = this.t("keys");
    switch (step.op) {
      case "readKey": {
        const found = await client.query(`SELECT revoked_at FROM ${keys} WHERE id = $1 FOR UPDATE`, [
          step.id,
        ]);
        return found.rows[0] ? { revoked: found.rows[0].revoked_at !== null } : undefined;
      }
      case "liveKeysWithPrefix": {
        const live = await client.query(
          `SELECT id FROM ${keys} WHERE prefix = $1 AND revoked_at IS NULL FOR UPDATE`,
          [step.prefix],
        );
        return live.rows.map((row) => String(row.id));
      }
      case "revoke":
        await client.query(`UPDATE ${keys} SET revoked_at = $1 WHERE id = $2`, [step.at, step.id]);
        return undefined;
    }
  }

  async setKeyLimits(id: string, limits: KeyLimits | undefined, budget: KeyBudget | undefined) {
    const result = await this.db.query(
      `UPDATE ${this.t("keys")} SET limits = $1, budget = $2 WHERE id = $3`,
      [limitsColumn(limits), limitsColumn(budget), id],
    );
    return (result.rowCount ?? 0) > 0;
  }
}
