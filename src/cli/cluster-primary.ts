// `serve --workers N`: the primary. It does the once-only start-up work (migrate, mark what dead
// processes left pending, settle leftovers, install keys), forks N workers that each serve on the
// shared port (node:cluster hands each new connection to one of them), prints the listening line once
// all of them listen, and from then on keeps N alive: a worker that dies has the generations it was
// serving marked interrupted (only those: each pending row names its owner) and is replaced, after a
// backoff when it dies soon after its start, so that a worker that cannot start does not spin.
// SIGTERM or SIGINT stops the workers gracefully (each finishes its requests and flushes its ledger
// writes), then the primary exits 0. The operator's view is in docs/operations.md, "Workers".

import cluster, { type Worker } from "node:cluster";
import { randomUUID } from "node:crypto";
import { fileURLToPath } from "node:url";
import type { Config } from "../config/load.ts";
import { labelledExposition, type WorkerExposition } from "../gateway/metrics-merge.ts";
import { Settlement } from "../gateway/settlement.ts";
import { openStore } from "../ledger/open-store.ts";
import { newOwnerId } from "../ledger/owner.ts";
import type { Store } from "../ledger/types.ts";
import { stopOnSignals } from "./gateway-process.ts";
import { startUpOnce, startUpReport } from "./start-up.ts";
import { WorkersFailedError } from "./workers-failed.ts";

const WORKER_ENTRY = fileURLToPath(new URL("./cluster-worker.ts", import.meta.url));

/** A worker that lived this long before dying is replaced at once; one that died sooner, after a backoff. */
const STABLE_AFTER_MS = 10_000;
const FIRST_BACKOFF_MS = 250;
const MAX_BACKOFF_MS = 30_000;
/** A worker too busy to give its metrics within this is left out of that scrape. */
const SNAPSHOT_WAIT_MS = 1_000;

/** Primary → worker: what to serve, and the owner id to write its generations under. */
export interface StartMessage {
  type: "switchyard:start";
  config: Config;
  owner: string;
}

/** Primary → worker. */
export type PrimaryMessage =
  | StartMessage
  /** Send me your own metrics text. */
  | { type: "switchyard:snapshot?"; id: string }
  /** Every worker's metrics, which you asked for. */
  | { type: "switchyard:metrics"; id: string; text: string };

/** Worker → primary. */
export type WorkerMessage =
  | { type: "switchyard:ready" }
  | { type: "switchyard:listening"; url: string }
  /** A scrape of GET /metrics: gather every worker's metrics. */
  | { type: "switchyard:metrics?"; id: string }
  | { type: "switchyard:snapshot"; id: string; text: string };

function log(line: string): void {
  process.stderr.write(`switchyard: ${line}\n`);
}

export async function servePrimary(config: Config, workers: number): Promise<void> {
  const store = openStore(config.storage.url, { sharedByProcesses: true });
  await store.migrate();
  const settlement = new Settlement({
    store,
    delayMs: config.billing.settleDelayMs,
    priceVersion: config.billing.priceVersion,
    log: { error: (obj, msg) => log(`${msg ?? "error"}: ${(obj as { err?: Error }).err?.message ?? ""}`) },
  });
  const startUp = await startUpOnce(config, store, settlement);

  cluster.setupPrimary({ exec: WORKER_ENTRY, args: [], serialization: "advanced" });
  const pool = new WorkerPool(config, store, workers);
  const release = async () => {
    await pool.stop();
    settlement.stop();
    await settlement.flush();
    await store.close();
  };
  stopOnSignals(async () => {
    await release();
    process.exit(0);
  });
  let url: string;
  try {
    url = await pool.start();
  } catch (error) {
    await release();
    throw error;
  }
  process.stdout.write(startUpReport(startUp, url));
}

interface Slot {
  worker?: Worker;
  forkedAt: number;
  listening: boolean;
  backoffMs: number;
  /** Resolves once the current worker's exit has been handled (its generations marked). */
  exited: Promise<void>;
  restart?: ReturnType<typeof setTimeout>;
}

/**
 * Fails a dead worker's background runs, then marks the generations it was serving interrupted, and
 * says what came of each (`; …` clauses for the log line). Each on its own: runs that cannot be
 * failed must not leave its generations, and the spend they hold, pending.
 */
export async function markDeadWorker(store: Store, owner: string): Promise<string> {
  let told = "";
  try {
    const n = await store.responses.failRunsOf([owner]);
    if (n > 0) told += `; ${n} background response(s) it was running failed`;
  } catch (error) {
    told += `; its background responses could not be failed: ${(error as Error).message}`;
  }
  try {
    const n = await store.markInterrupted([owner]);
    // The generations first in the line, as it read before runs were failed too.
    if (n > 0) told = `; ${n} generation(s) it was serving marked interrupted${told}`;
  } catch (error) {
    told += `; its in-flight generations could not be marked interrupted: ${(error as Error).message}`;
  }
  return told;
}

class WorkerPool {
  private readonly config: Config;
  private readonly store: Store;
  private readonly slots: Slot[];
  private stopping = false;
  private url: string | undefined;
  private startedAll = false;
  /** Metrics asked of a worker, by request id: told its answer. */
  private readonly snapshots = new Map<string, (text: string) => void>();
  private firstStart!: { resolve: (url: string) => void; reject: (error: Error) => void };

