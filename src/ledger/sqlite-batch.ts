// One transaction of the generation write queue on the embedded store (sqlite-store.ts applyWrites).
//
// A batch's transaction runs on the event loop: once it has taken writes for its turn it stops,
// commits, and leaves the rest NOT_REACHED, for the write queue to hand back in a turn of its own
// (write-queue.ts). Each transaction has a fixed cost (its commit, the rollups and the debit) of
// about a dozen rows, so turns are kept long enough that batches under moderate load are not cut
// (BENCHMARKS.md, "Session 7").

import type { SQLInputValue, StatementSync } from "node:sqlite";
import { type Columns, ratingColumn, storableErrorMessage, usageColumn, wholeMs } from "./columns.ts";
import { DebitsByAccount, debitOf } from "./debits.ts";
import { generationAlreadyStarted, generationNotFinishable } from "./ledger-errors.ts";
import { RollupBatch, type RollupSource } from "./rollups.ts";
import { isUnavailable } from "./sqlite-errors.ts";
import type { GenerationEnd, GenerationStart } from "./types.ts";
import { type BatchOutcome, type GenerationWrite, NOT_REACHED, type WriteOutcome } from "./write-queue.ts";

/** What a batch needs of its store, inside the store's transaction. */
export interface BatchStore {
  /** Written on every row, for crash recovery (Store.markInterrupted). */
  readonly owner: string;
  /** A prepared statement, cached by its text. */
  statement(sql: string): StatementSync;
  applyRollups(rollups: RollupBatch): void;
  addToBalance(accountId: string, amount: string): string;
}

const INSERT_FINISHED_SQL = `INSERT INTO generations (id, account_id, key_id, api, model, streamed, created_at, status,
    provider, usage, finish_reason, latency_ms, generation_time_ms, request_retry_times, final_retry, error_message,
    completed_at, rating, settled_at, owner, session_id)
  VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO NOTHING`;

const INSERT_START_SQL = `INSERT INTO generations (id, account_id, key_id, api, model, streamed, created_at, status,
    owner, session_id)
  VALUES (?, ?, ?, ?, ?, ?, ?, 'pending', ?, ?) ON CONFLICT (id) DO NOTHING`;

/** Also completes an 'interrupted' row: another process may have marked it while it was running. */
const APPLY_FINISH_SQL = `UPDATE generations SET model = coalesce(?, model), status = ?, provider = ?, usage = ?,
    finish_reason = ?, latency_ms = ?, generation_time_ms = ?, request_retry_times = ?, final_retry = ?,
    error_message = ?, completed_at = ?, rating = coalesce(?, rating), settled_at = coalesce(?, settled_at)
  WHERE id = ? AND status IN ('pending', 'interrupted')
  RETURNING account_id, key_id, model, provider, created_at`;

/**
 * Applies `writes` in queue order inside the caller's transaction, until performance.now() passes
 * `deadline` (the first write is always applied), then the batch's debits and rollups. A start whose
 * finish is in the batch is written once, as a finished row. Per write: undefined, its Error, or
 * NOT_REACHED. Throws only when the store is unavailable (the transaction is then rolled back).
 */
export function applyBatch(store: BatchStore, writes: GenerationWrite[], deadline: number): BatchOutcome {
  return new Batch(store, writes).apply(deadline);
}

class Batch {
  private readonly store: BatchStore;
  private readonly writes: GenerationWrite[];
  private readonly outcomes: BatchOutcome;
  /** Each generation's first finish in the batch, by id. */
  private readonly finishes = new Map<string, GenerationEnd>();
  /** Generations written whole from their start: their finish, later in the batch, is done. */
  private readonly writtenWhole = new Set<string>();
  private readonly debits = new DebitsByAccount();
  private readonly rollups = new RollupBatch();

  constructor(store: BatchStore, writes: GenerationWrite[]) {
    this.store = store;
    this.writes = writes;
    this.outcomes = new Array<WriteOutcome>(writes.length).fill(NOT_REACHED);
    for (const w of writes)
      if (w.kind === "finish" && !this.finishes.has(w.end.id)) this.finishes.set(w.end.id, w.end);
  }

