// Tables of the embedded store. Money is TEXT holding an exact decimal (SQLite has no decimal type;
// its NUMERIC affinity would turn "0.1" into a binary double). Times are epoch milliseconds.

import { ROLLUP_TABLES, rollupTableSql } from "./rollups.ts";

export const sqliteSchema = `
CREATE TABLE IF NOT EXISTS accounts (
  id         TEXT PRIMARY KEY,
  balance    TEXT NOT NULL DEFAULT '0',
  discount   TEXT,
  created_at INTEGER NOT NULL
);

CREATE TABLE IF NOT EXISTS keys (
  id         TEXT PRIMARY KEY,
  hash       TEXT NOT NULL UNIQUE,
  prefix     TEXT NOT NULL,
  kind       TEXT NOT NULL CHECK (kind IN ('payg', 'subscription')),
  account_id TEXT NOT NULL,
  name       TEXT,
  created_at INTEGER NOT NULL,
  revoked_at INTEGER,
  limits     TEXT,
  budget     TEXT
);
CREATE INDEX IF NOT EXISTS keys_account ON keys (account_id);
CREATE INDEX IF NOT EXISTS keys_prefix ON keys (prefix);

CREATE TABLE IF NOT EXISTS generations (
  id                  TEXT PRIMARY KEY,
  account_id          TEXT NOT NULL,
  key_id              TEXT NOT NULL,
  api                 TEXT NOT NULL,
  model               TEXT NOT NULL,
  streamed            INTEGER NOT NULL,
  created_at          INTEGER NOT NULL,
  status              TEXT NOT NULL,
  provider            TEXT,
  usage               TEXT,
  finish_reason       TEXT,
  latency_ms          INTEGER,
  generation_time_ms  INTEGER,
  request_retry_times INTEGER NOT NULL DEFAULT 0,
  final_retry         INTEGER NOT NULL DEFAULT 0,
  error_message       TEXT,
  completed_at        INTEGER,
  rating              TEXT,
  settled_at          INTEGER,
  owner               TEXT,
  session_id          TEXT
) WITHOUT ROWID;
-- Every read of a generation is by id (the primary key, which holds the row itself: WITHOUT ROWID),
-- the account checked on the row, so a batch of new rows updates one B-tree, not three. Databases
-- made before this had an index by account; it is dropped.
DROP INDEX IF EXISTS generations_account;
-- Small partial indexes: start-up looks for pending rows, settlement for finished unsettled ones.
CREATE INDEX IF NOT EXISTS generations_pending ON generations (status) WHERE status = 'pending';
CREATE INDEX IF NOT EXISTS generations_unsettled ON generations (created_at, id)
  WHERE settled_at IS NULL AND usage IS NOT NULL;

-- Per-day usage rollups (src/ledger/rollups.ts), kept as generations finish and settle.
${ROLLUP_TABLES.map((table) => rollupTableSql(table, table.name, { money: "TEXT", moneyZero: "'0'", suffix: " WITHOUT ROWID" })).join("\n")}

-- Thinking returned beside tool calls, for clients that do not send it back (Store.keepThinking).
CREATE TABLE IF NOT EXISTS kept_thinking (
  account_id   TEXT NOT NULL,
  tool_call_id TEXT NOT NULL,
  blocks       TEXT NOT NULL,
  expires_at   INTEGER NOT NULL,
  PRIMARY KEY (account_id, tool_call_id)
) WITHOUT ROWID;

-- Which gateway process is alive, by its owner id (src/ledger/owner.ts); see Store.markAbandoned.
CREATE TABLE IF NOT EXISTS owner_leases (
  id         TEXT PRIMARY KEY,
  renewed_at INTEGER NOT NULL
) WITHOUT ROWID;

-- Spend held by requests in flight (src/limits/spend-reservations.ts): key_id set when it counts
-- against the key's budget, account_id against the account's credit; owner, the process holding it
-- (dropped with its generations when it is known dead). Amounts are whole nano-USD; a
-- hold past expires_at (epoch ms) counts no more.
CREATE TABLE IF NOT EXISTS spend_reservations (
  id         TEXT PRIMARY KEY,
  key_id     TEXT,
  account_id TEXT,
  amount     INTEGER NOT NULL,
  expires_at INTEGER NOT NULL,
  owner      TEXT
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS spend_reservations_key ON spend_reservations (key_id) WHERE key_id IS NOT NULL;
CREATE INDEX IF NOT EXISTS spend_reservations_account ON spend_reservations (account_id)
  WHERE account_id IS NOT NULL;
-- Settled spend still held a few seconds, summed per scope ('key:…', 'account:…') and bucket (the
-- start of its SETTLED_BUCKET_MS, by when it settled), with when its last settlement was made
-- (src/ledger/store-rules.ts).
CREATE TABLE IF NOT EXISTS spend_settled (
  scope      TEXT NOT NULL,
  bucket     INTEGER NOT NULL,
  amount     INTEGER NOT NULL,
  last_at    INTEGER NOT NULL,
  expires_at INTEGER NOT NULL,
  PRIMARY KEY (scope, bucket)
) WITHOUT ROWID;
`;

/** Columns added since the first release: migrate() adds those an existing file lacks. */
export const sqliteAddedColumns = [
  { table: "generations", column: "owner", type: "TEXT" },
  { table: "generations", column: "session_id", type: "TEXT" },
  { table: "keys", column: "limits", type: "TEXT" },
  { table: "keys", column: "budget", type: "TEXT" },
] as const;
