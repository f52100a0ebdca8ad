// WAL checkpoints off the event loop. SQLite checkpoints from the connection that commits, once the
// log passes 1,000 pages: on the gateway's one thread, with two fsyncs that took 12–15 ms on this
// project's CI machine every few seconds under load, a pause every request then in flight waited
// out. The store turns that off on its own connection and a thread of its own
// (sqlite-checkpoint-worker.js) checkpoints instead; when the log has grown past `resetFrames` the
// thread asks the store to hold its writes for one checkpoint, so that the log starts afresh.
// docs/architecture.md §5.

import { Worker } from "node:worker_threads";

/** How often the log is checkpointed: about every 50 of the write queue's 20 ms batches under load. */
export const CHECKPOINT_INTERVAL_MS = 1000;

/** Frames (16 KiB pages) in the log past which the thread asks for a pause to start it afresh: 16 MiB. */
export const RESET_FRAMES = 1024;

/**
 * The longest the store holds its writes for the thread: a thread that asked and then died (or is
 * stuck in a checkpoint) must not hold the ledger for long.
 */
const MAX_PAUSE_MS = 2000;

/** The slots of the state shared with the thread, and a pause's steps (the thread gets both in its workerData). */
const SLOT = { frames: 0, pause: 1 } as const;
const STEP = { none: 0, asked: 1, paused: 2 } as const;

export class Checkpointer {
  private readonly worker: Worker;
  /**
   * Shared with the thread: the frames it has checkpointed, counted there (a message per checkpoint
   * would keep a process alive that should exit: a listener for them holds the thread's port
   * open), and the pause it asks for.
   */
  private readonly state = new Int32Array(new SharedArrayBuffer(8));
  private pauses = 0;
  private readonly exited: Promise<void>;
  private stopping = false;

  /** `onFailed`: the thread ended on its own; the store then checkpoints on its connection again. */
  constructor(
    path: string,
    onFailed: (error: Error) => void,
    intervalMs = CHECKPOINT_INTERVAL_MS,
    resetFrames = RESET_FRAMES,
  ) {
    this.worker = new Worker(new URL("./sqlite-checkpoint-worker.js", import.meta.url), {
      name: "switchyard-checkpoint",
      workerData: { path, intervalMs, resetFrames, state: this.state, slot: SLOT, step: STEP },
    });
    // It must never keep a process alive (a CLI command that opened the store must still exit).
    this.worker.unref();
    let failure: Error | undefined;
    this.worker.on("error", (error) => {
      failure = error;
    });
    this.exited = new Promise((done) =>
      this.worker.once("exit", () => {
        // A pause it asked for, or was in, ends with it.
        Atomics.store(this.state, SLOT.pause, STEP.none);
        Atomics.notify(this.state, SLOT.pause);
        if (!this.stopping) onFailed(failure ?? new Error("the checkpoint thread exited"));
        done();
      }),
    );
  }

  /** Frames the thread has checkpointed so far (tests and diagnostics). */
  get checkpointedFrames(): number {
    return Atomics.load(this.state, SLOT.frames);
  }

  /** Times the store held its writes for the thread to start the log afresh (tests and diagnostics). */
  get pausesMade(): number {
    return this.pauses;
  }

  /**
   * Called before each batch of writes: undefined when the store may write at once; when the thread
   * has asked for a pause, tells it the writes are held and resolves once its checkpoint is done.
   * The event loop goes on meanwhile; the writes wait in the queue.
   */
  writesMayGo(): Promise<void> | undefined {
    const { pause } = SLOT;
    if (Atomics.compareExchange(this.state, pause, STEP.asked, STEP.paused) !== STEP.asked) return undefined;
    this.pauses++;
    Atomics.notify(this.state, SLOT.pause);
    const wait = Atomics.waitAsync(this.state, pause, STEP.paused);
    if (!wait.async) return undefined; // the thread is done already
    // A pending waitAsync does not keep the event loop alive; the timer does, and bounds the pause.
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.release();
        resolve();
      };
      const timer = setTimeout(done, MAX_PAUSE_MS);
      void wait.value.then(done);
    });
  }

  /** Ends a pause the thread did not end (it kept the store waiting too long). */
  private release(): void {
    if (Atomics.compareExchange(this.state, SLOT.pause, STEP.paused, STEP.none) === STEP.paused)
      Atomics.notify(this.state, SLOT.pause);
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
