// How the admin API writes what the store holds. Money is an exact decimal string ("0.000123"): the
// dashboard shows it as written, never through a binary double. Times are ISO 8601.

import { generationRecord } from "../gateway/lookup.ts";
import {
  COUNTER_COLUMNS,
  dayStartMs,
  histograms,
  mergeSums,
  percentileMs,
  type UsageGroup,
  type UsageSums,
} from "../ledger/rollups.ts";
import type { AccountRow, GenerationRow, KeyRow } from "../ledger/types.ts";

const iso = (ms: number | undefined) => (ms === undefined ? null : new Date(ms).toISOString());

/** The lookup's record, plus what only an operator sees: owner, attempts, timings, tokens, cost. */
export function adminGeneration(row: GenerationRow): Record<string, unknown> {
  const total = row.latencyMs === undefined ? null : row.latencyMs + (row.generationTimeMs ?? 0);
  return {
    ...generationRecord(row, true),
    accountId: row.accountId,
    keyId: row.keyId,
    cost: row.rating?.billAmount ?? null,
    attempts: row.requestRetryTimes + 1,
    errorMessage: row.errorMessage ?? null,
    timings: {
      createdAt: iso(row.createdAt),
      timeToFirstTokenMs: row.latencyMs ?? null,
      generationTimeMs: row.generationTimeMs ?? null,
      totalMs: total,
      completedAt: iso(row.completedAt),
      settledAt: iso(row.settledAt),
    },
    tokens: row.usage ?? null,
  };
}

/** A key's settled cost (exact USD strings) over the periods a budget can count. */
export interface KeySpend {
  today: string;
  month: string;
  total: string;
}

/**
 * Spend held against a budget or credit (src/limits/spend-reservations.ts), exact USD strings:
 * `reserved` by requests in flight, `settling` settled lately and held a few seconds more.
 */
export interface HeldUsd {
  reserved: string;
  settling: string;
}

const NOTHING_HELD: HeldUsd = { reserved: "0", settling: "0" };

export function adminKey(row: KeyRow, spend?: KeySpend, held?: HeldUsd): Record<string, unknown> {
  return {
    id: row.id,
    prefix: row.prefix,
    name: row.name ?? null,
    account: row.accountId,
    kind: row.kind,
    createdAt: iso(row.createdAt),
    revokedAt: iso(row.revokedAt),
    limits: row.limits ?? null,
    budget: row.budget ?? null,
    spend: { ...(spend ?? { today: "0", month: "0", total: "0" }), ...(held ?? NOTHING_HELD) },
  };
}

/** `balance` is settled; `reserved` and `settling` are held against it (a payg account's, else "0"). */
export function adminAccount(row: AccountRow, held?: HeldUsd): Record<string, unknown> {
  return {
    id: row.id,
    balance: row.balance,
    ...(held ?? NOTHING_HELD),
    discount: row.discount ?? null,
    createdAt: iso(row.createdAt),
  };
}

export function dayName(day: number): string {
  return new Date(dayStartMs(day)).toISOString().slice(0, 10);
}

/** One group of usage: counts, tokens by kind, exact cost, error rate, p50/p95 latency and TTFT. */
export function usageRow(sums: UsageSums, group: UsageGroup | "total"): Record<string, unknown> {
  const [requests, errors, prompt, completion, cacheRead, cacheWrite, reasoning] = sums.counters;
  const { latency, ttft } = histograms(sums.counters);
  return {
    group: group === "day" ? dayName(Number(sums.group)) : group === "total" ? null : String(sums.group),
    requests,
    errors,
    errorRate: requests === 0 ? 0 : errors / requests,
    tokens: { prompt, completion, cacheRead, cacheWrite, reasoning },
    cost: sums.cost,
    latencyMs: { p50: percentileMs(latency, 0.5), p95: percentileMs(latency, 0.95) },
    ttftMs: { p50: percentileMs(ttft, 0.5), p95: percentileMs(ttft, 0.95) },
  };
}

export function totalOf(groups: UsageSums[]): UsageSums {
  const empty: UsageSums = { group: "total", counters: new Array(COUNTER_COLUMNS.length).fill(0), cost: "0" };
  return groups.reduce(mergeSums, empty);
}
