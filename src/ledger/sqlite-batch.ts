// One transaction of the generation write queue on the embedded store (sqlite-store.ts applyWrites).
//
// Finished rows (a generation written whole, or a start whose finish is in the same batch) are
// inserted several to a statement: a statement run costs about as much for one row as for several
// (binding, stepping and resetting a statement dominate a row's own B-tree work), so a batch's rows go
// 16, then 4, then 1 at a time, each size one cached statement. A multi-row statement that fails (a
// row already there, a value refused) changes nothing, and its rows are then inserted one at a time,
// so that only the row at fault fails, exactly as if each had been inserted alone.
//
// A batch's transaction runs on the event loop: once it has held the loop for its time budget it
// stops taking writes, commits, and leaves the rest NOT_REACHED, for the write queue to hand back
// in a turn of its own (write-queue.ts).

import type { SQLInputValue, StatementSync } from "node:sqlite";
import { type Columns, ratingColumn, storableErrorMessage, usageColumn, wholeMs } from "./columns.ts";
import { DebitsByAccount } from "./decimal.ts";
import { generationAlreadyStarted, generationNotFinishable } from "./ledger-errors.ts";
import { RollupBatch, type RollupSource } from "./rollups.ts";
import { isUnavailable } from "./sqlite-errors.ts";
import type { GenerationEnd, GenerationStart } from "./types.ts";
import {
  type BatchOutcome,
  type GenerationWrite,
  generationIdOf,
  NOT_REACHED,
  type WriteOutcome,
} from "./write-queue.ts";

/** What a batch needs of its store, inside the store's transaction. */
export interface BatchStore {
  /** Written on every row, for crash recovery (Store.markInterrupted). */
  readonly owner: string;
  /** A prepared statement, cached by its text. */
  statement(sql: string): StatementSync;
  applyRollups(rollups: RollupBatch): void;
  addToBalance(accountId: string, amount: string): string;
}

/** Rows per INSERT statement, largest first; the last must be 1. */
const INSERT_SIZES = [16, 4, 1] as const;

const FINISHED_COLUMNS =
  "id, account_id, key_id, api, model, streamed, created_at, status, provider, usage, finish_reason, " +
  "latency_ms, generation_time_ms, request_retry_times, final_retry, error_message, completed_at, rating, " +
  "settled_at, owner, session_id";
const FINISHED_ROW = `(${FINISHED_COLUMNS.split(", ")
  .map(() => "?")
  .join(", ")})`;

/**
 * One finished row alone: an id already there changes nothing (the write fails alone). Several:
 * without a conflict clause, so that a row already there aborts the statement and nothing of it stays.
 */
const insertFinishedSql = (rows: number) =>
  `INSERT INTO generations (${FINISHED_COLUMNS}) VALUES ${Array(rows).fill(FINISHED_ROW).join(", ")}` +
  (rows === 1 ? " ON CONFLICT (id) DO NOTHING" : "");
const INSERT_FINISHED_SQL = new Map<number, string>(INSERT_SIZES.map((n) => [n, insertFinishedSql(n)]));

const INSERT_START_SQL = `INSERT INTO generations (id, account_id, key_id, api, model, streamed, created_at, status,
    owner, session_id)
  VALUES (?, ?, ?, ?, ?, ?, ?, 'pending', ?, ?) ON CONFLICT (id) DO NOTHING`;

/** Also completes an 'interrupted' row: another process may have marked it while it was running. */
const APPLY_FINISH_SQL = `UPDATE generations SET model = coalesce(?, model), status = ?, provider = ?, usage = ?,
    finish_reason = ?, latency_ms = ?, generation_time_ms = ?, request_retry_times = ?, final_retry = ?,
    error_message = ?, completed_at = ?, rating = coalesce(?, rating), settled_at = coalesce(?, settled_at)
  WHERE id = ? AND status IN ('pending', 'interrupted')
  RETURNING account_id, key_id, model, provider, created_at`;

