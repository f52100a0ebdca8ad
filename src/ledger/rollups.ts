// Per-day usage rollups, one row per (day, account, key, model, provider), kept by both stores in the
// same transaction that finishes or settles a generation: the usage API and the dashboard read these
// instead of the raw ledger, and they outlive the raw rows (retention). docs/operations.md, "Rollups".
//
// A finish adds the request, its tokens and its timings; a settlement adds its cost (in the finish's
// own batch when billing settles at once, later otherwise), so every generation is counted once and
// its cost once. Generations marked interrupted by a restart are not counted: they have no usage.
//
// Percentiles: each row keeps two fixed histograms (total latency and time to first token) of
// counts per bucket. Counts add up across rows, so any grouping's p50/p95 comes from summed buckets;
// the answer is the upper bound of the bucket holding the percentile (at most one bucket too high).

import { addDecimals, type Decimal, formatDecimal, parseDecimal, ZERO } from "../billing/money.ts";
import type { Usage } from "../ir/usage.ts";
import { whereOf } from "./columns.ts";
import type { SqlDialect } from "./sql-dialect.ts";
import type { GenerationEnd } from "./types.ts";

/** Upper bounds (ms) of the histogram buckets; one last bucket holds everything slower. */
export const LATENCY_BUCKETS_MS = [
  25, 50, 100, 200, 300, 500, 750, 1000, 1500, 2000, 3000, 5000, 7500, 10_000, 15_000, 20_000, 30_000, 60_000,
  120_000,
] as const;
export const BUCKET_COUNT = LATENCY_BUCKETS_MS.length + 1;

const DAY_MS = 86_400_000;

/** Days are UTC days, counted from the epoch: a row's `day`. */
export function epochDay(ms: number): number {
  return Math.floor(ms / DAY_MS);
}

export function dayStartMs(day: number): number {
  return day * DAY_MS;
}

export function bucketOf(ms: number): number {
  for (let i = 0; i < LATENCY_BUCKETS_MS.length; i++) if (ms <= LATENCY_BUCKETS_MS[i]) return i;
  return LATENCY_BUCKETS_MS.length;
}

/** The counter columns of a rollup row, in table order (after the key columns and before `cost`). */
export const COUNTER_COLUMNS = [
  "requests",
  "errors",
  "prompt_tokens",
  "completion_tokens",
  "cache_read_tokens",
  "cache_write_tokens",
  "reasoning_tokens",
  ...Array.from({ length: BUCKET_COUNT }, (_, i) => `lat_${i}`),
  ...Array.from({ length: BUCKET_COUNT }, (_, i) => `ttft_${i}`),
] as const;

/**
 * Three grains, all kept in the same transaction: per key, model and provider (the grain);
 * per account, model and provider; per key. A usage query reads the smallest one that has the columns
 * it groups and filters by, so the overview of a busy gateway reads one row per account, model and
 * provider a day, and spend per key one row per key a day.
 */
export const ROLLUP_TABLES = [
  { name: "usage_rollups", keys: ["day", "account_id", "key_id", "model", "provider"] },
  { name: "account_rollups", keys: ["day", "account_id", "model", "provider"] },
  { name: "key_rollups", keys: ["day", "account_id", "key_id"] },
] as const;
export type RollupTable = (typeof ROLLUP_TABLES)[number];

/** The table a usage query reads: the coarsest that has every column it needs. */
export function rollupTableFor(filter: UsageFilter, group: UsageGroup): RollupTable {
  const needed: string[] = [GROUP_COLUMN[group]];
  if (filter.keyId !== undefined) needed.push("key_id");
  if (filter.model !== undefined) needed.push("model");
  if (filter.provider !== undefined) needed.push("provider");
  const fits = (table: RollupTable) => needed.every((c) => (table.keys as readonly string[]).includes(c));
  return fits(ROLLUP_TABLES[1])
    ? ROLLUP_TABLES[1]
    : fits(ROLLUP_TABLES[2])
      ? ROLLUP_TABLES[2]
      : ROLLUP_TABLES[0];
}