  apply(deadline: number): BatchOutcome {
    const { writes, outcomes } = this;
    let next = 0;
    for (; next < writes.length && (next === 0 || performance.now() < deadline); next++)
      outcomes[next] = this.applyWrite(writes[next]!);
    // The finishes past the cut of rows written whole are done with them.
    for (let i = next; i < writes.length; i++) {
      const w = writes[i]!;
      if (w.kind === "finish" && this.writtenWhole.delete(w.end.id)) outcomes[i] = undefined;
    }
    for (const [account, change] of this.debits.balanceChanges()) this.store.addToBalance(account, change);
    this.store.applyRollups(this.rollups);
    return outcomes;
  }

  /**
   * A write's outcome: undefined, or the Error it failed with alone. An unavailable store is thrown:
   * it may have rolled the whole transaction back, and the batch is tried again.
   */
  private applyWrite(write: GenerationWrite): WriteOutcome {
    try {
      if (write.kind === "whole")
        return this.insertFinished(write.start, write.end)
          ? undefined
          : generationAlreadyStarted(write.start.id);
      if (write.kind === "start") {
        const end = this.finishes.get(write.start.id);
        if (end && this.insertFinished(write.start, end)) {
          this.writtenWhole.add(end.id);
          return undefined;
        }
        return this.insertStart(write.start);
      }
      if (this.writtenWhole.delete(write.end.id)) return undefined;
      const source = this.applyFinish(write.end);
      if (source instanceof Error) return source;
      this.finished(source, write.end);
      return undefined;
    } catch (error) {
      if (isUnavailable(error)) throw error;
      return error instanceof Error ? error : new Error(String(error));
    }
  }

  private finished(source: RollupSource, end: GenerationEnd): void {
    this.rollups.finished(source, end);
    if (end.settlement) this.debits.add(source.accountId, debitOf(end.settlement));
  }

  /** A start and its finish as one row; false when the id exists already (the write then fails alone). */
  private insertFinished(g: GenerationStart, e: GenerationEnd): boolean {
    const values: SQLInputValue[] = [
      g.id,
      g.accountId,
      g.keyId,
      g.api,
      e.model ?? g.model,
      g.streamed ? 1 : 0,
      wholeMs(g.createdAt),
    ];
    pushFinishValues(values, e);
    values.push(this.store.owner, g.sessionId ?? null);
    if (this.store.statement(INSERT_FINISHED_SQL).run(...values).changes === 0) return false;
    this.finished(g, e);
    return true;
  }

  private insertStart(g: GenerationStart): Error | undefined {
    const result = this.store
      .statement(INSERT_START_SQL)
      .run(
        g.id,
        g.accountId,
        g.keyId,
        g.api,
        g.model,
        g.streamed ? 1 : 0,
        wholeMs(g.createdAt),
        this.store.owner,
        g.sessionId ?? null,
      );
    return result.changes > 0 ? undefined : generationAlreadyStarted(g.id);
  }

  /** What the finished row says of itself (for its debit and rollup), or why it could not apply. */
  private applyFinish(e: GenerationEnd): Error | RollupSource {
    const values: SQLInputValue[] = [e.model ?? null];
    pushFinishValues(values, e);
    values.push(e.id);
    const row = this.store.statement(APPLY_FINISH_SQL).get(...values);
    return row ? rollupSource(row as Columns) : generationNotFinishable(e.id);
  }
}

export function rollupSource(row: Columns): RollupSource {
  return {
    accountId: String(row.account_id),
    keyId: String(row.key_id),
    model: String(row.model),
    provider: row.provider === null || row.provider === undefined ? undefined : String(row.provider),
    createdAt: Number(row.created_at),
  };
}

/** The columns a finish sets, in the order status … completed_at, rating, settled_at. */
function pushFinishValues(values: SQLInputValue[], e: GenerationEnd): void {
  values.push(
    e.status,
    e.provider ?? null,
    usageColumn(e.usage),
    e.finishReason ?? null,
    wholeMs(e.latencyMs),
    wholeMs(e.generationTimeMs),
    Math.round(e.requestRetryTimes),
    e.finalRetry ? 1 : 0,
    storableErrorMessage(e.errorMessage),
    wholeMs(e.completedAt),
    e.settlement ? ratingColumn(e.settlement.rating) : null,
    e.settlement ? wholeMs(e.completedAt) : null,
  );
}
