// Both stores use the same table and column names; these functions turn a database row (SQLite gives
// numbers and JSON text, pg gives BIGINT as strings and JSONB as objects) into the rows of types.ts.

import type { Usage } from "../ir/usage.ts";
import { canonicalDecimal } from "./decimal.ts";
import type { AccountRow, GenerationRow, GenerationStatus, KeyKind, KeyRow, Rating } from "./types.ts";

type Column = string | number | bigint | boolean | object | null | undefined;
export type Columns = Record<string, Column>;

export const generationColumnList =
  "id, account_id, key_id, api, model, streamed, created_at, status, provider, usage, finish_reason, " +
  "latency_ms, generation_time_ms, request_retry_times, final_retry, error_message, completed_at, " +
  "rating, settled_at";

export const keyColumnList = "id, hash, prefix, kind, account_id, name, created_at, revoked_at";
export const accountColumnList = "id, balance, discount, created_at";

/** Error texts come from upstreams; keep the ledger row small and storable (PostgreSQL rejects NUL). */
const maxErrorMessageLength = 2000;

export function storableErrorMessage(message: string | undefined): string | null {
  if (message === undefined) return null;
  // biome-ignore lint/suspicious/noControlCharactersInRegex: NUL is exactly what must go
  return message.replace(/\u0000/g, "").slice(0, maxErrorMessageLength);
}

function optionalNumber(value: Column): number | undefined {
  return value === null || value === undefined ? undefined : Number(value);
}

function optionalString(value: Column): string | undefined {
  return value === null || value === undefined ? undefined : String(value);
}

function flag(value: Column): boolean {
  return value === true || value === 1 || value === 1n || value === "1" || value === "t";
}

function json<T>(value: Column): T | undefined {
  if (value === null || value === undefined) return undefined;
  return (typeof value === "string" ? JSON.parse(value) : value) as T;
}

/** Leaves absent fields out, rather than present with `undefined`, so rows compare cleanly. */
function withoutUndefined<T extends object>(row: T): T {
  for (const key of Object.keys(row) as Array<keyof T>) if (row[key] === undefined) delete row[key];
  return row;
}

export function generationFromColumns(c: Columns): GenerationRow {
  return withoutUndefined<GenerationRow>({
    id: String(c.id),
    accountId: String(c.account_id),
    keyId: String(c.key_id),
    api: String(c.api) as GenerationRow["api"],
    model: String(c.model),
    streamed: flag(c.streamed),
    createdAt: Number(c.created_at),
    status: String(c.status) as GenerationStatus,
    provider: optionalString(c.provider),
    usage: json<Usage>(c.usage),
    finishReason: optionalString(c.finish_reason),
    latencyMs: optionalNumber(c.latency_ms),
    generationTimeMs: optionalNumber(c.generation_time_ms),
    requestRetryTimes: Number(c.request_retry_times ?? 0),
    finalRetry: flag(c.final_retry),
    errorMessage: optionalString(c.error_message),
    completedAt: optionalNumber(c.completed_at),
    rating: json<Rating>(c.rating),
    settledAt: optionalNumber(c.settled_at),
  });
}

export function keyFromColumns(c: Columns): KeyRow {
  return withoutUndefined<KeyRow>({
    id: String(c.id),
    hash: String(c.hash),
    prefix: String(c.prefix),
    kind: String(c.kind) as KeyKind,
    accountId: String(c.account_id),
    createdAt: Number(c.created_at),
    revokedAt: optionalNumber(c.revoked_at),
    name: optionalString(c.name),
  });
}

export function accountFromColumns(c: Columns): AccountRow {
  return withoutUndefined<AccountRow>({
    id: String(c.id),
    balance: canonicalDecimal(String(c.balance)),
    discount:
      c.discount === null || c.discount === undefined ? undefined : canonicalDecimal(String(c.discount)),
    createdAt: Number(c.created_at),
  });
}

/** Durations and times are whole milliseconds in both stores (a PostgreSQL INTEGER refuses 12.5). */
export function wholeMs(value: number): number;
export function wholeMs(value: number | undefined): number | null;
export function wholeMs(value: number | undefined): number | null {
  return value === undefined ? null : Math.round(value);
}
