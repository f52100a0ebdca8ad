// The ledger side of one generation: when its start is written, how it is completed, and its
// settlement.

import type { Caller } from "../auth/authenticator.ts";
import type { CatalogModel } from "../catalog/types.ts";
import type { Request } from "../ir/request.ts";
import { isStoreUnavailable } from "../ledger/ledger-errors.ts";
import type { Api, GenerationEnd, GenerationStart, Store } from "../ledger/types.ts";
import type { SpendHandle } from "../limits/spend-reservations.ts";
import type { AttemptReport } from "../routing/attempts.ts";
import type { Logger } from "./logger.ts";
import type { Meter } from "./meter.ts";
import type { Metrics } from "./metrics.ts";
import type { Settlement } from "./settlement.ts";

/**
 * How long a generation may run before its start is written. A generation that ends sooner is written
 * once, as a finished row (most non-streamed answers); a stream's start is written as soon as its
 * first byte goes to the client, since the client then holds its id.
 */
export const START_GRACE_MS = 1_000;
/** How often unwritten starts are looked at: a start is written START_GRACE_MS to that much later. */
const SWEEP_MS = 250;

export interface RecorderDeps {
  store: Store;
  settlement: Settlement;
  log: Logger;
  /** The App's metrics (generations counted by protocol and outcome); none in a test of the recorder. */
  metrics?: Metrics;
  /** Told what each generation settled with its finish cost its key (budgets: src/limits/budget.ts). */
  budget?: { spend(keyId: string, createdAt: number, amount: string): void };
}

/**
 * The generations whose start is not written yet, oldest first. One timer for all of them (not one
 * per request) writes the starts of those that have run START_GRACE_MS.
 */
export class UnwrittenStarts {
  private readonly waiting = new Set<GenerationRecorder>();
  private timer: ReturnType<typeof setInterval> | undefined;

  add(recorder: GenerationRecorder): void {
    this.waiting.add(recorder);
    if (this.timer) return;
    this.timer = setInterval(this.sweep, SWEEP_MS);
    this.timer.unref();
  }

  delete(recorder: GenerationRecorder): void {
    this.waiting.delete(recorder);
  }

  private readonly sweep = (): void => {
    const cutoff = performance.now() - START_GRACE_MS;
    for (const recorder of this.waiting) {
      if (recorder.arrivedAt > cutoff) break; // the rest are younger
      recorder.writeStart();
    }
    if (this.waiting.size === 0) {
      clearInterval(this.timer);
      this.timer = undefined;
    }
  };
}

/** How a generation ended: answered in full, left by its client, or failed (with why). */
export type GenerationOutcome =
  | { status: "completed" }
  | { status: "cancelled" }
  | { status: "failed"; error: unknown };

/**
 * One generation's record: its start is written once the client is answered (a stream's first
 * byte) or once it has run START_GRACE_MS, so that a crash leaves it 'interrupted'; `end`, called
 * once, completes it (or, when the start was never written, writes it whole); settlement follows.
 */
export class GenerationRecorder {
  /** Attempts made (requestRetryTimes = attempts − 1). */
  private attempts = 0;
  /** Defined with AttemptReport.final in src/routing/attempts.ts. */
  private finalRetry = true;
  /** The provider that answered, or the last one tried. */
  private provider?: string;
  /** The model whose prices apply, when a fallback model answered instead of the requested one. */
  private pricedModel?: CatalogModel;
  private ended = false;
  /** performance.now() when the request arrived. */
  readonly arrivedAt: number;
  /** How it ended, once it has. */
  status?: "completed" | "cancelled" | "failed";
  /** The promise of the cost (see `cost`), made only once someone asks for it. */
  private costPromise?: Promise<string | undefined>;
  private costKnown = false;
  private costValue?: string;
  private resolveCost?: (cost: string | undefined) => void;
  private readonly deps: RecorderDeps;
  private readonly unwritten: UnwrittenStarts;
  private readonly start: GenerationStart;
  private readonly caller: Caller;
  private readonly model: CatalogModel;
  private readonly api: Api;
  private startWritten = false;
  /** The spend it holds against its key's budget and account's credit, settled once it is rated. */
  spendHold?: SpendHandle;

  constructor(
    deps: RecorderDeps,
    unwritten: UnwrittenStarts,
    g: {
      id: string;
      caller: Caller;
      model: CatalogModel;
      api: Api;
      request: Pick<Request, "stream">;
      arrivedAt: number;
      sessionId?: string;
    },
  ) {
    this.deps = deps;
    this.unwritten = unwritten;
    this.caller = g.caller;
    this.model = g.model;
    this.api = g.api;
    this.arrivedAt = g.arrivedAt;
    this.start = {
      id: g.id,
      accountId: g.caller.accountId,
      keyId: g.caller.keyId,
      api: g.api,
      model: g.model.id,
      streamed: g.request.stream,
      createdAt: Date.now(),
    };
    if (g.sessionId !== undefined) this.start.sessionId = g.sessionId;
    unwritten.add(this);
  }

