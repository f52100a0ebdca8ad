// Group commit for the generation ledger. The request path enqueues a start or a finish and goes on;
// a writer applies everything queued in one transaction per batch, either after a short delay or as
// soon as a batch is full. While one batch commits, the next one fills, so under load the number of
// transactions stays far below the number of writes.
//
// Durability trade-off (deliberate): the gateway does not await `startGeneration` before calling the
// upstream, so a write is acknowledged only when its promise resolves, after its batch commits. A
// process killed with SIGKILL loses at most what was queued in the last `delayMs` plus the batch in
// flight (a few ms of starts and finishes); everything acknowledged is in the database. A graceful
// stop calls `close()`, which flushes. Starts that were written but never finished are marked
// 'interrupted' once their process is known dead: by the next start-up, by the cluster primary when a
// worker dies, or by another gateway once the dead one's lease runs out (docs/operations.md, Workers).

import type { GenerationEnd, GenerationStart } from "./types.ts";

export type GenerationWrite =
  | { kind: "start"; start: GenerationStart }
  | { kind: "finish"; end: GenerationEnd }
  /** A generation that ended before its start was written: one row, written once. */
  | { kind: "whole"; start: GenerationStart; end: GenerationEnd };

/** Per write, in order: undefined when applied, or the reason it was not. */
export type BatchOutcome = Array<Error | undefined>;

/** Applies writes in one transaction, in queue order (a finish after its own start). */
export type ApplyBatch = (writes: GenerationWrite[]) => Promise<BatchOutcome>;

export interface WriteQueueOptions {
  /** How long the first write of a batch waits for company, ms. */
  delayMs?: number;
  /** A batch this full is written at once. */
  maxBatch?: number;
  /** Told about every write that failed (callers on the hot path do not await). */
  onError?: (error: Error) => void;
}

interface QueuedWrite {
  write: GenerationWrite;
  /** Settles (either way) once the write's batch is done. */
  done: Promise<void>;
  resolve: () => void;
  reject: (error: Error) => void;
}

export function generationIdOf(write: GenerationWrite): string {
  return write.kind === "finish" ? write.end.id : write.start.id;
}

function reportToConsole(error: Error): void {
  console.error(`switchyard ledger: a generation write failed: ${error.message}`);
}

export class WriteQueue {
  private readonly apply: ApplyBatch;
  private readonly delayMs: number;
  private readonly maxBatch: number;
  private readonly onError: (error: Error) => void;
  private queue: QueuedWrite[] = [];
  /** Generation id → writes for it that are queued or being committed. */
  private readonly idsInFlight = new Map<string, number>();
  private timer: ReturnType<typeof setTimeout> | undefined;
  private writing: Promise<void> | undefined;
  private batchInFlight: Promise<void> | undefined;
  private closed = false;
  private batches = 0;

  constructor(apply: ApplyBatch, options: WriteQueueOptions = {}) {
    this.apply = apply;
    this.delayMs = options.delayMs ?? 20;
    this.maxBatch = options.maxBatch ?? 500;
    this.onError = options.onError ?? reportToConsole;
  }

  /** Number of transactions written so far (for tests and metrics). */
  get batchesWritten(): number {
    return this.batches;
  }

  enqueue(write: GenerationWrite): Promise<void> {
    if (this.closed) return Promise.reject(new Error("the ledger store is closed"));
    let settle!: Pick<QueuedWrite, "resolve" | "reject">;
    const acknowledged = new Promise<void>((resolve, reject) => {
      settle = { resolve, reject };
    });
    // Handling the promise here means a caller who does not await cannot crash the process with an
    // unhandled rejection; the failure still reaches onError, and a caller who awaits still sees it.
    const done = acknowledged.catch(() => {});
    this.queue.push({ write, done, ...settle });
    const id = generationIdOf(write);
    this.idsInFlight.set(id, (this.idsInFlight.get(id) ?? 0) + 1);
    if (this.queue.length >= this.maxBatch) this.startWriting();
    else this.schedule();
    return acknowledged;
  }

  /** True while a write for this generation is queued or committing: a reader must flush first. */
  hasPendingWrite(id: string): boolean {
    return this.idsInFlight.has(id);
  }

  /**
   * Resolves once everything enqueued before the call is committed (or has failed). Writes enqueued
   * later are not waited for, so a flush ends even while traffic keeps the writer busy. Batches commit
   * in queue order, so the last write queued now is the last one to wait for.
   */
  async flush(): Promise<void> {
    const last = this.queue.at(-1)?.done ?? this.batchInFlight;
    this.startWriting();
    await last;
  }

  /** Flushes, then refuses further writes. */
  async close(): Promise<void> {
    this.closed = true;
    await this.flush();
  }

  private schedule(): void {
    if (this.timer || this.writing) return; // a running writer picks new writes up when its batch ends
    this.timer = setTimeout(() => this.startWriting(), this.delayMs);
  }

  private startWriting(): void {
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = undefined;
    }
    if (this.writing || this.queue.length === 0) return;
    this.writing = this.writeAll().finally(() => {
      this.writing = undefined;
      if (this.queue.length > 0) this.schedule();
    });
  }

  private async writeAll(): Promise<void> {
    while (this.queue.length > 0) {
      this.batchInFlight = this.writeBatch(this.queue.splice(0, this.maxBatch));
      await this.batchInFlight;
      this.batchInFlight = undefined;
    }
  }

  private async writeBatch(batch: QueuedWrite[]): Promise<void> {
    let outcome: BatchOutcome;
    try {
      outcome = await this.apply(batch.map((q) => q.write));
      this.batches++;
      for (const error of outcome) if (error) this.report(error);
    } catch (cause) {
      const message = cause instanceof Error ? cause.message : String(cause);
      const error = new Error(`could not write ${batch.length} generation records: ${message}`, { cause });
      outcome = batch.map(() => error);
      this.report(error);
    }
    batch.forEach((queued, i) => {
      this.forget(generationIdOf(queued.write));
      const error = outcome[i];
      if (error) queued.reject(error);
      else queued.resolve();
    });
  }

  /** A throwing onError must not stop the writer. */
  private report(error: Error): void {
    try {
      this.onError(error);
    } catch {
      // nothing sensible left to do with it
    }
  }

  private forget(id: string): void {
    const left = (this.idsInFlight.get(id) ?? 1) - 1;
    if (left > 0) this.idsInFlight.set(id, left);
    else this.idsInFlight.delete(id);
  }
}