/** A delta's value for one of a rollup table's key columns. */
export function keyValue(delta: RollupKey, column: RollupTable["keys"][number]): string | number {
  switch (column) {
    case "day":
      return delta.day;
    case "account_id":
      return delta.accountId;
    case "key_id":
      return delta.keyId;
    case "model":
      return delta.model;
    case "provider":
      return delta.provider;
  }
}

export interface RollupKey {
  day: number;
  accountId: string;
  keyId: string;
  model: string;
  /** "" when no provider answered. */
  provider: string;
}

export interface RollupDelta extends RollupKey {
  /** One number per COUNTER_COLUMNS entry. */
  counters: number[];
  /** Exact decimal. */
  cost: string;
}

/** What a generation's row says of itself, for its rollup key. */
export interface RollupSource {
  accountId: string;
  keyId: string;
  model: string;
  provider?: string | null;
  createdAt: number;
}

/** A rollup row's delta while a batch is gathered: its cost summed exactly, written out once in `deltas`. */
interface GatheredDelta extends RollupKey {
  counters: number[];
  cost: Decimal;
}

/** The deltas of one write batch, merged per rollup row and handed out in key order (no deadlocks). */
export class RollupBatch {
  private readonly rows = new Map<string, GatheredDelta>();
  private last: GatheredDelta | undefined;

  /** A generation finished: one request, its tokens, its timings, and its cost when it settled with it. */
  finished(source: RollupSource, end: GenerationEnd): void {
    // After a cross-model fallback the row names the model that answered (and was priced).
    const row = this.row(source, end.model ?? source.model, end.provider);
    if (end.settlement) addCost(row, end.settlement.rating.billAmount);
    const c = row.counters;
    c[0] += 1;
    if (end.status !== "completed") c[1] += 1;
    addUsage(c, end.usage);
    if (end.latencyMs !== undefined) {
      c[7 + bucketOf(end.latencyMs + (end.generationTimeMs ?? 0))] += 1;
      c[7 + BUCKET_COUNT + bucketOf(end.latencyMs)] += 1;
    }
  }

  /** A generation was settled: its cost. */
  settled(source: RollupSource, cost: string): void {
    addCost(this.row(source, source.model, source.provider ?? undefined), cost);
  }

  get size(): number {
    return this.rows.size;
  }

  /** The deltas for one table, merged to its grain, in key order. */
  deltas(table: RollupTable = ROLLUP_TABLES[0]): RollupDelta[] {
    const merged = new Map<string, GatheredDelta>();
    for (const row of this.rows.values()) {
      const id = JSON.stringify(table.keys.map((column) => keyValue(row, column)));
      const into = merged.get(id);
      if (!into) merged.set(id, { ...row, counters: [...row.counters] });
      else {
        row.counters.forEach((n, i) => {
          into.counters[i] += n;
        });
        into.cost = into.cost.plus(row.cost);
      }
    }
    return [...merged.entries()]
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([, row]) => ({ ...row, cost: formatDecimal(row.cost) }));
  }

  private row(source: RollupSource, model: string, provider = ""): GatheredDelta {
    const day = epochDay(source.createdAt);
    // Most finishes of a batch fall in the row of the one before: found without naming it.
    const last = this.last;
    if (
      last !== undefined &&
      last.day === day &&
      last.accountId === source.accountId &&
      last.keyId === source.keyId &&
      last.model === model &&
      last.provider === provider
    )
      return last;
    const id = JSON.stringify([day, source.accountId, source.keyId, model, provider]);
    let row = this.rows.get(id);
    if (!row) {
      row = {
        day,
        accountId: source.accountId,
        keyId: source.keyId,
        model,
        provider,
        counters: new Array(COUNTER_COLUMNS.length).fill(0),
        cost: ZERO,
      };
      this.rows.set(id, row);
    }
    this.last = row;
    return row;
  }
}

/** Adds a cost (exact decimal text, a 400 naming it when malformed) to a row being gathered. */
function addCost(row: GatheredDelta, cost: string): void {
  row.cost = row.cost.plus(parseDecimal(cost, "amount"));
}