  /** Attempts made so far (for the request's log line and trace). */
  get attemptsMade(): number {
    return this.attempts;
  }

  /** The provider that answered, or the last one tried. */
  get providerUsed(): string | undefined {
    return this.provider;
  }

  /** The model that answered, when a fallback model did instead of the one asked for. */
  get fallbackModel(): string | undefined {
    return this.pricedModel?.id;
  }

  /** Its exact cost (USD) when it is rated with its finish; undefined when rated later, or not at all. */
  get cost(): Promise<string | undefined> {
    if (this.costKnown) return Promise.resolve(this.costValue);
    this.costPromise ??= new Promise((resolve) => {
      this.resolveCost = resolve;
    });
    return this.costPromise;
  }

  private costIs(cost: string | undefined): void {
    if (this.costKnown) return;
    this.costKnown = true;
    this.costValue = cost;
    this.resolveCost?.(cost);
  }

  /** The client has the generation's id (a stream began): its start must survive a crash. */
  acknowledged(): void {
    this.writeStart();
  }

  /** Writes the start now, once. */
  writeStart(): void {
    if (this.startWritten) return;
    this.startWritten = true;
    this.unwritten.delete(this);
    const { id } = this.start;
    this.deps.store
      .startGeneration(this.start)
      .catch((err) => this.deps.log.error({ err, generationId: id }, "ledger start failed"));
  }

  /** An attempt is being made (the routing's report): counted, and its provider named. */
  attempted(report: AttemptReport): void {
    this.attempts = report.attempts;
    this.finalRetry = report.final;
    this.provider = report.attempt.endpoint.provider;
  }

  /** A fallback model answered instead of the one asked for: its prices apply. */
  pricedAs(model: CatalogModel): void {
    this.pricedModel = model;
  }

  /** Ends the generation, once (a second call does nothing): its meter stops and its end is written. */
  end(meter: Meter, outcome: GenerationOutcome): void {
    if (this.ended) return;
    this.ended = true;
    meter.end();
    const { status } = outcome;
    const errorMessage =
      outcome.status === "failed"
        ? outcome.error instanceof Error
          ? outcome.error.message
          : String(outcome.error)
        : undefined;
    this.deps.metrics?.countGeneration(this.api, status);
    this.status = status;
    const finish: GenerationEnd = {
      id: this.start.id,
      status,
      provider: this.provider,
      usage: meter.usage,
      model: this.pricedModel?.id,
      finishReason: meter.finishReason,
      latencyMs: meter.latencyMs,
      generationTimeMs: meter.generationTimeMs,
      requestRetryTimes: Math.max(0, this.attempts - 1),
      finalRetry: this.finalRetry,
      errorMessage,
      completedAt: Date.now(),
    };
    // Ended before its start was written: the start goes with the finish, as one row.
    const whole = !this.startWritten;
    this.startWritten = true;
    this.unwritten.delete(this);
    this.record(finish, meter.sawUsage, whole).catch((err) => {
      this.spendHold?.released();
      this.deps.log.error({ err, generationId: this.start.id }, "ledger finish failed");
    });
  }

  /** Writes the finish; a generation with usage is settled with it, or later after the settle delay. */
  private async record(finish: GenerationEnd, withUsage: boolean, whole: boolean): Promise<void> {
    let hasUsage = withUsage;
    const { settlement, store } = this.deps;
    const generation = { id: this.start.id, ...this.caller };
    const model = this.pricedModel ?? this.model;
    let settleNow = hasUsage && settlement.immediate;
    if (settleNow) {
      try {
        finish.settlement = await settlement.settlementOf(generation, model, finish.usage);
        this.deps.budget?.spend(this.caller.keyId, this.start.createdAt, finish.settlement.rating.usage);
        this.costIs(finish.settlement.rating.usage);
      } catch (err) {
        // The generation is recorded either way. Rated later when the store was only unavailable
        // (the account's discount could not be read); a rating that fails for any other reason is
        // logged, and the row stays unsettled for an operator to look at.
        settleNow = false;
        if (!isStoreUnavailable(err)) {
          hasUsage = false;
          this.deps.log.error({ err, generationId: this.start.id }, "rating failed");
        }
      }
    }
    this.costIs(undefined); // (no effect when the cost is known already)
    await (whole ? store.recordGeneration(this.start, finish) : store.finishGeneration(finish));
    const hold = this.spendHold;
    if (settleNow) {
      settlement.settledWithFinish(this.caller.accountId);
      hold?.settled(finish.settlement!.rating.usage);
    } else if (hasUsage)
      settlement.schedule(generation, model, finish.usage, hold && ((cost) => settledOrReleased(hold, cost)));
    else hold?.released();
  }
}

/** A hold becomes the cost its generation settled with, or goes when it settled with none. */
function settledOrReleased(hold: SpendHandle, cost: string | undefined): void {
  if (cost === undefined) hold.released();
  else hold.settled(cost);
}
