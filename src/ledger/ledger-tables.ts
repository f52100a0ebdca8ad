// The ledger's tables, written once for both stores over their dialect (sql-dialect.ts): what each
// store adds of its own (a schema, columns added since) is in sqlite-schema.ts and postgres-schema.ts.
// Times are epoch milliseconds in both, so rows read the same from either.

import { ROLLUP_TABLES, rollupTableSql } from "./rollups.ts";
import type { Qualify, SqlDialect } from "./sql-dialect.ts";

export function ledgerTables(t: Qualify, d: SqlDialect): string {
  return `
CREATE TABLE IF NOT EXISTS ${t("accounts")} (
  id         TEXT PRIMARY KEY,
  balance    ${d.money} NOT NULL DEFAULT ${d.moneyZero},
  discount   ${d.money},
  created_at ${d.int64} NOT NULL
);

CREATE TABLE IF NOT EXISTS ${t("keys")} (
  id         TEXT PRIMARY KEY,
  hash       TEXT NOT NULL UNIQUE,
  prefix     TEXT NOT NULL,
  kind       TEXT NOT NULL CHECK (kind IN ('payg', 'subscription')),
  account_id TEXT NOT NULL,
  name       TEXT,
  created_at ${d.int64} NOT NULL,
  revoked_at ${d.int64},
  limits     ${d.json},
  budget     ${d.json}
);
CREATE INDEX IF NOT EXISTS keys_account ON ${t("keys")} (account_id);
CREATE INDEX IF NOT EXISTS keys_prefix ON ${t("keys")} (prefix);

CREATE TABLE IF NOT EXISTS ${t("generations")} (
  id                  TEXT PRIMARY KEY,
  account_id          TEXT NOT NULL,
  key_id              TEXT NOT NULL,
  api                 TEXT NOT NULL,
  model               TEXT NOT NULL,
  streamed            ${d.bool} NOT NULL,
  created_at          ${d.int64} NOT NULL,
  status              TEXT NOT NULL,
  provider            TEXT,
  usage               ${d.json},
  finish_reason       TEXT,
  latency_ms          INTEGER,
  generation_time_ms  INTEGER,
  request_retry_times INTEGER NOT NULL DEFAULT 0,
  final_retry         ${d.bool} NOT NULL DEFAULT ${d.falseValue},
  error_message       TEXT,
  completed_at        ${d.int64},
  rating              ${d.json},
  settled_at          ${d.int64},
  owner               TEXT,
  session_id          TEXT
)${d.keyedTable};
-- Every read of a generation is by id (the primary key), the account checked on the row: no index
-- by account to keep up on every insert (databases made before this had one; it is dropped).
DROP INDEX IF EXISTS ${t("generations_account")};
-- Small partial indexes: start-up looks for pending rows, settlement for finished unsettled ones.
CREATE INDEX IF NOT EXISTS generations_pending ON ${t("generations")} (status) WHERE status = 'pending';
CREATE INDEX IF NOT EXISTS generations_unsettled ON ${t("generations")} (created_at, id)
  WHERE settled_at IS NULL AND usage IS NOT NULL;

-- Per-day usage rollups (src/ledger/rollups.ts), kept as generations finish and settle.
${ROLLUP_TABLES.map((table) => rollupTableSql(table, t(table.name), d)).join("\n")}

-- Thinking returned beside tool calls, for clients that do not send it back (Store.keepThinking).
CREATE TABLE IF NOT EXISTS ${t("kept_thinking")} (
  account_id   TEXT NOT NULL,
  tool_call_id TEXT NOT NULL,
  blocks       TEXT NOT NULL,
  expires_at   ${d.int64} NOT NULL,
  PRIMARY KEY (account_id, tool_call_id)
)${d.keyedTable};

-- Which gateway process is alive, by its owner id (src/ledger/owner.ts); see Store.markAbandoned.
CREATE TABLE IF NOT EXISTS ${t("owner_leases")} (
  id         TEXT PRIMARY KEY,
  renewed_at ${d.int64} NOT NULL
)${d.keyedTable};

-- Spend held by requests in flight (src/limits/spend-reservations.ts): key_id set when it counts
-- against the key's budget, account_id against the account's credit; owner, the process holding it
-- (dropped with its generations when it is known dead). Amounts are whole nano-USD; a
-- hold past expires_at (epoch ms; PostgreSQL's by the database's clock) counts no more.
CREATE TABLE IF NOT EXISTS ${t("spend_reservations")} (
  id         TEXT PRIMARY KEY,
  key_id     TEXT,
  account_id TEXT,
  amount     ${d.int64} NOT NULL,
  expires_at ${d.int64} NOT NULL,
  owner      TEXT
)${d.keyedTable};
CREATE INDEX IF NOT EXISTS spend_reservations_key ON ${t("spend_reservations")} (key_id) WHERE key_id IS NOT NULL;
CREATE INDEX IF NOT EXISTS spend_reservations_account ON ${t("spend_reservations")} (account_id)
  WHERE account_id IS NOT NULL;
-- Settled spend still held a few seconds, summed per scope ('key:…', 'account:…') and bucket (the
-- start of its SETTLED_BUCKET_MS, by when it settled), with when its last settlement was made
-- (src/ledger/store-rules.ts).
CREATE TABLE IF NOT EXISTS ${t("spend_settled")} (
  scope      TEXT NOT NULL,
  bucket     ${d.int64} NOT NULL,
  amount     ${d.int64} NOT NULL,
  last_at    ${d.int64} NOT NULL,
  expires_at ${d.int64} NOT NULL,
  PRIMARY KEY (scope, bucket)
)${d.keyedTable};
`;
}

/**
 * Columns added since the first release, which tables made before them lack: a key's rate limits and
 * budget (src/limits/), the process that started a generation (src/ledger/owner.ts) and the
 * client's agent session. Each store adds those missing as it migrates.
 */
export function addedColumns(d: SqlDialect): Array<{ table: string; column: string; type: string }> {
  return [
    { table: "generations", column: "owner", type: "TEXT" },
    { table: "generations", column: "session_id", type: "TEXT" },
    { table: "keys", column: "limits", type: d.json },
    { table: "keys", column: "budget", type: d.json },
  ];
}
