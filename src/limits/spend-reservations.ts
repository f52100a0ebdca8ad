// Budgets and credit as hard limits across processes. At admission a request holds its estimated
// cost (its prompt estimated as for a tokens-per-minute limit, plus the most it may write, priced
// at the model's prices) against its key's budget and its account's credit, atomically in one
// place every process sees: Redis (redis-spend-state.ts) when `redis.url` is set, else the ledger
// store when other processes write to it, else this process's memory (memory-spend-state.ts);
// while a state fails, the next one holds. It is admitted only when what each limit has left after
// its settled spend and every hold covers it. When the generation is rated and its debit committed,
// its hold goes and its cost is held HOLD_MS more as settled spend: a process's reading of the
// settled spend may be a second old (credit.ts, budget.ts), and until its reading includes the
// cost the hold counts it. A generation that charged nothing drops its hold; a process that dies
// stops renewing its holds, which expire. docs/operations.md#spend-reservations has the bound.

import type { Caller } from "../auth/authenticator.ts";
import { Decimal, formatDecimal, parseDecimal } from "../billing/money.ts";
import { rate } from "../billing/rate.ts";
import type { CatalogModel, Pricings } from "../catalog/types.ts";
import { GatewayError } from "../ir/errors.ts";
import { emptyUsage } from "../ir/usage.ts";
import type {
  HeldSpend,
  SpendDecision,
  SpendHold,
  SpendReservation,
  SpendState,
  Store,
} from "../ledger/types.ts";
import type { ProtocolName } from "../protocols/types.ts";
import { LEASE_TTL_MS, Renewals } from "./buckets.ts";
import { BUDGET_STATUS, type BudgetCheck } from "./budget.ts";
import { MemorySpendState } from "./memory-spend-state.ts";

/**
 * How long a settled cost is held: longer than a reading can be old when the rule runs. A process
 * caches a reading for a second, but a busy host's event loop and Redis or database round trips add
 * to its age before the hold is decided; at 3 s, two processes on a loaded machine overspent a budget
 * by part of a request (test/e2e/limits/spend-reservations.test.ts). A longer hold costs only a few
 * more buckets to sum, never a double count: a bucket counts only against readings older than it.
 */
export const HOLD_MS = 10_000;
/** After a state fails, how long the next one holds spend instead. */
const RETRY_FAILED_MS = 1_000;
const NANO_SCALE = 9;
const MAX_NANOS = Number.MAX_SAFE_INTEGER;

/** A running request's hold: settled to its cost, or released; only the first call counts. */
export interface SpendHandle {
  /** Rated and debited (exact USD): the hold becomes the cost, for HOLD_MS. */
  settled(cost: string): void;
  /** Nothing was charged: the hold goes. */
  released(): void;
}

/** The account balances last read at admission (src/gateway/credit.ts). */
export interface Balances {
  balanceOf(accountId: string): Promise<{ balance: string; readAt: number } | undefined>;
}

/** The shared state also connects and closes. */
export interface SharedSpendState extends SpendState {
  ready(withinMs: number): Promise<void>;
  close(): Promise<void>;
}

export class SpendReservations {
  private readonly store: Store;
  private readonly shared?: SharedSpendState;
  private readonly budget: BudgetCheck;
  private readonly credit: Balances;
  private readonly warn: (message: string) => void;
  private readonly memory = new MemorySpendState();
  /** Per state that failed lately: when to try it again. */
  private readonly failedUntil = new Map<SpendState, number>();
  private warnedAt = -Infinity;
  /** Holds of requests still running, by the state that holds them: renewed while they run. */
  private readonly running = new Renewals<SpendHold, SpendState>((running) => this.renew(running));

  constructor(opts: {
    store: Store;
    shared?: SharedSpendState;
    budget: BudgetCheck;
    credit: Balances;
    warn: (message: string) => void;
  }) {
    this.store = opts.store;
    this.shared = opts.shared;
    this.budget = opts.budget;
    this.credit = opts.credit;
    this.warn = opts.warn;
  }

