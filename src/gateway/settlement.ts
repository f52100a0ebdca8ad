// Rates a finished generation from the catalog prices and debits the account, after
// `billing.settle_delay_ms` (docs/architecture.md §6: billing is asynchronous; until settled the lookup shows
// metering only). Settlements are written in batches, one transaction per batch, so settling costs
// the request path nothing and concurrent generations do not queue on their account's row.
//
// While the store is unavailable, settlements wait in memory and are tried again every
// RETRY_MS; settling is idempotent (a settled generation is never debited again), so a batch whose
// COMMIT was lost with its connection is simply settled once. After stop() nothing is retried: the
// generations are in the ledger unsettled, and the next start settles them (src/cli/serve.ts).

import { rate } from "../billing/rate.ts";
import type { CatalogModel } from "../catalog/types.ts";
import type { Usage } from "../ir/usage.ts";
import { isStoreUnavailable } from "../ledger/ledger-errors.ts";
import type { KeyKind, Rating, SettlementItem, Store } from "../ledger/types.ts";
import type { Logger } from "./logger.ts";

/** What settlement needs to know of a generation. */
export interface Settleable {
  id: string;
  accountId: string;
  kind: KeyKind;
}

/** Told once a generation's settlement is committed (its cost), or will not be (undefined). */
export type SettledHook = (cost: string | undefined) => void;

const BATCH_DELAY_MS = 10;
const MAX_BATCH = 500;
/** Discounts change rarely; re-reading the account for every generation would cost a query each. */
const DISCOUNT_CACHE_MS = 5_000;
/** While the store is unavailable, how often waiting settlements are tried again. */
const RETRY_MS = 1_000;

export class Settlement {
  private readonly store: Store;
  private readonly delayMs: number;
  private readonly priceVersion: string;
  private readonly log: Logger;
  private readonly timers = new Set<NodeJS.Timeout>();
  private stopped = false;
  /** Settlements are waiting for the store (told once per outage). */
  private waiting = false;
  private queue: Array<SettlementItem & { accountId: string; settled?: SettledHook }> = [];
  private flushTimer?: NodeJS.Timeout;
  private flushing: Promise<void> = Promise.resolve();
  private readonly discounts = new Map<string, { discount: string | undefined; until: number }>();
  private readonly onSettled?: (accountIds: Set<string>) => void;

  constructor(opts: {
    store: Store;
    delayMs: number;
    priceVersion: string;
    log: Logger;
    /** Told which accounts' balances a batch changed. */
    onSettled?: (accountIds: Set<string>) => void;
  }) {
    this.store = opts.store;
    this.onSettled = opts.onSettled;
    this.delayMs = opts.delayMs;
    this.priceVersion = opts.priceVersion;
    this.log = opts.log;
  }

  schedule(generation: Settleable, model: CatalogModel, usage: Usage, settled?: SettledHook): void {
    if (this.delayMs <= 0) {
      this.enqueue(generation, model, usage, settled);
      return;
    }
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      this.enqueue(generation, model, usage, settled);
    }, this.delayMs);
    timer.unref();
    this.timers.add(timer);
  }

  /** Writes every queued settlement now. */
  async flush(): Promise<void> {
    if (this.flushTimer) clearTimeout(this.flushTimer);
    this.flushTimer = undefined;
    const batch = this.queue;
    this.queue = [];
    this.flushing = this.flushing.then(() => this.write(batch));
    await this.flushing;
  }

  stop(): void {
    this.stopped = true;
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
  }

  /** Settlement without delay travels with the generation's finish write (no transaction of its own). */
  get immediate(): boolean {
    return this.delayMs <= 0;
  }

  /** The rating and debit of a generation, for a finish that settles (see `immediate`). */
  async settlementOf(
    generation: Settleable,
    model: CatalogModel,
    usage: Usage,
  ): Promise<{ rating: Rating; debit?: string }> {
    const discount = await this.discountOf(generation.accountId);
    const rating = rate(usage, model.pricings, { priceVersion: this.priceVersion, discount });
    // Subscription usage is rated for the operator's records but paid by the plan, not the balance.
    return { rating, debit: generation.kind === "subscription" ? "0" : undefined };
  }

  /** A finish that carried its settlement was written: the account's balance changed. */
  settledWithFinish(accountId: string): void {
    this.onSettled?.(new Set([accountId]));
  }

  private enqueue(generation: Settleable, model: CatalogModel, usage: Usage, settled?: SettledHook): void {
    this.settlementOf(generation, model, usage)
      .then(({ rating, debit }) => {
        this.queue.push({
          id: generation.id,
          accountId: generation.accountId,
          rating,
          settledAt: Date.now(),
          debit,
          settled,
        });
        if (this.queue.length >= MAX_BATCH) void this.flush();
        else this.flushTimer ??= setTimeout(() => void this.flush(), BATCH_DELAY_MS);
      })
      .catch((err) => {
        if (isStoreUnavailable(err)) this.later(() => this.enqueue(generation, model, usage, settled));
        else {
          this.log.error({ err, generationId: generation.id }, "rating failed");
          settled?.(undefined);
        }
      });
  }

  private async write(
    batch: Array<SettlementItem & { accountId: string; settled?: SettledHook }>,
  ): Promise<void> {
    if (batch.length === 0) return;
    try {
      const outcomes = await this.store.settleGenerations(batch);
      outcomes.forEach((err, i) => {
        if (err) this.log.error({ err, generationId: batch[i].id }, "settlement failed");
        batch[i].settled?.(err ? undefined : batch[i].rating.usage);
      });
      this.waiting = false;
      this.onSettled?.(new Set(batch.map((item) => item.accountId)));
    } catch (err) {
      if (isStoreUnavailable(err) && !this.stopped) {
        if (!this.waiting)
          this.log.error({ err, generations: batch.length }, "settlement waits for the store");
        this.waiting = true;
        this.later(() => {
          this.queue.unshift(...batch);
          void this.flush();
        });
      } else {
        this.log.error({ err, generations: batch.length }, "settlement batch failed");
        for (const item of batch) item.settled?.(undefined);
      }
    }
  }

  /** Runs `retry` once the store may be back, unless stopped (the next start settles what is left). */
  private later(retry: () => void): void {
    if (this.stopped) return;
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      retry();
    }, RETRY_MS);
    timer.unref();
    this.timers.add(timer);
  }

  private async discountOf(accountId: string): Promise<string | undefined> {
    const now = Date.now();
    const cached = this.discounts.get(accountId);
    if (cached && cached.until > now) return cached.discount;
    let discount: string | undefined;
    try {
      discount = (await this.store.accounts.getAccount(accountId))?.discount;
    } catch (err) {
      // The store is away: the discount last read stands (it changes rarely).
      if (cached && isStoreUnavailable(err)) return cached.discount;
      throw err;
    }
    if (this.discounts.size > 10_000) this.discounts.clear();
    this.discounts.set(accountId, { discount, until: now + DISCOUNT_CACHE_MS });
    return discount;
  }
}
