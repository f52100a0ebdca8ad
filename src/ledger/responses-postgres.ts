// Stored responses in the shared store (responses-types.ts). Each write is its own transaction,
// committed before the gateway releases the answer, so another gateway process reads it at once.

import { migrateUnderLock, PostgresPart, param } from "./postgres-part.ts";
import { DATABASE_NOW_MS } from "./postgres-schema.ts";
import {
  chainSql,
  indexableItemIds,
  type ResponseStore,
  RUNNING_RUNS,
  responseSql,
  responsesSchema,
  STORED_RESPONSE_COLUMNS,
  type StoredEventBatch,
  type StoredResponseRow,
  storedEventBatch,
  storedResponse,
  storedResponseValues,
} from "./responses-types.ts";
import { POSTGRES } from "./sql-dialect.ts";

export class PostgresResponses extends PostgresPart implements ResponseStore {
  migrate(): Promise<void> {
    return migrateUnderLock(this.db, responsesSchema(this.t, POSTGRES));
  }

  async saveResponse(row: StoredResponseRow): Promise<void> {
    const ids = indexableItemIds(row.itemIds);
    await this.db.transaction(async (client) => {
      await client.query(
        `INSERT INTO ${this.t("stored_responses")} (${STORED_RESPONSE_COLUMNS})
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
         ON CONFLICT (id) DO UPDATE SET status = EXCLUDED.status, content = EXCLUDED.content`,
        storedResponseValues(row),
      );
      if (ids.length === 0) return;
      await client.query(
        `INSERT INTO ${this.t("stored_response_items")} (account_id, id, response_id)
         SELECT $1, unnest($2::text[]), $3 ON CONFLICT DO NOTHING`,
        [row.accountId, ids, row.id],
      );
    });
  }

  async getResponse(id: string, accountId: string): Promise<StoredResponseRow | undefined> {
    const result = await this.db.query(responseSql(this.t, param), [id, accountId]);
    const row = result.rows[0];
    return row && storedResponse(row);
  }

  async getChain(id: string, accountId: string, limit: number): Promise<StoredResponseRow[]> {
    const result = await this.db.query(chainSql(this.t, param), [id, accountId, limit]);
    return result.rows.map(storedResponse);
  }

  async appendEvents(responseId: string, accountId: string, batch: StoredEventBatch): Promise<void> {
    // FOR KEY SHARE: a delete of the response under way is waited for (then the row is gone and
    // nothing is written), and one that starts waits for this insert to commit and deletes its batch
    // too. Without it the batch could land after the delete's own DELETE of the events, and outlive it.
    await this.db.query(
      `INSERT INTO ${this.t("stored_response_events")}
         (response_id, first_sequence, last_sequence, account_id, content)
       SELECT $1, $2, $3, $4, $5 WHERE EXISTS (
         SELECT 1 FROM ${this.t("stored_responses")} WHERE id = $1 AND account_id = $4 FOR KEY SHARE)
       ON CONFLICT DO NOTHING`,
      [responseId, batch.first, batch.last, accountId, batch.content],
    );
  }

  async eventsAfter(responseId: string, accountId: string, after: number): Promise<StoredEventBatch[]> {
    const result = await this.db.query(
      `SELECT first_sequence, last_sequence, content FROM ${this.t("stored_response_events")}
        WHERE response_id = $1 AND account_id = $2 AND last_sequence > $3 ORDER BY first_sequence`,
      [responseId, accountId, after],
    );
    return result.rows.map(storedEventBatch);
  }

  async deleteResponse(id: string, accountId: string): Promise<boolean> {
    return this.db.transaction(async (client) => {
      const result = await client.query(
        `DELETE FROM ${this.t("stored_responses")} WHERE id = $1 AND account_id = $2`,
        [id, accountId],
      );
      if (!result.rowCount) return false;
      await client.query(`DELETE FROM ${this.t("stored_response_items")} WHERE response_id = $1`, [id]);
      await client.query(`DELETE FROM ${this.t("stored_response_events")} WHERE response_id = $1`, [id]);
      return true;
    });
  }