  /** Whether the caller's requests hold spend: a pay-as-you-go account's, or a key with a budget. */
  applies(caller: Caller): boolean {
    return caller.kind === "payg" || caller.budget !== undefined;
  }

  /**
   * Holds the request's estimated cost or throws the protocol's quota error naming what is left.
   * Call after the credit and budget checks have admitted it (their readings are then fresh).
   */
  async reserve(caller: Caller, face: ProtocolName, id: string, estimate: Estimate): Promise<SpendHandle> {
    const cost = costEstimate(estimate);
    const reservation: SpendReservation = { id, amount: nanos(cost, "up"), ttlMs: LEASE_TTL_MS };
    // Without max_tokens the most it may cost is its model's whole output: when less is left, all
    // that is left is held, provided it covers the prompt (docs/operations.md: the bound).
    if (!estimate.outputBounded)
      reservation.minimum = Math.max(1, nanos(costEstimate({ ...estimate, outputTokens: 0 }), "up"));
    if (caller.budget) {
      reservation.keyId = caller.keyId;
      const { room, readAt } = await this.budget.room(caller);
      reservation.keyRoom = nanos(room, "down");
      reservation.keyReadAt = readAt;
    }
    if (caller.kind === "payg") {
      reservation.accountId = caller.accountId;
      const read = await this.credit.balanceOf(caller.accountId);
      reservation.accountRoom = nanos(parseDecimal(read?.balance ?? "0", "balance"), "down");
      reservation.accountReadAt = read?.readAt ?? 0;
    }
    const { state, decision } = await this.hold(reservation);
    if (decision.refused) throw refusal(caller, face, decision.refused, decision.left, cost);
    const hold: SpendHold = { id, keyId: reservation.keyId, accountId: reservation.accountId };
    this.running.add(hold, state);
    let done = false;
    const finish = (work: () => Promise<void>) => {
      if (done) return;
      done = true;
      this.running.delete(hold);
      // Best effort: a hold not heard of expires on its own (LEASE_TTL_MS).
      work().catch((err) => this.failed(err));
    };
    return {
      settled: (usd) => {
        // Stamped once the debit is committed: a reading taken after this includes it.
        const settledAt = Date.now();
        finish(() => state.settleSpend(hold, nanos(parseDecimal(usd, "cost"), "up"), HOLD_MS, settledAt));
      },
      released: () => finish(() => state.releaseSpend(hold)),
    };
  }

  /** What a key (its budget) or an account (its credit) has held now: in flight, and settled lately. */
  async held(on: { keyId: string } | { accountId: string }): Promise<{ reserved: string; settling: string }> {
    let held: HeldSpend = { reserved: 0, settling: 0 };
    for (const state of this.states()) {
      try {
        held = await state.heldSpend(on);
        break;
      } catch {
        // the next state's
      }
    }
    // With what this process holds in memory while the others fail (nothing, usually).
    const mine = await this.memory.heldSpend(on);
    return { reserved: usdOf(held.reserved + mine.reserved), settling: usdOf(held.settling + mine.settling) };
  }

  async ready(withinMs: number): Promise<void> {
    await this.shared?.ready(withinMs);
  }

  async close(): Promise<void> {
    this.running.stop();
    await this.shared?.close();
  }

  /** In the first state that has not failed lately and answers; this process's memory at last. */
  private async hold(r: SpendReservation): Promise<{ state: SpendState; decision: SpendDecision }> {
    const now = Date.now();
    for (const state of this.states())
      if ((this.failedUntil.get(state) ?? 0) <= now)
        try {
          return { state, decision: await state.reserveSpend(r) };
        } catch (err) {
          this.failedUntil.set(state, Date.now() + RETRY_FAILED_MS);
          this.failed(err);
        }
    return { state: this.memory, decision: await this.memory.reserveSpend(r) };
  }

