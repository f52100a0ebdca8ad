// storage.retention_days: raw generation rows older than that are deleted, a small batch at a time
// with a pause between batches, from a timer (never on a request's path); the rollups stay. Stored
// responses (storage.responses_retention_days) go the same way, by their own `remove`. Several
// processes may run it on one store: each batch is its own short transaction and skips rows another
// holds. docs/operations.md, "Retention".

import { isStoreUnavailable } from "../ledger/ledger-errors.ts";
import type { Store } from "../ledger/types.ts";
import { generationIdBound } from "./ids.ts";

export interface RetentionOptions {
  days: number;
  /** Rows per delete; each batch holds the store (SQLite: the event loop too) for a few ms. */
  batch?: number;
  /** Pause between batches, ms, so generation writes get the store in between. */
  pauseMs?: number;
  /** How often a sweep starts, ms; the first soon after start. */
  everyMs?: number;
  log?: { warn(obj: unknown, msg?: string): void };
  /** Deletes up to `limit` rows whose id is below the bound; the generations when not given. */
  remove?: (idBefore: string, limit: number) => Promise<number>;
}

export class Retention {
  private readonly opts: Required<Omit<RetentionOptions, "log" | "remove">> & Pick<RetentionOptions, "log">;
  private readonly remove: (idBefore: string, limit: number) => Promise<number>;
  private timer: NodeJS.Timeout | undefined;
  private sweeping: Promise<number> | undefined;
  private stopped = false;

  constructor(store: Store, opts: RetentionOptions) {
    const { remove, ...rest } = opts;
    this.opts = { batch: 500, pauseMs: 20, everyMs: 3_600_000, ...rest };
    this.remove = remove ?? ((idBefore, limit) => store.deleteGenerations(idBefore, limit));
  }

  start(firstInMs = 1_000): void {
    this.schedule(firstInMs);
  }

  stop(): Promise<number | undefined> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    return this.sweeping ?? Promise.resolve(undefined);
  }

  /** Deletes every expired row, batch by batch; returns how many went. */
  sweep(now = Date.now()): Promise<number> {
    this.sweeping ??= this.deleteExpired(now).finally(() => {
      this.sweeping = undefined;
    });
    return this.sweeping;
  }

  private schedule(inMs: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.sweep()
        .catch((err) => {
          if (!isStoreUnavailable(err)) this.opts.log?.warn({ err }, "retention sweep failed");
        })
        .finally(() => this.schedule(this.opts.everyMs));
    }, inMs);
    this.timer.unref();
  }

  private async deleteExpired(now: number): Promise<number> {
    const bound = generationIdBound(now - this.opts.days * 86_400_000);
    let total = 0;
    while (!this.stopped) {
      const deleted = await this.remove(bound, this.opts.batch);
      total += deleted;
      if (deleted < this.opts.batch) break;
      await new Promise((resolve) => setTimeout(resolve, this.opts.pauseMs));
    }
    return total;
  }
}
