// Stored responses in the embedded store (responses-types.ts). Written straight, not through the
// generation write queue: a stored response must be committed before its answer is released.

import {
  indexableItemIds,
  type ResponseStore,
  RUNNING_STATUSES,
  type StoredEventBatch,
  type StoredResponseRow,
  storedEventBatch,
  storedResponse,
  storedResponseValues,
} from "./responses-types.ts";
import { SqlitePart } from "./sqlite-part.ts";

/** A migration step of its own, after the ledger's tables (sqlite-schema.ts). */
export const sqliteResponsesSchema = `
CREATE TABLE IF NOT EXISTS stored_responses (
  id                   TEXT PRIMARY KEY,
  account_id           TEXT NOT NULL,
  created_at           INTEGER NOT NULL,
  model                TEXT NOT NULL,
  status               TEXT NOT NULL,
  previous_response_id TEXT,
  content              TEXT NOT NULL,
  owner                TEXT
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS stored_response_items (
  account_id  TEXT NOT NULL,
  id          TEXT NOT NULL,
  response_id TEXT NOT NULL,
  PRIMARY KEY (account_id, id)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS stored_response_items_response ON stored_response_items (response_id);
CREATE TABLE IF NOT EXISTS stored_response_events (
  response_id    TEXT NOT NULL,
  first_sequence INTEGER NOT NULL,
  last_sequence  INTEGER NOT NULL,
  account_id     TEXT NOT NULL,
  content        TEXT NOT NULL,
  PRIMARY KEY (response_id, first_sequence)
) WITHOUT ROWID;
`;

/** Each stored text's account and bytes: responses and their events. */
const STORED_TEXT = `(
  SELECT account_id, LENGTH(CAST(content AS BLOB)) AS bytes FROM stored_responses
  UNION ALL
  SELECT account_id, LENGTH(CAST(content AS BLOB)) AS bytes FROM stored_response_events)`;

export class SqliteResponses extends SqlitePart implements ResponseStore {
  async migrate(): Promise<void> {
    this.transaction(() => this.db.exec(sqliteResponsesSchema));
  }

  async saveResponse(row: StoredResponseRow): Promise<void> {
    this.transaction(() => {
      this.statement(
        `INSERT OR REPLACE INTO stored_responses
             (id, account_id, created_at, model, status, previous_response_id, content, owner)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
      ).run(...storedResponseValues(row));
      const item = this.statement(
        "INSERT OR IGNORE INTO stored_response_items (account_id, id, response_id) VALUES (?, ?, ?)",
      );
      for (const id of indexableItemIds(row.itemIds)) item.run(row.accountId, id, row.id);
    });
  }

  async getResponse(id: string, accountId: string): Promise<StoredResponseRow | undefined> {
    const row = this.statement(
      `SELECT id, account_id, created_at, model, status, previous_response_id, content, owner
           FROM stored_responses WHERE id = ? AND account_id = ?`,
    ).get(id, accountId);
    return row && storedResponse(row);
  }

  async getChain(id: string, accountId: string, limit: number): Promise<StoredResponseRow[]> {
    const rows = this.statement(
      `WITH RECURSIVE chain AS (
           SELECT id, account_id, created_at, model, status, previous_response_id, content, owner, 1 AS depth
             FROM stored_responses WHERE id = ? AND account_id = ?
           UNION ALL
           SELECT r.id, r.account_id, r.created_at, r.model, r.status, r.previous_response_id, r.content, r.owner, chain.depth + 1
             FROM stored_responses r JOIN chain ON r.id = chain.previous_response_id AND r.account_id = chain.account_id
            WHERE chain.depth < ?
         )
         SELECT id, account_id, created_at, model, status, previous_response_id, content, owner FROM chain ORDER BY depth`,
    ).all(id, accountId, limit);
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
    return this.statement(
      `SELECT first_sequence, last_sequence, content FROM stored_response_events
          WHERE response_id = ? AND account_id = ? AND last_sequence > ? ORDER BY first_sequence`,
    )
      .all(responseId, accountId, after)
      .map(storedEventBatch);
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
    const row = this.statement(
      "SELECT response_id FROM stored_response_items WHERE account_id = ? AND id = ?",
    ).get(accountId, itemId);
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
        this.statement(
          `UPDATE stored_responses SET status = 'failed'
              WHERE status IN (${RUNNING_STATUSES.map(() => "?").join(", ")})`,
        ).run(...RUNNING_STATUSES).changes as number,
    );
  }

  async failRunsOf(owners: readonly string[]): Promise<number> {
    if (owners.length === 0) return 0;
    return this.transaction(
      () =>
        this.statement(
          `UPDATE stored_responses SET status = 'failed'
              WHERE status IN (${RUNNING_STATUSES.map(() => "?").join(", ")})
                AND owner IN (${owners.map(() => "?").join(", ")})`,
        ).run(...RUNNING_STATUSES, ...owners).changes as number,
    );
  }

  async storedBytes(accountId: string): Promise<number> {
    const row = this.statement(
      `SELECT COALESCE(SUM(bytes), 0) AS bytes FROM ${STORED_TEXT} WHERE account_id = ?`,
    ).get(accountId);
    return Number(row?.bytes ?? 0);
  }

  async storedBytesByAccount(): Promise<Map<string, number>> {
    const rows = this.statement(
      `SELECT account_id, SUM(bytes) AS bytes FROM ${STORED_TEXT} GROUP BY account_id`,
    ).all() as Array<{
      account_id: string;
      bytes: number;
    }>;
    return new Map(rows.map((row) => [row.account_id, Number(row.bytes)]));
  }
}
