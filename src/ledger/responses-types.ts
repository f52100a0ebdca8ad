// Stored responses (the Responses API's memory): one row per stored response, its content one
// opaque text the gateway seals (src/ledger/content-seal.ts) before the store sees it, and an index of
// the item ids it holds so that an `item_reference` finds its response. Both stores implement it
// (responses-sqlite.ts, responses-postgres.ts) over the tables and statements written here once,
// and share one contract test. A streamed background run's events are kept beside its response, in
// batches, for a resume through any process (src/gateway/run-events.ts).

import type { Qualify, SqlDialect } from "./sql-dialect.ts";

export interface StoredResponseRow {
  /** The generation id: the response's `id`. */
  id: string;
  accountId: string;
  /** Epoch ms. */
  createdAt: number;
  model: string;
  status: string;
  previousResponseId?: string;
  /** The input items and the response object: JSON (never a raw NUL, which PostgreSQL refuses), maybe sealed. */
  content: string;
  /** Ids of the items it holds (input and output), for item_reference. */
  itemIds: string[];
  /** A background run's process (src/ledger/owner.ts): its runs are failed once it is gone. */
  owner?: string;
}

/** Some of a streamed background run's events, as one flush wrote them. */
export interface StoredEventBatch {
  /** The `sequence_number` of its first and of its last event. */
  first: number;
  last: number;
  /** The events as JSON (`[sequence, SSE text]` pairs), maybe sealed. */
  content: string;
}

/** A background run not yet ended. */
export const RUNNING_STATUSES = ["queued", "in_progress"] as const;

/**
 * The condition on a run not yet ended, written out (not a parameter) so that both stores read it
 * from the partial index `stored_responses_running` (responsesSchema): the lease sweep looks for
 * them every few seconds, and must not read every stored response each time.
 */
export const RUNNING_RUNS = `status IN (${RUNNING_STATUSES.map((s) => `'${s}'`).join(", ")})`;

export interface ResponseStore {
  /** Creates its tables: a migration step of its own, run after the ledger's. */
  migrate(): Promise<void>;
  /** Committed when it resolves (read-your-writes through any process). Replaces a row of the same id. */
  saveResponse(row: StoredResponseRow): Promise<void>;
  /** Only the account's own: another account's id is undefined, like an unknown one. */
  getResponse(id: string, accountId: string): Promise<StoredResponseRow | undefined>;
  /**
   * The response `id` and those it continues (`previous_response_id`, then theirs), newest first, at
   * most `limit`: one query walking the primary key, the account's rows only. Empty when `id` is not
   * the account's; a gap (an older response deleted) ends it there.
   */
  getChain(id: string, accountId: string, limit: number): Promise<StoredResponseRow[]>;
  /**
   * Adds a batch of a run's events, committed when it resolves; nothing once the response is gone
   * (deleted while it ran), so no event outlives its response.
   */
  appendEvents(responseId: string, accountId: string, batch: StoredEventBatch): Promise<void>;
  /** The account's batches of the response holding an event after `after`, in order. */
  eventsAfter(responseId: string, accountId: string, after: number): Promise<StoredEventBatch[]>;
  /** False when the account has no such response. Its events go with it. */
  deleteResponse(id: string, accountId: string): Promise<boolean>;
  /** The id of the account's stored response that holds the item, if any. */
  responseOfItem(itemId: string, accountId: string): Promise<string | undefined>;
  /** Deletes up to `limit` responses whose id is < `idBefore`, with their events (retention); returns how many went. */
  deleteResponses(idBefore: string, limit: number): Promise<number>;
  /** Stored content per account (responses and their events), in bytes of its stored text. */
  storedBytes(accountId: string): Promise<number>;
  /** The same for every account that has stored responses, by account id (the dashboard's usage page). */
  storedBytesByAccount(): Promise<Map<string, number>>;
  /** The status column, set only while it is one of `from`; false when it was not. */
  setStatus(id: string, accountId: string, status: string, from: readonly string[]): Promise<boolean>;
  /**
   * Background runs still queued or in progress whose process has not renewed its lease for
   * `silentForMs` (owner_leases, by the database's clock), or never did, are failed; returns how many.
   */
  markAbandonedRuns(silentForMs: number): Promise<number>;
  /**
   * The deployment's secret of that name (`gateway_secrets`): `fresh` is kept when there is none yet,
   * and whichever process keeps its own first, every process of the store reads that one.
   */
  secret(name: string, fresh: string): Promise<string>;
  /** Background runs still queued or in progress of these owners (processes known dead: a worker that exited) are failed; returns how many. */
  failRunsOf(owners: readonly string[]): Promise<number>;
}

