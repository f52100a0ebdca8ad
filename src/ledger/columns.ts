// Both stores use the same table and column names; these functions turn a database row (SQLite gives
// numbers and JSON text, pg gives BIGINT as strings and JSONB as objects) into the rows of types.ts.

import { addDecimals, canonicalDecimal } from "../billing/money.ts";
import { invalid } from "../ir/errors.ts";
import { emptyUsage, type Usage } from "../ir/usage.ts";
import type {
  AccountRow,
  GenerationFilter,
  GenerationRow,
  GenerationStatus,
  KeyBudget,
  KeyKind,
  KeyLimits,
  KeyRow,
  Rating,
} from "./types.ts";

type Column = string | number | bigint | boolean | object | null | undefined;
export type Columns = Record<string, Column>;

export const generationColumnList =
  "id, account_id, key_id, api, model, streamed, created_at, status, provider, usage, finish_reason, " +
  "latency_ms, generation_time_ms, request_retry_times, final_retry, error_message, completed_at, " +
  "rating, settled_at, session_id";

export const keyColumnList =
  "id, hash, prefix, kind, account_id, name, created_at, revoked_at, limits, budget";
export const accountColumnList = "id, balance, discount, created_at";

/** Error texts come from upstreams; keep the ledger row small and storable (PostgreSQL rejects NUL). */
const maxErrorMessageLength = 2000;

export function storableErrorMessage(message: string | undefined): string | null {
  if (message === undefined) return null;
  // A cut through a surrogate pair would leave half of it, which PostgreSQL's JSON refuses (the
  // batch travels as JSON): toWellFormed makes it U+FFFD.
  return message.replaceAll("\u0000", "").slice(0, maxErrorMessageLength).toWellFormed();
}

/**
 * A client's text the store reads or writes as it is (an id to look up, a filter, a key's name):
 * PostgreSQL's text holds no NUL character and answers one with an error, so it is refused here, a
 * 400 naming the field, on either store. (No id or name the gateway makes holds one.)
 */
export function storableText(field: string, value: string): string {
  if (value.includes("\u0000")) throw invalid(field, "must not contain a NUL character (U+0000)");
  return value;
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
    usage: usageFromColumn(c.usage),
    finishReason: optionalString(c.finish_reason),
    latencyMs: optionalNumber(c.latency_ms),
    generationTimeMs: optionalNumber(c.generation_time_ms),
    requestRetryTimes: Number(c.request_retry_times ?? 0),
    finalRetry: flag(c.final_retry),
    errorMessage: optionalString(c.error_message),
    completedAt: optionalNumber(c.completed_at),
    rating: ratingFromColumn(c.rating),
    settledAt: optionalNumber(c.settled_at),
    sessionId: optionalString(c.session_id),
  });
}

/** A key's values in the order of keyColumnList, for an INSERT. */
export function keyColumnValues(key: KeyRow): Array<string | number | null> {
  return [
    key.id,
    key.hash,
    key.prefix,
    key.kind,
    key.accountId,
    key.name ?? null,
    wholeMs(key.createdAt),
    wholeMs(key.revokedAt),
    limitsColumn(key.limits),
    limitsColumn(key.budget),
  ];
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
    limits: json<KeyLimits>(c.limits),
    budget: json<KeyBudget>(c.budget),
  });
}

/** A key's limits or budget as its column holds it (JSON; none is NULL). */
export function limitsColumn(value: KeyLimits | KeyBudget | undefined): string | null {
  return value === undefined || Object.keys(value).length === 0 ? null : JSON.stringify(value);
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

// ── usage and rating columns ──────────────────────────────────────────────────────────────────────
// Every generation writes both, so they are kept small: a ledger row's size is most of its cost.

/** Usage as JSON with its zero counts left out (`{"promptTokens":9,"completionTokens":10}`). */
export function usageColumn(usage: Usage): string {
  // Written out member by member (what JSON.stringify of the non-zero counts writes), without the
  // object of counts in between: every generation writes one.
  let text = "";
  for (const key in usage) {
    const n = usage[key as keyof Usage];
    if (n !== undefined && n !== 0) text += `${text ? "," : "{"}${JSON.stringify(key)}:${JSON.stringify(n)}`;
  }
  return text ? `${text}}` : "{}";
}

function usageFromColumn(value: Column): Usage | undefined {
  const counts = json<Partial<Usage>>(value);
  return counts === undefined ? undefined : { ...emptyUsage(), ...counts };
}

/** One fee item in a rating column: code, rate, origin amount, and discount and bill amounts when discounted. */
type RatedItem = [string, string, string] | [string, string, string, string, string];

/**
 * A rating as JSON `[priceVersion, item…]`, each item `[feeItemCode, rate, originAmount]` or, when
 * discounted, `[feeItemCode, rate, originAmount, discountAmount, billAmount]`. The totals are not
 * stored: they are the items' exact sums (src/billing/rate.ts), added up again when read.
 */
export function ratingColumn(rating: Rating): string {
  const items: RatedItem[] = rating.ratingDetails.map((d) =>
    d.discountAmount === "0"
      ? [d.feeItemCode, d.rate, d.originAmount]
      : [d.feeItemCode, d.rate, d.originAmount, d.discountAmount, d.billAmount],
  );
  return JSON.stringify([rating.priceVersion, ...items]);
}

function ratingFromColumn(value: Column): Rating | undefined {
  const stored = json<unknown>(value);
  if (stored === undefined) return undefined;
  if (!Array.isArray(stored)) return stored as Rating; // written whole, as an object, by earlier versions
  const [priceVersion, ...items] = stored as [string, ...RatedItem[]];
  const ratingDetails = items.map(([feeItemCode, rate, originAmount, discountAmount, billAmount]) => ({
    feeItemCode,
    rate,
    originAmount,
    discountAmount: discountAmount ?? "0",
    billAmount: billAmount ?? originAmount,
  }));
  const total = (pick: (d: Rating["ratingDetails"][number]) => string) =>
    ratingDetails.reduce((sum, d) => addDecimals(sum, pick(d)), "0");
  const billAmount = total((d) => d.billAmount);
  return {
    usage: billAmount,
    billAmount,
    discountAmount: total((d) => d.discountAmount),
    originAmount: total((d) => d.originAmount),
    priceVersion,
    ratingDetails,
  };
}

/**
 * `id >= $1 AND model = $2 …` of the conditions whose value is given, each written "column op", and
 * the values in placeholder order; `param(n)` spells the n-th placeholder (`?` or `$n`).
 */
export function whereOf(
  conditions: Array<[string, string | number | undefined]>,
  param: (n: number) => string,
): { sql: string; values: Array<string | number> } {
  const values: Array<string | number> = [];
  const parts: string[] = [];
  for (const [condition, value] of conditions) {
    if (value === undefined) continue;
    values.push(value);
    parts.push(`${condition} ${param(values.length)}`);
  }
  return { sql: parts.length === 0 ? "TRUE" : parts.join(" AND "), values };
}

/** The WHERE clause of an operator's listing (GenerationFilter). */
export function generationWhere(filter: GenerationFilter, param: (n: number) => string) {
  return whereOf(
    [
      ["id >=", filter.idAtLeast],
      ["id <", filter.idBefore],
      ["account_id =", filter.accountId],
      ["key_id =", filter.keyId],
      ["model =", filter.model],
      ["provider =", filter.provider],
      ["status =", filter.status],
    ],
    param,
  );
}

/** Rows retention may delete: done (not pending) and, when they have usage, settled. */
export const deletableGeneration = "status <> 'pending' AND (settled_at IS NOT NULL OR usage IS NULL)";