  async responseOfItem(itemId: string, accountId: string): Promise<string | undefined> {
    const result = await this.db.query(
      `SELECT response_id FROM ${this.t("stored_response_items")} WHERE account_id = $1 AND id = $2`,
      [accountId, itemId],
    );
    const row = result.rows[0];
    return row ? String(row.response_id) : undefined;
  }

  async deleteResponses(idBefore: string, limit: number): Promise<number> {
    const responses = this.t("stored_responses");
    return this.db.transaction(async (client) => {
      // SKIP LOCKED: processes sharing the store delete apart.
      const gone = await client.query(
        `DELETE FROM ${responses} WHERE id IN (
           SELECT id FROM ${responses} WHERE id < $1 ORDER BY id LIMIT $2 FOR UPDATE SKIP LOCKED)
         RETURNING id`,
        [idBefore, limit],
      );
      const ids = gone.rows.map((r) => String(r.id));
      if (ids.length === 0) return 0;
      for (const table of ["stored_response_items", "stored_response_events"])
        await client.query(`DELETE FROM ${this.t(table)} WHERE response_id = ANY($1::text[])`, [ids]);
      return ids.length;
    });
  }

  async setStatus(id: string, accountId: string, status: string, from: readonly string[]): Promise<boolean> {
    const result = await this.db.query(
      `UPDATE ${this.t("stored_responses")} SET status = $1 WHERE id = $2 AND account_id = $3 AND status = ANY($4::text[])`,
      [status, id, accountId, from],
    );
    return (result.rowCount ?? 0) > 0;
  }

  async markAbandonedRuns(silentForMs: number): Promise<number> {
    const result = await this.db.query(
      `UPDATE ${this.t("stored_responses")} SET status = 'failed'
        WHERE ${RUNNING_RUNS}
          AND (owner IS NULL OR owner NOT IN (
            SELECT id FROM ${this.t("owner_leases")} WHERE renewed_at > ${DATABASE_NOW_MS} - $1::bigint))`,
      [Math.max(0, Math.round(silentForMs))],
    );
    return result.rowCount ?? 0;
  }

  async secret(name: string, fresh: string): Promise<string> {
    const secrets = this.t("gateway_secrets");
    // Kept, or the one another process kept first (its row is then the conflict, read after).
    await this.db.query(
      `INSERT INTO ${secrets} (name, value, created_at) VALUES ($1, $2, $3) ON CONFLICT (name) DO NOTHING`,
      [name, fresh, Date.now()],
    );
    const result = await this.db.query(`SELECT value FROM ${secrets} WHERE name = $1`, [name]);
    return String(result.rows[0]?.value);
  }

  async failRunsOf(owners: readonly string[]): Promise<number> {
    const result = await this.db.query(
      `UPDATE ${this.t("stored_responses")} SET status = 'failed' WHERE ${RUNNING_RUNS} AND owner = ANY($1::text[])`,
      [owners],
    );
    return result.rowCount ?? 0;
  }

  async storedBytes(accountId: string): Promise<number> {
    const result = await this.db.query(
      `SELECT COALESCE(SUM(bytes), 0) AS bytes FROM ${this.storedText()} WHERE account_id = $1`,
      [accountId],
    );
    return Number(result.rows[0]?.bytes ?? 0);
  }

  async storedBytesByAccount(): Promise<Map<string, number>> {
    const result = await this.db.query(
      `SELECT account_id, SUM(bytes) AS bytes FROM ${this.storedText()} GROUP BY account_id`,
    );
    return new Map(result.rows.map((row) => [String(row.account_id), Number(row.bytes)]));
  }

  /** Each stored text's account and bytes: responses and their events. */
  private storedText(): string {
    return `(
      SELECT account_id, octet_length(content) AS bytes FROM ${this.t("stored_responses")}
      UNION ALL
      SELECT account_id, octet_length(content) AS bytes FROM ${this.t("stored_response_events")}) AS stored`;
  }
}
