// WAL checkpoints off the event loop. SQLite checkpoints from the connection that commits, once the
// log passes 1,000 pages: on the gateway's one thread, with two fsyncs that took 12–15 ms on this
// project's CI machine every few seconds under load, a pause every request then in flight waited
// out. The store turns that off on its own connection and a thread of its own
// (sqlite-checkpoint-worker.js) checkpoints instead. docs/architecture.md §5.

import { Worker } from "node:worker_threads";

/** How often the log is checkpointed: about every 50 of the write queue's 20 ms batches under load. */
export const CHECKPOINT_INTERVAL_MS = 1000;

export class Checkpointer {
  private readonly worker: Worker;
  /** Frames the thread has checkpointed, counted there (a message per checkpoint would keep a
   *  process alive that should exit: a listener for them holds the thread's port open). */
  private readonly frames = new Int32Array(new SharedArrayBuffer(4));
  private readonly exited: Promise<void>;
  private stopping = false;

  /** `onFailed`: the thread ended on its own; the store then checkpoints on its connection again. */
  constructor(path: string, onFailed: (error: Error) => void, intervalMs = CHECKPOINT_INTERVAL_MS) {
    this.worker = new Worker(new URL("./sqlite-checkpoint-worker.js", import.meta.url), {
      name: "switchyard-checkpoint",
      workerData: { path, intervalMs, frames: this.frames },
    });
    // It must never keep a process alive (a CLI command that opened the store must still exit).
    this.worker.unref();
    let failure: Error | undefined;
    this.worker.on("error", (error) => {
      failure = error;
    });
    this.exited = new Promise((done) =>
      this.worker.once("exit", () => {
        if (!this.stopping) onFailed(failure ?? new Error("the checkpoint thread exited"));
        done();
      }),
    );
  }

  /** Frames the thread has checkpointed so far (tests and diagnostics). */
  get checkpointedFrames(): number {
    return Atomics.load(this.frames, 0);
  }

  /** The thread's V8 heap (tests: it must stay small, see sqlite-checkpoint-worker.js). */
  heapStatistics(): Promise<import("node:v8").HeapInfo> {
    return this.worker.getHeapStatistics();
  }

  /** Ends the thread as if it had failed (tests). */
  async fail(): Promise<void> {
    await this.worker.terminate();
    await this.exited;
  }

  /** Checkpoints once more and ends the thread. */
  async close(): Promise<void> {
    if (this.stopping) return this.exited;
    this.stopping = true;
    this.worker.postMessage({ kind: "stop" });
    // A thread stuck in a checkpoint is not waited for past a second.
    const timer = setTimeout(() => void this.worker.terminate(), 1000);
    await this.exited;
    clearTimeout(timer);
  }
}
