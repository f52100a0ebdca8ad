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
//
// When the store is away (docs/operations.md, "When the store or Redis goes away"), a batch that
// fails for that reason is kept and tried again, with backoff, until the store answers; writes made
// meanwhile wait behind it in memory, in order. `full` tells the gateway to refuse new generations
// once `maxBacklog` writes wait, so that nothing is served that could not be recorded. A batch that
// fails for any other reason is written again one write at a time, so that one bad write fails alone.

import { GenerationWriteConflict, isStoreUnavailable, StoreUnavailable } from "./ledger-errors.ts";
import type { GenerationEnd, GenerationStart } from "./types.ts";

export type GenerationWrite =
  | { kind: "start"; start: GenerationStart }
  | { kind: "finish"; end: GenerationEnd }
  /** A generation that ended before its start was written: one row, written once. */
  | { kind: "whole"; start: GenerationStart; end: GenerationEnd };

/**
 * A write a transaction did not get to: it had held the event loop for its turn. The queue hands it
 * back, with the writes after it, in a turn of its own.
 */
export const NOT_REACHED: unique symbol = Symbol("not reached");

/** One write's outcome: undefined when applied, the reason it was not, or NOT_REACHED. */
export type WriteOutcome = Error | undefined | typeof NOT_REACHED;

/** Per write, in order. */
export type BatchOutcome = WriteOutcome[];

/**
 * Applies writes in one transaction, in queue order (a finish after its own start). It always
 * applies the first write; when `mayLeave`, it may leave later ones NOT_REACHED. The queue allows
 * that only while it keeps up: a full batch, or one with more writes waiting behind it, is written
 * whole, so that under heavy load the writer's share of the event loop never falls below what comes
 * in, and its transactions stay as few as before.
 */
export type ApplyBatch = (writes: GenerationWrite[], mayLeave: boolean) => Promise<BatchOutcome>;

export interface WriteQueueOptions {
  /** How long the first write of a batch waits for company, ms. */
  delayMs?: number;
  /** A batch this full is written at once. */
  maxBatch?: number;
  /** Told about every write that failed, and when the store goes away (callers do not await). */
  onError?: (error: Error) => void;
  /** Told when the store answers again after writes waited for it. */
  onRecovered?: (message: string) => void;
  /** Writes waiting (queued or committing) at which `full` turns true. */
  maxBacklog?: number;
  /** First wait before a batch is tried again while the store is away, ms; doubles each time. */
  retryDelayMs?: number;
  /** Longest wait between two tries, ms: the store is written again at most this long after it is back. */
  maxRetryDelayMs?: number;
  /** How long `close()` keeps trying a store that is away before it gives up on what is left, ms. */
  closeGraceMs?: number;
}

/** Defaults, documented in docs/operations.md. */
export const WRITE_QUEUE_DEFAULTS = {
  delayMs: 20,
  maxBatch: 500,
  maxBacklog: 10_000,
  retryDelayMs: 50,
  maxRetryDelayMs: 1_000,
  closeGraceMs: 10_000,
} as const;

/** How long a read waits for a generation's own pending write before it answers 503, ms. */
const READ_WAIT_MS = 2_000;

interface QueuedWrite {
  write: GenerationWrite;
  /** Settles (either way) once the write's batch is done. */
  done: Promise<void>;
  resolve: () => void;
  reject: (error: Error) => void;
}

function ignore(): void {}
const PENDING = Promise.resolve();

/** close() waited out its grace and the store is still away: what is left is given up. */
class GaveUp extends Error {}

export function generationIdOf(write: GenerationWrite): string {
  return write.kind === "finish" ? write.end.id : write.start.id;
}

function reportToConsole(error: Error): void {
  console.error(`switchyard ledger: ${describe(error)}`);
}

function noticeToConsole(message: string): void {
  console.error(`switchyard ledger: ${message}`);
}

/** A StoreUnavailable says only "unavailable" to clients; the log wants the driver's reason too. */
function describe(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  let root: Error = error;
  while (root.cause instanceof Error) root = root.cause;
  return root !== error && !error.message.includes(root.message)
    ? `${error.message} (${root.message})`
    : error.message;
}

export class WriteQueue {
  private readonly apply: ApplyBatch;
  private readonly delayMs: number;
  private readonly maxBatch: number;
  private readonly maxBacklog: number;
  private readonly retryDelayMs: number;
  private readonly maxRetryDelayMs: number;
  private readonly closeGraceMs: number;
  private readonly onError: (error: Error) => void;
  private readonly onRecovered: (message: string) => void;
  private queue: QueuedWrite[] = [];
  /** Generation id → writes for it that are queued or being committed. */
  private readonly idsInFlight = new Map<string, number>();
  private timer: ReturnType<typeof setTimeout> | undefined;
  private writing: Promise<void> | undefined;
  /** Settles once the last write of the batch being committed is (its turn may not reach it). */
  private lastInFlight: Promise<void> | undefined;
  /** Set while the writer waits for its next turn (nextTurn). */
  private resumeWriter: (() => void) | undefined;
  private closedAt: number | undefined;
  private batches = 0;
  /** Writes enqueued and not yet settled. */
  private held = 0;
  /** Set once close() ran out of grace with the store still away. */
  private gaveUp: GaveUp | undefined;
  /** Since when the store has been away (a batch waits to be tried again), or undefined. */
  private awaySince: number | undefined;

