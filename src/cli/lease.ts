// Gateways started apart from each other may share one PostgreSQL. None of them can know that another
// has died, so each serving process keeps a lease on its owner id and, while it serves, marks the
// pending generations of the gateways whose lease has run out (Store.markAbandoned), and fails their
// background responses: a gateway killed for good has its in-flight generations marked interrupted,
// and its runs failed, within LEASE_MS + RENEW_MS by any gateway still running. On the embedded store
// (one `serve` per file) no lease is kept: its start marks every pending generation and run, and its
// primary marks a dead worker's at once.

import type { Store } from "../ledger/types.ts";

/** How often a serving process renews its lease and looks for silent ones. */
export const LEASE_RENEW_MS = 10_000;
/**
 * How long a lease may go unrenewed before its owner counts as dead: several renewals, so that a
 * busy event loop or a short database outage does not mark a live gateway's generations (were it to
 * happen, their finish still completes them: a finish also completes an 'interrupted' row).
 */
export const LEASE_MS = 60_000;

/** On start-up: how long an owner must have been silent for its pending generations to be abandoned. */
export function startUpSilenceMs(store: Store): number {
  return store.sharedByGateways ? LEASE_MS : 0;
}

export interface LeaseOptions {
  renewMs?: number;
  leaseMs?: number;
  /** Where a failure or a sweep is told; one line each. */
  log?: (line: string) => void;
}

/** Renews the store owner's lease and marks silent owners' generations, while the process serves. */
export class LeaseKeeper {
  private readonly store: Store;
  private readonly renewMs: number;
  private readonly leaseMs: number;
  private readonly log: (line: string) => void;
  private timer: ReturnType<typeof setInterval> | undefined;
  private running: Promise<void> | undefined;
  /** A failure is told once, not at every renewal while the database is away. */
  private failing = false;

  constructor(store: Store, options: LeaseOptions = {}) {
    this.store = store;
    this.renewMs = options.renewMs ?? LEASE_RENEW_MS;
    this.leaseMs = options.leaseMs ?? LEASE_MS;
    this.log = options.log ?? ((line) => process.stderr.write(`switchyard: ${line}\n`));
  }

  /** Takes the lease (before the process serves: its first generation must already be covered). */
  async start(): Promise<void> {
    if (!this.store.sharedByGateways) return;
    await this.renew();
    this.timer = setInterval(() => {
      this.running ??= this.tick().finally(() => {
        this.running = undefined;
      });
    }, this.renewMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.running;
  }

  private async tick(): Promise<void> {
    if (!(await this.renew())) return;
    const silent = `of gateways silent for ${this.leaseMs} ms`;
    // Runs first, as at start-up (start-up.ts): the silent owners' leases are still there to judge by.
    // Each sweep on its own: runs that cannot be read must not leave the generations, and the spend
    // they hold, pending.
    await this.sweep("background responses", async () => {
      const runs = await this.store.responses.markAbandonedRuns(this.leaseMs);
      if (runs > 0) this.log(`marked ${runs} background response(s) ${silent} as failed`);
    });
    await this.sweep("generations", async () => {
      const marked = await this.store.markAbandoned(this.leaseMs);
      if (marked > 0) this.log(`marked ${marked} generation(s) ${silent} as interrupted`);
    });
  }

  private async sweep(what: string, work: () => Promise<void>): Promise<void> {
    try {
      await work();
    } catch (error) {
      this.log(`could not look for silent gateways' ${what}: ${(error as Error).message}`);
    }
  }

  private async renew(): Promise<boolean> {
    try {
      await this.store.renewLease();
      if (this.failing) this.log("ledger lease renewed again");
      this.failing = false;
      return true;
    } catch (error) {
      if (!this.failing)
        this.log(
          `could not renew the ledger lease (${(error as Error).message}); after ${this.leaseMs} ms ` +
            "other gateways may mark this one's in-flight generations interrupted until it is renewed",
        );
      this.failing = true;
      return false;
    }
  }
}
