// The admin API's query parameters: each checked and turned into what the store takes, a bad one a
// 400 naming it. Times are ISO 8601 dates or date-times (or epoch ms); usage is by whole UTC days.

import { generationIdBound, generationIdTime } from "../gateway/ids.ts";
import { invalid } from "../ir/errors.ts";
import { storableText } from "../ledger/columns.ts";
import { epochDay, type UsageFilter, type UsageGroup } from "../ledger/rollups.ts";
import type { GenerationFilter, GenerationStatus } from "../ledger/types.ts";

export type Query = Record<string, unknown>;

const STATUSES: readonly GenerationStatus[] = ["pending", "completed", "failed", "cancelled", "interrupted"];
const GROUPS: readonly UsageGroup[] = ["day", "model", "provider", "key", "account"];
const MAX_PAGE = 200;
/** The longest usage range, in days (rollup rows read stay bounded). */
const MAX_DAYS = 400;

export function text(query: Query, name: string): string | undefined {
  const value = query[name];
  if (value === undefined || value === "") return undefined;
  if (typeof value !== "string" || value.length > 256)
    throw invalid(name, "must be given once, as text of at most 256 characters");
  return storableText(name, value);
}

/** A time as epoch ms: an ISO 8601 date or date-time, or a number of epoch ms. */
export function time(query: Query, name: string): number | undefined {
  const value = text(query, name);
  if (value === undefined) return undefined;
  const ms = /^\d{1,16}$/.test(value) ? Number(value) : Date.parse(value);
  if (!Number.isFinite(ms) || ms < 0)
    throw invalid(name, `"${value}" is not a date (YYYY-MM-DD or ISO 8601)`);
  return ms;
}

function integer(query: Query, name: string, fallback: number, min: number, max: number): number {
  const value = text(query, name);
  if (value === undefined) return fallback;
  if (!/^\d{1,6}$/.test(value) || Number(value) < min || Number(value) > max)
    throw invalid(name, `must be a whole number from ${min} to ${max}`);
  return Number(value);
}

function oneOf<T extends string>(query: Query, name: string, allowed: readonly T[]): T | undefined {
  const value = text(query, name);
  if (value === undefined) return undefined;
  if (!allowed.includes(value as T)) throw invalid(name, `must be one of ${allowed.join(", ")}`);
  return value as T;
}

/** GET /generations: filters, page size and cursor (the last id of the previous page). */
export function generationFilter(query: Query): GenerationFilter {
  const from = time(query, "from");
  const to = time(query, "to");
  const cursor = text(query, "cursor");
  if (cursor !== undefined && generationIdTime(cursor) === undefined)
    throw invalid("cursor", "is not a cursor this API gave (a generation id)");
  const end = to === undefined ? undefined : generationIdBound(to + 1);
  return {
    idAtLeast: from === undefined ? undefined : generationIdBound(from),
    idBefore: cursor !== undefined && (end === undefined || cursor < end) ? cursor : end,
    accountId: text(query, "account"),
    keyId: text(query, "key"),
    model: text(query, "model"),
    provider: text(query, "provider"),
    status: oneOf(query, "status", STATUSES),
    limit: integer(query, "limit", 50, 1, MAX_PAGE),
  };
}

/** GET /usage: the days (default: the last 30, today included), filters and grouping. */
export function usageQuery(query: Query, now = Date.now()): { filter: UsageFilter; group: UsageGroup } {
  const toDay = epochDay(time(query, "to") ?? now);
  const fromDay = epochDay(time(query, "from") ?? now - 29 * 86_400_000);
  if (fromDay > toDay) throw invalid("from", "must not be after to");
  if (toDay - fromDay >= MAX_DAYS) throw invalid("from", `the range may span at most ${MAX_DAYS} days`);
  return {
    filter: {
      fromDay,
      toDay,
      accountId: text(query, "account"),
      keyId: text(query, "key"),
      model: text(query, "model"),
      provider: text(query, "provider"),
    },
    group: oneOf(query, "group_by", GROUPS) ?? "day",
  };
}