  constructor(apply: ApplyBatch, options: WriteQueueOptions = {}) {
    const o = { ...WRITE_QUEUE_DEFAULTS, ...definedOnly(options) };
    this.apply = apply;
    this.delayMs = o.delayMs;
    this.maxBatch = o.maxBatch;
    this.maxBacklog = o.maxBacklog;
    this.retryDelayMs = o.retryDelayMs;
    this.maxRetryDelayMs = o.maxRetryDelayMs;
    this.closeGraceMs = o.closeGraceMs;
    this.onError = options.onError ?? reportToConsole;
    this.onRecovered = options.onRecovered ?? noticeToConsole;
  }

  /** Number of transactions written so far (for tests and metrics). */
  get batchesWritten(): number {
    return this.batches;
  }

  /** Writes waiting to be committed (queued or committing). */
  get backlog(): number {
    return this.held;
  }

  /** The store is away and writes wait in memory for it. */
  get waitingForStore(): boolean {
    return this.awaySince !== undefined;
  }

  /** As many writes wait as the queue may hold: new generations must be refused until it drains. */
  get full(): boolean {
    return this.held >= this.maxBacklog;
  }

  enqueue(write: GenerationWrite): Promise<void> {
    if (this.closedAt !== undefined) return Promise.reject(new Error("the ledger store is closed"));
    // Every field set at once (one shape); resolve, reject and done are the promise's, just below.
    const queued: QueuedWrite = { write, done: PENDING, resolve: ignore, reject: ignore };
    const acknowledged = new Promise<void>((resolve, reject) => {
      queued.resolve = resolve;
      queued.reject = reject;
    });
    // Handling the promise here means a caller who does not await cannot crash the process with an
    // unhandled rejection; the failure still reaches onError, and a caller who awaits still sees it.
    queued.done = acknowledged.catch(ignore);
    this.queue.push(queued);
    this.held++;
    const id = generationIdOf(write);
    this.idsInFlight.set(id, (this.idsInFlight.get(id) ?? 0) + 1);
    if (this.queue.length >= this.maxBatch) {
      this.resumeWriter?.();
      this.startWriting();
    } else this.schedule();
    return acknowledged;
  }

  /** True while a write for this generation is queued or committing: a reader must flush first. */
  hasPendingWrite(id: string): boolean {
    return this.idsInFlight.has(id);
  }

  /**
   * Before a read of these generations: waits for their own pending writes, but not for a store that
   * is away (throws StoreUnavailable, so a reader answers 503 instead of hanging).
   */
  async awaitWritesFor(ids: string | readonly string[]): Promise<void> {
    const pending =
      typeof ids === "string" ? this.hasPendingWrite(ids) : ids.some((id) => this.hasPendingWrite(id));
    if (!pending) return;
    if (this.waitingForStore || !(await this.flush(READ_WAIT_MS))) throw new StoreUnavailable();
  }

  /**
   * Resolves once everything enqueued before the call is committed (or has failed). Writes enqueued
   * later are not waited for, so a flush ends even while traffic keeps the writer busy. Batches commit
   * in queue order, so the last write queued now is the last one to wait for. With `timeoutMs`, gives
   * up waiting after that long and resolves false.
   */
  async flush(timeoutMs?: number): Promise<boolean> {
    const last = this.queue.at(-1)?.done ?? this.lastInFlight;
    this.startWriting();
    if (timeoutMs === undefined || !last) {
      await last;
      return true;
    }
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timedOut = new Promise<boolean>((resolve) => {
      timer = setTimeout(() => resolve(false), timeoutMs);
    });
    try {
      return await Promise.race([last.then(() => true), timedOut]);
    } finally {
      clearTimeout(timer);
    }
  }