  constructor(config: Config, store: Store, workers: number) {
    this.config = config;
    this.store = store;
    this.slots = Array.from({ length: workers }, () => ({
      forkedAt: 0,
      listening: false,
      backoffMs: 0,
      exited: Promise.resolve(),
    }));
  }

  /** Forks every worker; resolves to the URL once all of them listen. */
  start(): Promise<string> {
    const started = new Promise<string>((resolve, reject) => {
      this.firstStart = { resolve, reject };
    });
    for (const slot of this.slots) this.fork(slot);
    return started;
  }

  /** Stops every worker gracefully and waits for them all to be gone. */
  async stop(): Promise<void> {
    this.stopping = true;
    for (const slot of this.slots) {
      clearTimeout(slot.restart);
      slot.worker?.process.kill("SIGTERM");
    }
    await Promise.all(this.slots.map((slot) => slot.exited));
  }

  private fork(slot: Slot): void {
    slot.restart = undefined;
    if (this.stopping) return;
    const worker = cluster.fork();
    const owner = newOwnerId(worker.process.pid);
    Object.assign(slot, { worker, forkedAt: Date.now(), listening: false });
    worker.on("message", (message: WorkerMessage) => {
      if (message?.type === "switchyard:ready") {
        this.send(worker, { type: "switchyard:start", config: this.config, owner });
      } else if (message?.type === "switchyard:listening") this.listening(slot, worker, message.url);
      else if (message?.type === "switchyard:snapshot") this.snapshots.get(message.id)?.(message.text);
      else if (message?.type === "switchyard:metrics?") {
        void this.everyWorkersMetrics().then((text) =>
          this.send(worker, { type: "switchyard:metrics", id: message.id, text }),
        );
      }
    });
    // An IPC error (a worker gone mid-send) must not take the primary down; the exit follows.
    worker.on("error", (error) => log(`worker ${worker.id}: ${error.message}`));
    slot.exited = new Promise((resolve) => {
      worker.once("exit", (code, signal) => {
        this.exited(slot, worker, owner, code, signal).finally(resolve);
      });
    });
  }

  private send(worker: Worker, message: PrimaryMessage): void {
    if (worker.isConnected()) worker.send(message);
  }

  /** Each listening worker's metrics, labelled with its place (1…N); a worker slow to answer is left out. */
  private async everyWorkersMetrics(): Promise<string> {
    const parts = await Promise.all(
      this.slots.map(async (slot, index): Promise<WorkerExposition | undefined> => {
        const worker = slot.worker;
        if (!worker || !slot.listening) return undefined;
        const id = randomUUID();
        const text = await new Promise<string | undefined>((resolve) => {
          const timer = setTimeout(() => resolve(undefined), SNAPSHOT_WAIT_MS);
          this.snapshots.set(id, (answer) => {
            clearTimeout(timer);
            resolve(answer);
          });
          this.send(worker, { type: "switchyard:snapshot?", id });
        });
        this.snapshots.delete(id);
        return text === undefined ? undefined : { worker: String(index + 1), text };
      }),
    );
    return labelledExposition(parts.filter((p) => p !== undefined));
  }

  private listening(slot: Slot, worker: Worker, url: string): void {
    if (slot.worker !== worker) return;
    slot.listening = true;
    log(`worker ${worker.id} (pid ${worker.process.pid}) listening`);
    if (this.startedAll) {
      // With --port 0, a worker started while no other was left listens on a new port.
      if (url !== this.url) process.stdout.write(`switchyard listening on ${url}\n`);
      this.url = url;
      return;
    }
    this.url ??= url;
    if (this.slots.every((s) => s.listening)) {
      this.startedAll = true;
      this.firstStart.resolve(this.url);
    }
  }

  private async exited(
    slot: Slot,
    worker: Worker,
    owner: string,
    code: number | null,
    signal: string | null,
  ): Promise<void> {
    if (slot.worker === worker) slot.worker = undefined;
    slot.listening = false;
    const how = signal ? `was killed by ${signal}` : `exited with code ${code}`;
    const marked = await markDeadWorker(this.store, owner);
    const who = `worker ${worker.id} (pid ${worker.process.pid})`;
    if (this.stopping) {
      if (signal || code !== 0) log(`${who} ${how}${marked}`);
      return;
    }
    if (!this.startedAll) {
      log(`${who} ${how} before it was listening${marked}`);
      this.stop().finally(() =>
        this.firstStart.reject(
          new WorkersFailedError(`worker ${worker.id} could not start (it ${how})`, code || 1),
        ),
      );
      return;
    }
    const lived = Date.now() - slot.forkedAt;
    slot.backoffMs =
      lived >= STABLE_AFTER_MS ? 0 : Math.min(Math.max(slot.backoffMs * 2, FIRST_BACKOFF_MS), MAX_BACKOFF_MS);
    log(`${who} ${how} after ${lived} ms${marked}; a new worker starts in ${slot.backoffMs} ms`);
    slot.restart = setTimeout(() => this.fork(slot), slot.backoffMs);
  }
}
