// Stored responses in the embedded store (responses-types.ts). Written straight, not through the
// generation write queue: a stored response must be committed before its answer is released.

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
import { SQLITE } from "./sql-dialect.ts";
import { read } from "./sqlite-errors.ts";
import { asIs, param, SqlitePart } from "./sqlite-part.ts";

/** Each stored text's account and bytes: responses and their events. */
const STORED_TEXT = `(
  SELECT account_id, LENGTH(CAST(content AS BLOB)) AS bytes FROM stored_responses
  UNION ALL
  SELECT account_id, LENGTH(CAST(content AS BLOB)) AS bytes FROM stored_response_events)`;

export class SqliteResponses extends SqlitePart implements ResponseStore {
  async migrate(): Promise<void> {
    this.transaction(() => this.db.exec(responsesSchema(asIs, SQLITE)));
  }

  async saveResponse(row: StoredResponseRow): Promise<void> {
    this.transaction(() => {
      this.statement(
        `INSERT OR REPLACE INTO stored_responses (${STORED_RESPONSE_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
      ).run(...storedResponseValues(row));
      const item = this.statement(
        "INSERT OR IGNORE INTO stored_response_items (account_id, id, response_id) VALUES (?, ?, ?)",
      );
      for (const id of indexableItemIds(row.itemIds)) item.run(row.accountId, id, row.id);
    });
  }

  async getResponse(id: string, accountId: string): Promise<StoredResponseRow | undefined> {
    const row = read(() => this.statement(responseSql(asIs, param)).get(id, accountId));
    return row && storedResponse(row);
  }

  async getChain(id: string, accountId: string, limit: number): Promise<StoredResponseRow[]> {
    const rows = read(() => this.statement(chainSql(asIs, param)).all(id, accountId, limit));
    return rows.map(storedResponse);
  }

  async appendEvents(responseId: string, accountId: string, batch: StoredEventBatch): Promise<void> {
    this.transaction(() =>
      this.statement(
        `INSERT OR IGNORE INTO stored_response_events
             (response_id, first_sequence, last_sequence, account_id, content)
           SELECT ?, ?, ?, ?, ? WHERE EXISTS (SELECT 1 FROM stored_responses WHERE id = ? AND account_id = ?)`,
      ).run(responseId, batch.first, batch.last, accountId, batch.content, responseId, accountId),
    );
  }

  async eventsAfter(responseId: string, accountId: string, after: number): Promise<StoredEventBatch[]> {
    const rows = read(() =>
      this.statement(
        `SELECT first_sequence, last_sequence, content FROM stored_response_events
            WHERE response_id = ? AND account_id = ? AND last_sequence > ? ORDER BY first_sequence`,
      ).all(responseId, accountId, after),
    );
    return rows.map(storedEventBatch);
  }

  async deleteResponse(id: string, accountId: string): Promise<boolean> {
    return this.transaction(() => {
      const { changes } = this.statement("DELETE FROM stored_responses WHERE id = ? AND account_id = ?").run(
        id,
        accountId,
      );
      if (changes === 0) return false;
      this.statement("DELETE FROM stored_response_items WHERE response_id = ?").run(id);
      this.statement("DELETE FROM stored_response_events WHERE response_id = ?").run(id);
      return true;
    });
  }

  async responseOfItem(itemId: string, accountId: string): Promise<string | undefined> {
    const row = read(() =>
      this.statement("SELECT response_id FROM stored_response_items WHERE account_id = ? AND id = ?").get(
        accountId,
        itemId,
      ),
    );
    return row ? String(row.response_id) : undefined;
  }

  async deleteResponses(idBefore: string, limit: number): Promise<number> {
    return this.transaction(() => {
      const gone = this.statement(
        `DELETE FROM stored_responses WHERE id IN (
             SELECT id FROM stored_responses WHERE id < ? ORDER BY id LIMIT ?) RETURNING id`,
      ).all(idBefore, limit);
      const items = this.statement("DELETE FROM stored_response_items WHERE response_id = ?");
      const events = this.statement("DELETE FROM stored_response_events WHERE response_id = ?");
      for (const { id } of gone) {
        items.run(String(id));
        events.run(String(id));
      }
      return gone.length;
    });
  }

  async setStatus(id: string, accountId: string, status: string, from: readonly string[]): Promise<boolean> {
    return this.transaction(
      () =>
        this.statement(
          `UPDATE stored_responses SET status = ? WHERE id = ? AND account_id = ?
               AND status IN (${from.map(() => "?").join(", ")})`,
        ).run(status, id, accountId, ...from).changes > 0,
    );
  }

  /** The file belongs to one `serve`: at its start every run still going was left by a process now gone. */
  async markAbandonedRuns(): Promise<number> {
    return this.transaction(
      () =>
        this.statement(`UPDATE stored_responses SET status = 'failed' WHERE ${RUNNING_RUNS}`).run()
          .changes as number,
    );
  }

  async secret(name: string, fresh: string): Promise<string> {
    return this.transaction(() => {
      this.statement("INSERT OR IGNORE INTO gateway_secrets (name, value, created_at) VALUES (?, ?, ?)").run(
        name,
        fresh,
        Date.now(),
      );
      return String(this.statement("SELECT value FROM gateway_secrets WHERE name = ?").get(name)?.value);
    });
  }

  async failRunsOf(owners: readonly string[]): Promise<number> {
    if (owners.length === 0) return 0;
    return this.transaction(
      () =>
        this.statement(
          `UPDATE stored_responses SET status = 'failed'
              WHERE ${RUNNING_RUNS} AND owner IN (${owners.map(() => "?").join(", ")})`,
        ).run(...owners).changes as number,
    );
  }

  async storedBytes(accountId: string): Promise<number> {
    const row = read(() =>
      this.statement(`SELECT COALESCE(SUM(bytes), 0) AS bytes FROM ${STORED_TEXT} WHERE account_id = ?`).get(
        accountId,
      ),
    );
    return Number(row?.bytes ?? 0);
  }

  async storedBytesByAccount(): Promise<Map<string, number>> {
    const rows = read(() =>
      this.statement(`SELECT account_id, SUM(bytes) AS bytes FROM ${STORED_TEXT} GROUP BY account_id`).all(),
    ) as Array<{ account_id: string; bytes: number }>;
    return new Map(rows.map((row) => [row.account_id, Number(row.bytes)]));
  }
}