/** Item ids kept in the index: a client's own ids are free text, so only plain, short ones. */
export function indexableItemIds(ids: Iterable<string>): string[] {
  return [...new Set([...ids].filter((id) => id.length > 0 && id.length <= 256 && !id.includes("\u0000")))];
}

/**
 * A stored response's columns, in the order both stores insert them: id, account_id, created_at,
 * model, status, previous_response_id, content, owner.
 */
export function storedResponseValues(row: StoredResponseRow): Array<string | number | null> {
  return [
    row.id,
    row.accountId,
    row.createdAt,
    row.model,
    row.status,
    row.previousResponseId ?? null,
    row.content,
    row.owner ?? null,
  ];
}

/** A batch row of either store (pg gives BIGINT as a string). */
export function storedEventBatch(row: Record<string, unknown>): StoredEventBatch {
  return { first: Number(row.first_sequence), last: Number(row.last_sequence), content: String(row.content) };
}

/** A row of either store (pg gives BIGINT as a string) → StoredResponseRow; item ids are not read back. */
export function storedResponse(row: Record<string, unknown>): StoredResponseRow {
  const stored: StoredResponseRow = {
    id: String(row.id),
    accountId: String(row.account_id),
    createdAt: Number(row.created_at),
    model: String(row.model),
    status: String(row.status),
    content: String(row.content),
    itemIds: [],
  };
  if (row.previous_response_id != null) stored.previousResponseId = String(row.previous_response_id);
  if (row.owner != null) stored.owner = String(row.owner);
  return stored;
}

/** The tables: a migration step of their own, run after the ledger's. */
export function responsesSchema(t: Qualify, d: SqlDialect): string {
  return `
CREATE TABLE IF NOT EXISTS ${t("stored_responses")} (
  id                   TEXT PRIMARY KEY,
  account_id           TEXT NOT NULL,
  created_at           ${d.int64} NOT NULL,
  model                TEXT NOT NULL,
  status               TEXT NOT NULL,
  previous_response_id TEXT,
  content              TEXT NOT NULL,
  owner                TEXT
)${d.keyedTable};
CREATE TABLE IF NOT EXISTS ${t("stored_response_items")} (
  account_id  TEXT NOT NULL,
  id          TEXT NOT NULL,
  response_id TEXT NOT NULL,
  PRIMARY KEY (account_id, id)
)${d.keyedTable};
CREATE INDEX IF NOT EXISTS stored_response_items_response ON ${t("stored_response_items")} (response_id);
-- Background runs not yet ended, by the process running them (markAbandonedRuns, failRunsOf): few.
CREATE INDEX IF NOT EXISTS stored_responses_running ON ${t("stored_responses")} (owner) WHERE ${RUNNING_RUNS};
CREATE TABLE IF NOT EXISTS ${t("stored_response_events")} (
  response_id    TEXT NOT NULL,
  first_sequence ${d.int64} NOT NULL,
  last_sequence  ${d.int64} NOT NULL,
  account_id     TEXT NOT NULL,
  content        TEXT NOT NULL,
  PRIMARY KEY (response_id, first_sequence)
)${d.keyedTable};
CREATE TABLE IF NOT EXISTS ${t("gateway_secrets")} (
  name       TEXT PRIMARY KEY,
  value      TEXT NOT NULL,
  created_at ${d.int64} NOT NULL
)${d.keyedTable};
`;
}

/** A stored response's columns, in storedResponseValues' order. */
export const STORED_RESPONSE_COLUMNS =
  "id, account_id, created_at, model, status, previous_response_id, content, owner";

/** One of the account's stored responses (params: id, account). */
export function responseSql(t: Qualify, p: (n: number) => string): string {
  return `SELECT ${STORED_RESPONSE_COLUMNS} FROM ${t("stored_responses")} WHERE id = ${p(1)} AND account_id = ${p(2)}`;
}

/**
 * A chain, newest first (ResponseStore.getChain; params: id, account, limit): one recursive query
 * walking the primary key, the account's rows only.
 */
export function chainSql(t: Qualify, p: (n: number) => string): string {
  const table = t("stored_responses");
  const r = STORED_RESPONSE_COLUMNS.split(", ")
    .map((c) => `r.${c}`)
    .join(", ");
  return `WITH RECURSIVE chain AS (
    SELECT ${STORED_RESPONSE_COLUMNS}, 1 AS depth FROM ${table} WHERE id = ${p(1)} AND account_id = ${p(2)}
    UNION ALL
    SELECT ${r}, chain.depth + 1
      FROM ${table} r JOIN chain ON r.id = chain.previous_response_id AND r.account_id = chain.account_id
     WHERE chain.depth < ${p(3)}
  )
  SELECT ${STORED_RESPONSE_COLUMNS} FROM chain ORDER BY depth`;
}
