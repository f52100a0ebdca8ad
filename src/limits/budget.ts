// Per-key budgets: a key's settled cost in its period (UTC day, UTC month, or ever) may not pass its
// `budget.usd`; once it has, requests are refused before any upstream call until the period turns.
// The spend is read from the store's per-day rollups at most once a second per key, and this process
// adds what it settles itself in between, so its own next request sees its last one. Requests already
// admitted when the budget is reached finish: the last may take the spend past the budget.

import { type Caller, STALE_MS } from "../auth/authenticator.ts";
import { addDecimals, type Decimal, parseDecimal } from "../billing/money.ts";
import { GatewayError } from "../ir/errors.ts";
import { isStoreUnavailable } from "../ledger/ledger-errors.ts";
import { epochDay } from "../ledger/rollups.ts";
import type { BudgetPeriod, Store } from "../ledger/types.ts";
import type { ProtocolName } from "../protocols/types.ts";

const CACHE_MS = 1_000;

/**
 * How each protocol says "no money left": OpenAI answers 429 `insufficient_quota`, Anthropic 402
 * `billing_error`, Gemini 429 `RESOURCE_EXHAUSTED` (the error kind is the same; each protocol's
 * encodeError writes its own type).
 */
export const BUDGET_STATUS: Record<ProtocolName, number> = {
  "openai-chat": 429,
  "openai-responses": 429,
  anthropic: 402,
  gemini: 429,
};

export class BudgetCheck {
  private readonly store: Store;
  private readonly spent = new Map<string, { since: number; spend: string; until: number; readAt: number }>();

  constructor(store: Store) {
    this.store = store;
  }

  async admit(caller: Caller, face: ProtocolName, now = Date.now()): Promise<void> {
    const budget = caller.budget;
    if (!budget) return;
    const { start, end } = periodOf(budget.period, now);
    const spend = await this.spendOf(caller.keyId, start, now);
    if (parseDecimal(spend, "spend").lt(parseDecimal(budget.usd, "budget.usd"))) return;
    const resets = end === undefined ? "it does not reset" : `it resets at ${new Date(end).toISOString()}`;
    const period = budget.period === "total" ? "in total" : `this ${budget.period} (UTC)`;
    const headers: Record<string, string> = { "x-should-retry": "false" };
    if (end !== undefined) headers["retry-after"] = String(Math.ceil((end - now) / 1000));
    throw new GatewayError(
      "payment_required",
      `This key's ${budget.period} budget of $${budget.usd} is spent ($${spend} ${period}); ${resets}.`,
      { status: BUDGET_STATUS[face], headers },
    );
  }

  /**
   * What the key's budget has left after its settled spend this period (negative when passed), and
   * when that spend was read (epoch ms).
   */
  async room(caller: Caller, now = Date.now()): Promise<{ room: Decimal; readAt: number }> {
    const budget = caller.budget!;
    const start = periodOf(budget.period, now).start;
    const spend = await this.spendOf(caller.keyId, start, now);
    const readAt = this.spent.get(caller.keyId)?.readAt ?? 0;
    return { room: parseDecimal(budget.usd, "budget.usd").minus(parseDecimal(spend, "spend")), readAt };
  }

  /** This process settled `amount` for a key's generation created at `createdAt`. */
  spend(keyId: string, createdAt: number, amount: string): void {
    const entry = this.spent.get(keyId);
    if (entry && createdAt >= entry.since) entry.spend = addDecimals(entry.spend, amount);
    // Read again on the next request: until a reading includes this cost, its spend hold counts it
    // (spend-reservations.ts), so the sum above alone would count it twice.
    if (entry) entry.until = 0;
  }

  private async spendOf(keyId: string, since: number, now: number): Promise<string> {
    const entry = this.spent.get(keyId);
    const current = entry?.since === since ? entry : undefined;
    if (current && current.until > now) return current.spend;
    let spend: string;
    try {
      spend = await keySpend(this.store, keyId, since, now);
    } catch (err) {
      // The store is away: the spend last read this period stands, as a balance does (credit.ts);
      // a key never read is the store's 503.
      if (!current || !isStoreUnavailable(err) || now - current.readAt > STALE_MS) throw err;
      current.until = now + CACHE_MS;
      return current.spend;
    }
    if (this.spent.size > 10_000) this.spent.clear();
    this.spent.set(keyId, { since, spend, until: now + CACHE_MS, readAt: now });
    return spend;
  }
}

/**
 * A key's settled cost since `since` (the start of a UTC day), from the per-day rollups: they hold
 * each settled generation's cost under its day of creation, and outlive the raw rows (retention).
 */
async function keySpend(store: Store, keyId: string, since: number, now: number): Promise<string> {
  // (Up to tomorrow: a generation another host dated by a clock slightly ahead still counts.)
  const filter = { fromDay: epochDay(since), toDay: epochDay(now) + 1, keyId };
  const sums = await store.queries.usage(filter, "key");
  return sums.find((s) => s.group === keyId)?.cost ?? "0";
}

/** The period a budget counts over at `now`, epoch ms: [start, end), end undefined for `total`. */
export function periodOf(period: BudgetPeriod, now: number): { start: number; end?: number } {
  const d = new Date(now);
  if (period === "day") {
    const start = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate());
    return { start, end: start + 86_400_000 };
  }
  if (period === "month")
    return {
      start: Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1),
      end: Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1),
    };
  return { start: 0 };
}

/** `5/day`, `12.50/month`, `100/total` (the CLI's `--budget`) → a budget. */
export function parseBudget(text: string): { usd: string; period: BudgetPeriod } {
  const m = /^\$?(\d+(?:\.\d+)?)\/(day|month|total)$/.exec(text.trim());
  if (!m) throw new Error(`--budget: "${text}" is not USD/PERIOD (5/day, 20/month, 100/total)`);
  return { usd: m[1], period: m[2] as BudgetPeriod };
}