  /**
   * Flushes, then refuses further writes. While the store is away, keeps trying for closeGraceMs;
   * then fails what is left (each write rejects, and one report names the generations lost).
   */
  async close(): Promise<void> {
    this.closedAt ??= Date.now();
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
      const batch = this.queue.splice(0, this.maxBatch);
      this.lastInFlight = batch.at(-1)!.done;
      const keepingUp = batch.length < this.maxBatch && this.queue.length === 0;
      const leftSome = await this.writeBatch(batch, keepingUp);
      this.lastInFlight = undefined;
      if (leftSome) await this.nextTurn();
    }
  }

  /**
   * The transaction held the loop for its turn: requests go first (setImmediate), then the rest is
   * written. Not while a full batch waits, nor once one does: the writer must keep up with what comes
   * in, even when the work that makes it never yields to the loop.
   */
  private async nextTurn(): Promise<void> {
    if (this.queue.length >= this.maxBatch) return;
    await new Promise<void>((resolve) => {
      this.resumeWriter = resolve;
      setImmediate(resolve);
    });
    this.resumeWriter = undefined;
  }

  /**
   * Writes a batch, or as much of it as one transaction's turn reaches: the writes it did not reach
   * go back to the front of the queue (true is returned then), and wait for the next turn.
   */
  private async writeBatch(batch: QueuedWrite[], mayLeave: boolean): Promise<boolean> {
    const writes = batch.map((q) => q.write);
    let outcome: BatchOutcome;
    try {
      outcome = await this.applyWaitingForStore(writes, mayLeave);
    } catch (cause) {
      if (cause instanceof GaveUp || batch.length === 1) {
        const error = batchError(writes, cause);
        outcome = batch.map(() => error);
        this.report(error);
      } else {
        // Something in the batch itself (a value the database refuses): one write at a time, so
        // that the others are written and only the bad one fails.
        outcome = [];
        for (const write of writes) outcome.push(await this.applyAlone(write));
      }
    }
    const notReached: QueuedWrite[] = [];
    batch.forEach((queued, i) => {
      const error = outcome[i];
      if (error === NOT_REACHED) {
        notReached.push(queued);
        return;
      }
      this.forget(generationIdOf(queued.write));
      this.held--;
      if (error) queued.reject(error);
      else queued.resolve();
    });
    if (notReached.length === 0) return false;
    this.queue.unshift(...notReached);
    return true;
  }

  private async applyAlone(write: GenerationWrite): Promise<WriteOutcome> {
    try {
      return (await this.applyWaitingForStore([write], false))[0];
    } catch (cause) {
      const error = batchError([write], cause);
      this.report(error);
      return error;
    }
  }

  /**
   * Applies a batch; while the store is away, tries it again with backoff until it is back (or
   * close() runs out of grace: GaveUp). Any other failure is thrown at once. Reports each write that
   * failed alone.
   */
  private async applyWaitingForStore(writes: GenerationWrite[], mayLeave: boolean): Promise<BatchOutcome> {
    let delay = this.retryDelayMs;
    for (let tries = 1; ; tries++) {
      // Once close() has given up, what is left fails at once: the shutdown must end.
      if (this.gaveUp) throw this.gaveUp;
      let outcome: BatchOutcome;
      try {
        outcome = await this.apply(writes, mayLeave);
      } catch (cause) {
        if (!isStoreUnavailable(cause)) throw cause;
        if (this.closedAt !== undefined && Date.now() - this.closedAt >= this.closeGraceMs) {
          const grace = `the store stayed unavailable through the ${this.closeGraceMs} ms shutdown grace`;
          this.gaveUp = new GaveUp(grace, { cause });
          throw this.gaveUp;
        }
        if (this.awaySince === undefined) {
          this.awaySince = Date.now();
          this.report(
            new Error(
              `the store is unavailable; ${this.held} generation write(s) are kept in memory and retried ` +
                `(new generations are refused once ${this.maxBacklog} wait)`,
              { cause },
            ),
          );
        }
        await new Promise((resolve) => setTimeout(resolve, delay));
        delay = Math.min(delay * 2, this.maxRetryDelayMs);
        continue;
      }
      this.batches++;
      if (this.awaySince !== undefined) {
        const awayMs = Date.now() - this.awaySince;
        this.awaySince = undefined;
        this.notice(
          `the store is back after ${awayMs} ms; ${this.held} waiting generation write(s) are being written`,
        );
      }
      // A retried batch may find its own work done: the first try's COMMIT can land just as the
      // connection breaks. A start already there or a finish already applied is then not a failure.
      if (tries > 1) outcome = outcome.map((e) => (e instanceof GenerationWriteConflict ? undefined : e));
      for (const error of outcome) if (error instanceof Error) this.report(error);
      return outcome;
    }
  }

  /** A throwing onError must not stop the writer. */
  private report(error: Error): void {
    try {
      this.onError(error);
    } catch {
      // nothing sensible left to do with it
    }
  }

  private notice(message: string): void {
    try {
      this.onRecovered(message);
    } catch {
      // as report()
    }
  }

  private forget(id: string): void {
    const left = (this.idsInFlight.get(id) ?? 1) - 1;
    if (left > 0) this.idsInFlight.set(id, left);
    else this.idsInFlight.delete(id);
  }
}

function batchError(writes: GenerationWrite[], cause: unknown): Error {
  const what =
    writes.length === 1 ? `generation ${generationIdOf(writes[0]!)}` : `${writes.length} generation records`;
  const lost = cause instanceof GaveUp ? ` (lost: ${writes.map(generationIdOf).join(", ")})` : "";
  return new Error(`could not write ${what}: ${describe(cause)}${lost}`, { cause });
}

function definedOnly<T extends object>(options: T): Partial<T> {
  return Object.fromEntries(Object.entries(options).filter(([, v]) => v !== undefined)) as Partial<T>;
}