/** A finished row waiting for its INSERT: the write at `at` (a start merged with `end`, or a whole). */
interface FinishedRow {
  at: number;
  start: GenerationStart;
  end: GenerationEnd;
}

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
  private readonly outcomes: BatchOutcome;
  /** Each generation's first finish in the batch, by id. */
  private readonly finishes = new Map<string, GenerationEnd>();
  /** Generations written whole from their start: their finish, later in the batch, is done. */
  private readonly writtenWhole = new Set<string>();
  /** Finished rows waiting to be inserted together, and their ids. */
  private rows: FinishedRow[] = [];
  private readonly rowIds = new Set<string>();
  private readonly debits = new DebitsByAccount();
  private readonly rollups = new RollupBatch();

  private readonly store: BatchStore;
  private readonly writes: GenerationWrite[];

  constructor(store: BatchStore, writes: GenerationWrite[]) {
    this.store = store;
    this.writes = writes;
    this.outcomes = new Array<WriteOutcome>(writes.length).fill(NOT_REACHED);
    for (const w of writes)
      if (w.kind === "finish" && !this.finishes.has(w.end.id)) this.finishes.set(w.end.id, w.end);
  }

  apply(deadline: number): BatchOutcome {
    const { writes } = this;
    let next = 0;
    while (next < writes.length && (next === 0 || performance.now() < deadline)) this.applyWrite(next++);
    this.insertRows();
    // The finishes past the cut of rows written whole are done with them.
    for (let i = next; i < writes.length; i++) {
      const w = writes[i]!;
      if (w.kind === "finish" && this.writtenWhole.delete(w.end.id)) this.outcomes[i] = undefined;
    }
    for (const [account, change] of this.debits.balanceChanges()) this.store.addToBalance(account, change);
    this.store.applyRollups(this.rollups);
    return this.outcomes;
  }

  private applyWrite(at: number): void {
    const write = this.writes[at]!;
    // A generation's writes apply in queue order: its row waiting to be inserted goes first.
    if (this.rowIds.has(generationIdOf(write))) this.insertRows();
    this.outcomes[at] = this.failingAlone(() => {
      if (write.kind === "whole") return this.addRow(at, write.start, write.end);
      if (write.kind === "start") {
        const end = this.finishes.get(write.start.id);
        return end ? this.addRow(at, write.start, end) : this.insertStart(write.start);
      }
      if (this.writtenWhole.delete(write.end.id)) return undefined;
      const source = this.applyFinish(write.end);
      if (source instanceof Error) return source;
      this.finished(source, write.end);
      return undefined;
    });
  }

  /** Queues a finished row; its outcome is set when it is inserted. */
  private addRow(at: number, start: GenerationStart, end: GenerationEnd): WriteOutcome {
    this.rows.push({ at, start, end });
    this.rowIds.add(start.id);
    if (this.rows.length === INSERT_SIZES[0]) this.insertRows();
    return this.outcomes[at];
  }

  /** Inserts the waiting rows, the largest statements first. */
  private insertRows(): void {
    const rows = this.rows;
    if (rows.length === 0) return;
    this.rows = [];
    this.rowIds.clear();
    let from = 0;
    for (const size of INSERT_SIZES)
      for (; rows.length - from >= size; from += size) this.insertTogether(rows, from, size);
  }

  private insertTogether(rows: FinishedRow[], from: number, size: number): void {
    if (size > 1) {
      const values: SQLInputValue[] = [];
      for (let i = from; i < from + size; i++) this.pushFinishedValues(values, rows[i]!);
      const inserted = this.failingAlone(() => {
        this.store.statement(INSERT_FINISHED_SQL.get(size)!).run(...values);
        return undefined;
      });
      if (inserted === undefined) {
        for (let i = from; i < from + size; i++) this.written(rows[i]!);
        return;
      }
      // The statement changed nothing: one row at a time, so that only the row at fault fails.
    }
    for (let i = from; i < from + size; i++) this.insertAlone(rows[i]!);
  }

  private insertAlone(row: FinishedRow): void {
    this.outcomes[row.at] = this.failingAlone(() => {
      const values: SQLInputValue[] = [];
      this.pushFinishedValues(values, row);
      if (this.store.statement(INSERT_FINISHED_SQL.get(1)!).run(...values).changes > 0)
        return this.written(row);
      // The id is there already: a whole write fails; a start is tried as a start (and fails as one).
      const write = this.writes[row.at]!;
      return write.kind === "start" ? this.insertStart(write.start) : generationAlreadyStarted(row.start.id);
    });
  }

  private written(row: FinishedRow): undefined {
    this.outcomes[row.at] = undefined;
    if (this.writes[row.at]!.kind === "start") this.writtenWhole.add(row.end.id);
    this.finished(row.start, row.end);
    return undefined;
  }

  private finished(source: RollupSource, end: GenerationEnd): void {
    this.rollups.finished(source, end);
    if (end.settlement) this.debits.add(source.accountId, end.settlement);
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

  /** A finished row's values, in FINISHED_COLUMNS order. */
  private pushFinishedValues(values: SQLInputValue[], { start: g, end: e }: FinishedRow): void {
    values.push(
      g.id,
      g.accountId,
      g.keyId,
      g.api,
      e.model ?? g.model,
      g.streamed ? 1 : 0,
      wholeMs(g.createdAt),
    );
    pushFinishValues(values, e);
    values.push(this.store.owner, g.sessionId ?? null);
  }

  /**
   * A write's outcome: undefined, or the Error it failed with alone. An unavailable store is thrown:
   * it may have rolled the whole transaction back, and the batch is tried again.
   */
  private failingAlone(write: () => WriteOutcome): WriteOutcome {
    try {
      return write();
    } catch (error) {
      if (isUnavailable(error)) throw error;
      return error instanceof Error ? error : new Error(String(error));
    }
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
