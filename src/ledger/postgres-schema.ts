// Tables of the shared store. Money is NUMERIC (exact; pg hands it back as a string, kept a string).
// Times are epoch milliseconds in BIGINT, like the SQLite store, so rows read the same from both.

import { ROLLUP_TABLES, rollupTableSql } from "./rollups.ts";

/** The database's clock in epoch ms: leases are compared on one clock, whatever the gateways' clocks say. */
export const DATABASE_NOW_MS = "(extract(epoch from clock_timestamp()) * 1000)::bigint";

/** `qualify("keys")` → `"schema".keys`, or just `keys` when no schema was chosen. */
export type Qualify = (table: string) => string;

export function qualifier(schema: string | undefined): Qualify {
  return schema === undefined ? (table) => table : (table) => `"${schema}".${table}`;
}

export function postgresSchema(schema: string | undefined): string {
  const t = qualifier(schema);
  return `
${schema === undefined ? "" : `CREATE SCHEMA IF NOT EXISTS "${schema}";`}

CREATE TABLE IF NOT EXISTS ${t("accounts")} (
  id         TEXT PRIMARY KEY,
  balance    NUMERIC NOT NULL DEFAULT 0,
  discount   NUMERIC,
  created_at BIGINT NOT NULL
);

CREATE TABLE IF NOT EXISTS ${t("keys")} (
  id         TEXT PRIMARY KEY,
  hash       TEXT NOT NULL UNIQUE,
  prefix     TEXT NOT NULL,
  kind       TEXT NOT NULL CHECK (kind IN ('payg', 'subscription')),
  account_id TEXT NOT NULL,
  name       TEXT,
  created_at BIGINT NOT NULL,
  revoked_at BIGINT,
  limits     JSONB,
  budget     JSONB
);
-- A key's rate limits and budget (src/limits/); tables made before them lack them.
ALTER TABLE ${t("keys")} ADD COLUMN IF NOT EXISTS limits JSONB;
ALTER TABLE ${t("keys")} ADD COLUMN IF NOT EXISTS budget JSONB;
CREATE INDEX IF NOT EXISTS keys_account ON ${t("keys")} (account_id);
CREATE INDEX IF NOT EXISTS keys_prefix ON ${t("keys")} (prefix);

CREATE TABLE IF NOT EXISTS ${t("generations")} (
  id                  TEXT PRIMARY KEY,
  account_id          TEXT NOT NULL,
  key_id              TEXT NOT NULL,
  api                 TEXT NOT NULL,
  model               TEXT NOT NULL,
  streamed            BOOLEAN NOT NULL,
  created_at          BIGINT NOT NULL,
  status              TEXT NOT NULL,
  provider            TEXT,
  usage               JSONB,
  finish_reason       TEXT,
  latency_ms          INTEGER,
  generation_time_ms  INTEGER,
  request_retry_times INTEGER NOT NULL DEFAULT 0,
  final_retry         BOOLEAN NOT NULL DEFAULT false,
  error_message       TEXT,
  completed_at        BIGINT,
  rating              JSONB,
  settled_at          BIGINT,
  owner               TEXT,
  session_id          TEXT
);
-- The process that started the generation (src/ledger/owner.ts) and the client's agent session;
-- tables made before them lack them.
ALTER TABLE ${t("generations")} ADD COLUMN IF NOT EXISTS owner TEXT;
ALTER TABLE ${t("generations")} ADD COLUMN IF NOT EXISTS session_id TEXT;
-- Every read of a generation is by id (the primary key), the account checked on the row: no index
-- by account to keep up on every insert (databases made before this had one; it is dropped).
DROP INDEX IF EXISTS ${t("generations_account")};
-- Small partial indexes: start-up looks for pending rows, settlement for finished unsettled ones.
CREATE INDEX IF NOT EXISTS generations_pending ON ${t("generations")} (status) WHERE status = 'pending';
CREATE INDEX IF NOT EXISTS generations_unsettled ON ${t("generations")} (created_at, id)
  WHERE settled_at IS NULL AND usage IS NOT NULL;

-- Per-day usage rollups (src/ledger/rollups.ts), kept as generations finish and settle.
${ROLLUP_TABLES.map((table) => rollupTableSql(table, t(table.name), { money: "NUMERIC", moneyZero: "0" })).join("\n")}

-- Thinking returned beside tool calls, for clients that do not send it back (Store.keepThinking).
CREATE TABLE IF NOT EXISTS ${t("kept_thinking")} (
  account_id   TEXT NOT NULL,
  tool_call_id TEXT NOT NULL,
  blocks       TEXT NOT NULL,
  expires_at   BIGINT NOT NULL,
  PRIMARY KEY (account_id, tool_call_id)
);

-- Which gateway process is alive, by its owner id, by the database's clock: see Store.markAbandoned.
CREATE TABLE IF NOT EXISTS ${t("owner_leases")} (
  id         TEXT PRIMARY KEY,
  renewed_at BIGINT NOT NULL
);

-- Spend held by requests in flight (src/limits/spend-reservations.ts): key_id set when it counts
-- against the key's budget, account_id against the account's credit; owner, the process holding it
-- (dropped with its generations when it is known dead). Amounts are whole nano-USD; a
-- hold past expires_at (the database's clock) counts no more.
CREATE TABLE IF NOT EXISTS ${t("spend_reservations")} (
  id         TEXT PRIMARY KEY,
  key_id     TEXT,
  account_id TEXT,
  amount     BIGINT NOT NULL,
  expires_at BIGINT NOT NULL,
  owner      TEXT
);
CREATE INDEX IF NOT EXISTS spend_reservations_key ON ${t("spend_reservations")} (key_id) WHERE key_id IS NOT NULL;
CREATE INDEX IF NOT EXISTS spend_reservations_account ON ${t("spend_reservations")} (account_id)
  WHERE account_id IS NOT NULL;
-- Settled spend still held a few seconds, summed per scope ('key:…', 'account:…') and bucket (the
-- start of its SETTLED_BUCKET_MS, by when it settled), with when its last settlement was made
-- (src/ledger/store-rules.ts).
CREATE TABLE IF NOT EXISTS ${t("spend_settled")} (
  scope      TEXT NOT NULL,
  bucket     BIGINT NOT NULL,
  amount     BIGINT NOT NULL,
  last_at    BIGINT NOT NULL,
  expires_at BIGINT NOT NULL,
  PRIMARY KEY (scope, bucket)
);
`;
}