  /**
   * Where holds are taken, in order of preference. A store no other process writes to (one `serve`
   * on SQLite, without workers) holds nothing another would read: this process's memory is then the
   * whole truth, and costs no write transaction per request.
   */
  private states(): SpendState[] {
    const store = this.store.sharedByProcesses ? [this.store] : [];
    return this.shared ? [this.shared, ...store] : store;
  }

  private failed(err: unknown): void {
    const now = Date.now();
    if (now - this.warnedAt < 60_000) return;
    this.warnedAt = now;
    this.warn(`spend reservations: ${(err as Error).message}`);
  }

  /** Each state renews its own holds, in one call. */
  private renew(running: ReadonlyMap<SpendHold, SpendState>): void {
    const byState = new Map<SpendState, SpendHold[]>();
    for (const [hold, state] of running) byState.set(state, [...(byState.get(state) ?? []), hold]);
    for (const [state, holds] of byState)
      state.renewSpend(holds, LEASE_TTL_MS).catch((err) => this.failed(err));
  }
}

/** What a request may use: its prompt, estimated, and the most it may write. */
export interface SpendEstimate {
  promptTokens: number;
  outputTokens: number;
  /** The client bounded the output (max_tokens): else `outputTokens` is the model's whole output limit. */
  outputBounded?: boolean;
}

/** …priced at its model's prices. */
export interface Estimate extends SpendEstimate {
  model: CatalogModel;
}

/**
 * The most a request may cost (no discount): its prompt as estimated plus the most it may write, at
 * its model's prices or, where an endpoint has prices of its own (a cloud region's), the dearest of
 * them. Exact: rated as its usage would be (billing/rate.ts).
 */
export function costEstimate(e: Estimate): Decimal {
  const usage = { ...emptyUsage(), promptTokens: e.promptTokens, completionTokens: e.outputTokens };
  const costAt = (pricings: Pricings) =>
    parseDecimal(rate(usage, pricings, { priceVersion: "estimate" }).usage, "cost");
  let cost = costAt(e.model.pricings);
  for (const endpoint of e.model.endpoints ?? [])
    if (endpoint.pricings) {
      const at = costAt(endpoint.pricings);
      if (at.gt(cost)) cost = at;
    }
  return cost;
}

/** USD as whole nano-USD, rounded `up` (what is held) or `down` (what is left), within doubles' exact range. */
export function nanos(usd: Decimal, round: "up" | "down"): number {
  const shift = NANO_SCALE - usd.scale;
  let units: bigint;
  if (shift >= 0) units = usd.units * 10n ** BigInt(shift);
  else {
    const divisor = 10n ** BigInt(-shift);
    units = usd.units / divisor; // truncates toward zero
    const inexact = units * divisor !== usd.units;
    if (inexact && round === "up" && usd.units > 0n) units += 1n;
    if (inexact && round === "down" && usd.units < 0n) units -= 1n;
  }
  const limit = BigInt(MAX_NANOS);
  return Number(units > limit ? limit : units < -limit ? -limit : units);
}

/** Whole nano-USD as exact decimal text. */
export function usdOf(nanoUsd: number): string {
  return formatDecimal(new Decimal(BigInt(nanoUsd), NANO_SCALE));
}

function refusal(
  caller: Caller,
  face: ProtocolName,
  refused: "budget" | "credit",
  leftNanos: number,
  cost: Decimal,
): GatewayError {
  const left = usdOf(Math.max(0, leftNanos));
  const needs = `this request may cost up to $${formatDecimal(cost)}`;
  if (refused === "credit")
    return new GatewayError(
      "payment_required",
      `The account has $${left} of credit left after the requests in flight; ${needs}. ` +
        "Add credits, send a smaller request (max_tokens), or try again once requests in flight end.",
      { headers: { "retry-after": "1" } },
    );
  const budget = caller.budget!;
  return new GatewayError(
    "payment_required",
    `This key's ${budget.period} budget of $${budget.usd} has $${left} left after the requests in flight; ` +
      `${needs}. Send a smaller request (max_tokens), or try again once requests in flight end.`,
    { status: BUDGET_STATUS[face], headers: { "retry-after": "1" } },
  );
}
