// The gateway's side of the local models' thread (worker.ts): started on the first local request, so
// a gateway that only relays to real providers never loads the tokenizer; restarted on the next
// request if it dies, failing only the jobs it owed.

import { Worker } from "node:worker_threads";
import { GatewayError } from "../../ir/errors.ts";
import type { LocalJob, LocalJobResult } from "./worker.ts";

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;
export type LocalJobRequest = DistributiveOmit<LocalJob, "id">;

interface Pending {
  resolve(value: unknown): void;
  reject(error: Error): void;
}

class LocalThread {
  dead = false;
  private readonly worker: Worker;
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;

  constructor() {
    this.worker = new Worker(new URL("./worker.ts", import.meta.url), { name: "switchyard-local" });
    // The thread keeps the process alive only while it owes answers (a CLI command must still exit).
    this.worker.unref();
    this.worker.on("message", (result: LocalJobResult) => this.settle(result));
    this.worker.on("error", (error) => this.fail(error));
    this.worker.on("exit", (code) =>
      this.fail(new Error(`the local models' thread exited with code ${code}`)),
    );
  }

  run(job: LocalJobRequest): Promise<unknown> {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      if (this.pending.size === 0) this.worker.ref();
      this.pending.set(id, { resolve, reject });
      this.worker.postMessage({ ...job, id } as LocalJob);
    });
  }

  private settle(result: LocalJobResult): void {
    const job = this.pending.get(result.id);
    if (!job) return;
    this.pending.delete(result.id);
    if (this.pending.size === 0) this.worker.unref();
    if ("value" in result) job.resolve(result.value);
    else {
      const { message, kind, status, param } = result.error;
      job.reject(kind ? new GatewayError(kind, message, { status, param }) : new Error(message));
    }
  }

  private fail(error: Error): void {
    this.dead = true;
    for (const job of this.pending.values()) job.reject(error);
    this.pending.clear();
  }
}

let thread: LocalThread | undefined;

/** Runs a job on the local models' thread; resolves with what it returns, rejects with what it throws. */
export function onLocalThread(job: LocalJobRequest): Promise<unknown> {
  if (!thread || thread.dead) thread = new LocalThread();
  return thread.run(job);
}