function addUsage(c: number[], usage: Usage): void {
  c[2] += usage.promptTokens;
  c[3] += usage.completionTokens;
  c[4] += usage.cacheReadTokens;
  c[5] += usage.cacheWrite5mTokens + usage.cacheWrite1hTokens;
  c[6] += usage.reasoningTokens;
}

// ── reading ─────────────────────────────────────────────────────────────────────────────────────────

export type UsageGroup = "day" | "model" | "provider" | "key" | "account";

/** Which rollup rows a usage query reads: whole UTC days, optionally one account, key, model, provider. */
export interface UsageFilter {
  fromDay: number;
  toDay: number;
  accountId?: string;
  keyId?: string;
  model?: string;
  provider?: string;
}

/** The column each grouping groups by. */
export const GROUP_COLUMN: Record<UsageGroup, string> = {
  day: "day",
  model: "model",
  provider: "provider",
  key: "key_id",
  account: "account_id",
};

/** One group's sums, as the stores return them: counters in COUNTER_COLUMNS order. */
export interface UsageSums {
  group: string | number;
  counters: number[];
  cost: string;
}

/** The WHERE clause of a usage query and its values; `param(n)` spells the n-th placeholder. */
export function usageWhere(filter: UsageFilter, param: (n: number) => string) {
  return whereOf(
    [
      ["day >=", filter.fromDay],
      ["day <=", filter.toDay],
      ["account_id =", filter.accountId],
      ["key_id =", filter.keyId],
      ["model =", filter.model],
      ["provider =", filter.provider],
    ],
    param,
  );
}

/** `SUM(requests) AS requests, …` for every counter column. */
export const counterSums = COUNTER_COLUMNS.map((c) => `SUM(${c}) AS ${c}`).join(", ");

export function sumsFromColumns(row: Record<string, unknown>, cost: unknown): UsageSums {
  return {
    group: row.g as string | number,
    counters: COUNTER_COLUMNS.map((c) => Number(row[c] ?? 0)),
    cost: String(cost ?? "0"),
  };
}

/** Adds `b` into `a` (for totals across groups). */
export function mergeSums(a: UsageSums, b: UsageSums): UsageSums {
  return {
    group: a.group,
    counters: a.counters.map((n, i) => n + b.counters[i]),
    cost: addDecimals(a.cost, b.cost),
  };
}

/**
 * The upper bound (ms) of the bucket holding quantile `q` of a histogram; null when it is empty. The
 * last bucket has no bound: a quantile there is reported as its lower bound, the slowest bound.
 */
export function percentileMs(buckets: number[], q: number): number | null {
  const total = buckets.reduce((s, n) => s + n, 0);
  if (total === 0) return null;
  const rank = Math.ceil(q * total);
  let seen = 0;
  for (let i = 0; i < buckets.length; i++) {
    seen += buckets[i];
    if (seen >= rank) return LATENCY_BUCKETS_MS[Math.min(i, LATENCY_BUCKETS_MS.length - 1)];
  }
  return null;
}

/** The latency and TTFT histograms of a counters array. */
export function histograms(counters: number[]): { latency: number[]; ttft: number[] } {
  return {
    latency: counters.slice(7, 7 + BUCKET_COUNT),
    ttft: counters.slice(7 + BUCKET_COUNT, 7 + 2 * BUCKET_COUNT),
  };
}

/** A rollup table's DDL, named `name`, in the store's dialect (its exact decimal money). */
export function rollupTableSql(table: RollupTable, name: string, d: SqlDialect): string {
  const counters = COUNTER_COLUMNS.map((c) => `  ${c} BIGINT NOT NULL DEFAULT 0,`).join("\n");
  const keys = table.keys.map((c) => `  ${c} ${c === "day" ? "INTEGER" : "TEXT"} NOT NULL,`).join("\n");
  return `CREATE TABLE IF NOT EXISTS ${name} (
${keys}
${counters}
  cost       ${d.money} NOT NULL DEFAULT ${d.moneyZero},
  PRIMARY KEY (${table.keys.join(", ")})
)${d.keyedTable};`;
}
