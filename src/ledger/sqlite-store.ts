// The embedded store: one SQLite file through node:sqlite. Transactions are synchronous (DatabaseSync),
// so no other JavaScript runs between BEGIN and COMMIT and the balance arithmetic done in JS with
// exact decimals is as atomic as SQL arithmetic would be. BEGIN IMMEDIATE takes the write lock up front, so two
// processes on one file (the server and `switchyard keys`) wait on busy_timeout instead of deadlocking.
// A file that stays locked past busy_timeout, or a full disk, is a StoreUnavailable (a 503): the
// generation writes wait for it in memory (write-queue.ts; docs/operations.md).
// This class is the generation ledger; accounts, keys, usage queries, stored responses and
// conversations are parts of their own on its connection (accounts-sqlite.ts, keys-sqlite.ts, …).

import { mkdirSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { DatabaseSync, type SQLInputValue, type StatementSync } from "node:sqlite";
import { addDecimals, DecimalSum } from "../billing/money.ts";
import { SqliteAccounts } from "./accounts-sqlite.ts";
import {
  type Columns,
  deletableGeneration,
  generationColumnList,
  generationFromColumns,
  ratingColumn,
  wholeMs,
} from "./columns.ts";
import { SqliteConversations } from "./conversations-sqlite.ts";
import { debitOf } from "./debits.ts";
import { SqliteKeys } from "./keys-sqlite.ts";
import { StoreUnavailable } from "./ledger-errors.ts";
import { newOwnerId } from "./owner.ts";
import { QueuedGenerations } from "./queued-generations.ts";
import { SqliteResponses } from "./responses-sqlite.ts";
import { COUNTER_COLUMNS, keyValue, ROLLUP_TABLES, type RollupBatch, type RollupTable } from "./rollups.ts";
import { applyBatch, type BatchStore, rollupSource } from "./sqlite-batch.ts";
import { Checkpointer, RESET_FRAMES } from "./sqlite-checkpointer.ts";
import { isUnavailable, read } from "./sqlite-errors.ts";
import type { SqliteAccess } from "./sqlite-part.ts";
import { sqliteAddedColumns, sqliteSchema } from "./sqlite-schema.ts";
import {
  runSteps,
  SETTLED_BUCKET_MS,
  type SettlementStep,
  type SettlingGeneration,
  settledBucket,
  settledScope,
  settledScopes,
  settlement,
  spendDecision,
} from "./store-rules.ts";
import type {
  GenerationRow,
  HeldSpend,
  KeptThinking,
  SettlementItem,
  SpendDecision,
  SpendHold,
  SpendReservation,
  Store,
  StoreOptions,
} from "./types.ts";
import { SqliteUsage } from "./usage-sqlite.ts";
import {
  type BatchOutcome,
  type GenerationWrite,
  WriteQueue,
  type WriteQueueOptions,
} from "./write-queue.ts";

export interface SqliteStoreOptions extends WriteQueueOptions, StoreOptions {
  /** Set when the workers of `serve --workers N` share the file (the CLI only reads and credits). */
  sharedByProcesses?: boolean;
  /**
   * Once migrated: how long a statement waits for a lock another process holds before the store
   * counts as unavailable, ms. SQLite waits synchronously, so this is also how long such a wait
   * can hold the event loop; a write that gives up is tried again by the write queue, off it.
   */
  busyTimeoutMs?: number;
  /** How often the log is checkpointed off the event loop, ms (sqlite-checkpointer.ts). */
  checkpointIntervalMs?: number;
  /** Frames in the log past which it is started afresh, writes held for a checkpoint (sqlite-checkpointer.ts). */
  checkpointResetFrames?: number;
  /**
   * How long one transaction of generation writes takes writes before it commits and leaves the
   * rest to a turn of its own, ms: what the writer holds the event loop for (sqlite-batch.ts).
   */
  batchTurnMs?: number;
}

/** Opening and migrating wait patiently for a lock (several processes may start at once). */
const OPENING_BUSY_TIMEOUT_MS = 5_000;
const SERVING_BUSY_TIMEOUT_MS = 250;
/**
 * A batch stops taking writes after this long, ms. Not shorter: a transaction's fixed cost (commit,
 * rollups, debit) is about that of a dozen rows, so shorter turns would cost far more CPU than they
 * spare latency (BENCHMARKS.md, "Session 7"). Batches under moderate load take less than this.
 */
const BATCH_TURN_MS = 1;

/** SQLite's own default: the log is checkpointed at a commit that takes it past this many pages. */
const SQLITE_AUTOCHECKPOINT_PAGES = 1000;

/**
 * Each rollup table's upsert of a delta, written out once: built per batch, its text (2 KB) cost more
 * to build and to look up than the upsert itself.
 */
const ROLLUP_UPSERT_SQL = new Map(
  ROLLUP_TABLES.map((table) => {
    const columns = [...table.keys, ...COUNTER_COLUMNS, "cost"];
    const sql = `INSERT INTO ${table.name} (${columns.join(", ")}) VALUES (${columns.map(() => "?").join(", ")})
      ON CONFLICT (${table.keys.join(", ")}) DO UPDATE SET
      ${COUNTER_COLUMNS.map((c) => `${c} = ${c} + excluded.${c}`).join(", ")},
      cost = dec_add(cost, excluded.cost)`;
    return [table as RollupTable, sql] as const;
  }),
);

export class SqliteStore extends QueuedGenerations implements Store {
  readonly sharedByProcesses: boolean;
  /** A file belongs to one `serve` (and its workers): at its start, no other gateway is alive. */
  readonly sharedByGateways = false;
  readonly owner: string;
  private readonly db: DatabaseSync;
  protected readonly writes: WriteQueue;
  private readonly statements = new Map<string, StatementSync>();
  private closed = false;
  private readonly busyTimeoutMs: number;
  private readonly batchTurnMs: number;
  /** What a batch of generation writes uses of this store (sqlite-batch.ts). */
  private readonly batchStore: BatchStore;
  /** Checkpoints the log on a thread of its own (none for an in-memory database). */
  readonly checkpointer: Checkpointer | undefined;
  readonly accounts: SqliteAccounts;
  readonly keys: SqliteKeys;
  readonly queries: SqliteUsage;
  readonly responses: SqliteResponses;
  readonly conversations: SqliteConversations;

  /** `path` is a file (its directory is created) or `:memory:`. */
  constructor(path: string, options: SqliteStoreOptions = {}) {
    super();
    if (path !== ":memory:" && !path.startsWith("file:"))
      mkdirSync(dirname(resolve(path)), { recursive: true });
    this.sharedByProcesses = options.sharedByProcesses ?? false;
    this.owner = options.owner ?? newOwnerId();
    this.db = new DatabaseSync(path);
    // busy_timeout first: switching to WAL needs the lock another process may hold. WAL with
    // synchronous=NORMAL survives a process crash (SIGKILL) without an fsync per commit; only an OS
    // crash or power cut can lose the last commits.
    this.db.exec(`PRAGMA busy_timeout = ${OPENING_BUSY_TIMEOUT_MS}`);
    this.busyTimeoutMs = options.busyTimeoutMs ?? SERVING_BUSY_TIMEOUT_MS;
    this.batchTurnMs = options.batchTurnMs ?? BATCH_TURN_MS;
    this.batchStore = {
      owner: this.owner,
      statement: (sql) => this.statement(sql),
      applyRollups: (rollups) => this.applyRollups(rollups),
      addToBalance: (id, amount) => this.accounts.addToBalance(id, amount),
    };
    // Larger pages than the 4 KiB default: a batch of ledger rows is written (to the WAL, then by
    // the checkpoint) in a quarter of the page writes. Takes effect only on a new database file.
    this.db.exec("PRAGMA page_size = 16384");
    this.db.exec("PRAGMA journal_mode = WAL");
    this.db.exec("PRAGMA synchronous = NORMAL");
    this.checkpointer = this.checkpointOffThread(path, options);
    // Exact decimal money in SQL: rollup costs add up as text, never as binary doubles.
    this.db.function("dec_add", { deterministic: true }, (a, b) => addDecimals(String(a), String(b)));
    this.db.aggregate("dec_sum", {
      start: () => new DecimalSum() as unknown as SQLInputValue,
      step: (sum, value) => {
        if (value !== null) (sum as unknown as DecimalSum).add(String(value));
        return sum;
      },
      result: (sum) => (sum as unknown as DecimalSum).total(),
      deterministic: true,
    });
    const access: SqliteAccess = {
      connection: this.db,
      statement: (sql) => this.statement(sql),
      transaction: (work) => this.transaction(work),
    };
    this.accounts = new SqliteAccounts(access);
    this.queries = new SqliteUsage(access, () => this.writes.flush());
    this.keys = new SqliteKeys(access);
    this.responses = new SqliteResponses(access);
    this.conversations = new SqliteConversations(access);
    this.writes = new WriteQueue((writes, mayLeave) => {
      const paused = this.checkpointer?.writesMayGo();
      return paused
        ? paused.then(() => this.applyWrites(writes, mayLeave))
        : Promise.resolve(this.applyWrites(writes, mayLeave));
    }, options);
  }

  /** In one transaction, so that two processes migrating one file at once do not both add a column. */
  async migrate(): Promise<void> {
    this.transaction(() => {
      this.db.exec(sqliteSchema);
      for (const { table, column, type } of sqliteAddedColumns) {
        const columns = this.db.prepare(`PRAGMA table_info(${table})`).all();
        if (!columns.some((c) => c.name === column))
          this.db.exec(`ALTER TABLE ${table} ADD COLUMN ${column} ${type}`);
      }
    });
    await this.responses.migrate();
    await this.conversations.migrate();
    this.db.exec(`PRAGMA busy_timeout = ${Math.max(0, Math.round(this.busyTimeoutMs))}`);
  }

  async ping(): Promise<boolean> {
    try {
      return this.statement("SELECT 1 AS ok").get()?.ok === 1;
    } catch {
      return false;
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.writes.close();
    await this.checkpointer?.close();
    this.db.close();
  }

  /**
   * The log's checkpoints move to a thread of their own (sqlite-checkpointer.ts): this connection
   * stops checkpointing at commits, unless the thread fails, when it takes them back.
   */
  private checkpointOffThread(path: string, options: SqliteStoreOptions): Checkpointer | undefined {
    if (path === ":memory:" || path.includes("mode=memory")) return undefined;
    this.db.exec("PRAGMA wal_autocheckpoint = 0");
    // When the log starts afresh, its file is cut back to the size the thread lets it reach: a
    // burst of load does not leave a file that large behind.
    const resetFrames = options.checkpointResetFrames ?? RESET_FRAMES;
    const pageSize = Number(this.db.prepare("PRAGMA page_size").get()?.page_size);
    this.db.exec(`PRAGMA journal_size_limit = ${resetFrames * pageSize}`);
    const takeBack = () => {
      if (!this.closed) this.db.exec(`PRAGMA wal_autocheckpoint = ${SQLITE_AUTOCHECKPOINT_PAGES}`);
    };
    return new Checkpointer(path, takeBack, options.checkpointIntervalMs, resetFrames);
  }

  /** Pages past which a commit on this connection checkpoints (0: the thread does). */
  get autocheckpointPages(): number {
    return Number(this.db.prepare("PRAGMA wal_autocheckpoint").get()?.wal_autocheckpoint);
  }

  // ── generations ───────────────────────────────────────────────────────────────────────────────

  async settleGenerations(items: SettlementItem[]): Promise<Array<Error | undefined>> {
    const debits = items.map(debitOf);
    await this.writes.awaitWritesFor(items.map((item) => item.id));
    return this.transaction(() => runSteps(settlement(items, debits), (step) => this.settlementStep(step)));
  }

  /** Inside a transaction: one statement of the settlement rule (store-rules.ts). */
  private settlementStep(step: SettlementStep): unknown {
    switch (step.op) {
      case "readGeneration": {
        const row = this.statement(
          "SELECT account_id, key_id, model, provider, created_at, status, settled_at FROM generations WHERE id = ?",
        ).get(step.id);
        if (!row) return undefined;
        const generation: SettlingGeneration = {
          status: String(row.status),
          settled: row.settled_at !== null,
          source: rollupSource(row as Columns),
        };
        return generation;
      }
      case "markSettled":
        this.statement("UPDATE generations SET rating = ?, settled_at = ? WHERE id = ?").run(
          ratingColumn(step.rating),
          wholeMs(step.settledAt),
          step.id,
        );
        return undefined;
      case "addToBalance":
        return this.accounts.addToBalance(step.account, step.amount);
      case "applyRollups":
        return this.applyRollups(step.rollups);
    }
  }

  async getGeneration(id: string, accountId: string): Promise<GenerationRow | undefined> {
    await this.writes.awaitWritesFor(id);
    const row = read(() =>
      this.statement(`SELECT ${generationColumnList} FROM generations WHERE id = ? AND account_id = ?`).get(
        id,
        accountId,
      ),
    );
    return row ? generationFromColumns(row as Columns) : undefined;
  }

  async getGenerationAnyAccount(id: string): Promise<GenerationRow | undefined> {
    await this.writes.flush();
    const row = this.statement(`SELECT ${generationColumnList} FROM generations WHERE id = ?`).get(id);
    return row ? generationFromColumns(row as Columns) : undefined;
  }

  async markInterrupted(owners: readonly string[]): Promise<number> {
    await this.writes.flush();
    if (owners.length === 0) return 0;
    const list = JSON.stringify(owners);
    return this.transaction(() => {
      const result = this.statement(
        `UPDATE generations SET status = 'interrupted', completed_at = ?
         WHERE status = 'pending' AND owner IN (SELECT value FROM json_each(?))`,
      ).run(Date.now(), list);
      this.statement("DELETE FROM owner_leases WHERE id IN (SELECT value FROM json_each(?))").run(list);
      // Their spend holds too: a dead process settles nothing (spend-reservations.ts).
      this.statement("DELETE FROM spend_reservations WHERE owner IN (SELECT value FROM json_each(?))").run(
        list,
      );
      return Number(result.changes);
    });
  }

  async renewLease(): Promise<void> {
    this.statement(
      `INSERT INTO owner_leases (id, renewed_at) VALUES (?, ?)
       ON CONFLICT (id) DO UPDATE SET renewed_at = excluded.renewed_at`,
    ).run(this.owner, Date.now());
  }

  async markAbandoned(silentForMs: number): Promise<number> {
    await this.writes.flush();
    return this.transaction(() => {
      const now = Date.now();
      const cutoff = now - silentForMs;
      const result = this.statement(
        `UPDATE generations SET status = 'interrupted', completed_at = ?
         WHERE status = 'pending'
           AND (owner IS NULL OR owner NOT IN (SELECT id FROM owner_leases WHERE renewed_at > ?))`,
      ).run(now, cutoff);
      this.statement(
        `DELETE FROM spend_reservations
         WHERE owner IS NULL OR owner NOT IN (SELECT id FROM owner_leases WHERE renewed_at > ?)`,
      ).run(cutoff);
      this.statement("DELETE FROM owner_leases WHERE renewed_at <= ?").run(cutoff);
      return Number(result.changes);
    });
  }

  // ── spend reservations (src/limits/spend-reservations.ts) ──────────────────────────────────────

  /** BEGIN IMMEDIATE: the sums and the insert hold the file's write lock, so no other process interleaves. */
  async reserveSpend(r: SpendReservation): Promise<SpendDecision> {
    return this.transaction(() => {
      const now = Date.now();
      const held = { key: 0, account: 0 };
      if (r.keyId !== undefined) held.key = this.heldNow("key_id", r.keyId, now, r.keyReadAt).total;
      if (r.accountId !== undefined)
        held.account = this.heldNow("account_id", r.accountId, now, r.accountReadAt).total;
      const decision = spendDecision(r, held);
      if (decision.refused) return decision;
      this.statement(
        `INSERT INTO spend_reservations (id, key_id, account_id, amount, expires_at, owner)
         VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO NOTHING`,
      ).run(r.id, r.keyId ?? null, r.accountId ?? null, decision.held, now + r.ttlMs, this.owner);
      return decision;
    });
  }

  async settleSpend(h: SpendHold, amount: number, holdMs: number, settledAt: number): Promise<void> {
    const bucket = settledBucket(settledAt);
    this.transaction(() => {
      this.statement("DELETE FROM spend_reservations WHERE id = ?").run(h.id);
      for (const scope of settledScopes(h))
        this.statement(
          `INSERT INTO spend_settled (scope, bucket, amount, last_at, expires_at) VALUES (?, ?, ?, ?, ?)
           ON CONFLICT (scope, bucket) DO UPDATE SET amount = amount + excluded.amount,
             last_at = max(last_at, excluded.last_at), expires_at = max(expires_at, excluded.expires_at)`,
        ).run(scope, bucket, amount, settledAt, bucket + SETTLED_BUCKET_MS + holdMs);
    });
  }

  async releaseSpend(h: SpendHold): Promise<void> {
    this.transaction(() => this.statement("DELETE FROM spend_reservations WHERE id = ?").run(h.id));
  }

  async renewSpend(holds: SpendHold[], ttlMs: number): Promise<void> {
    if (holds.length === 0) return;
    this.transaction(() =>
      this.statement(
        "UPDATE spend_reservations SET expires_at = ? WHERE id IN (SELECT value FROM json_each(?))",
      ).run(Date.now() + ttlMs, JSON.stringify(holds.map((h) => h.id))),
    );
  }

  async heldSpend(on: { keyId: string } | { accountId: string }): Promise<HeldSpend> {
    const [column, id] =
      "keyId" in on ? (["key_id", on.keyId] as const) : (["account_id", on.accountId] as const);
    const { reserved, settling } = read(() => this.heldNow(column, id, Date.now(), 0, false));
    return { reserved, settling };
  }

  /**
   * A key's or account's live holds: reserved, and settled in buckets settled into at or after
   * `readAt` (a reading taken earlier lacks them). Inside a transaction (`prune`), expired ones are deleted.
   */
  private heldNow(column: "key_id" | "account_id", id: string, now: number, readAt = 0, prune = true) {
    const scope = settledScope(column, id);
    if (prune) {
      this.statement(`DELETE FROM spend_reservations WHERE ${column} = ? AND expires_at <= ?`).run(id, now);
      this.statement("DELETE FROM spend_settled WHERE scope = ? AND expires_at <= ?").run(scope, now);
    }
    const reserved = Number(
      this.statement(
        `SELECT coalesce(sum(amount), 0) AS s FROM spend_reservations WHERE ${column} = ? AND expires_at > ?`,
      ).get(id, now)?.s ?? 0,
    );
    const settling = Number(
      this.statement(
        "SELECT coalesce(sum(amount), 0) AS s FROM spend_settled WHERE scope = ? AND expires_at > ? AND last_at >= ?",
      ).get(scope, now, readAt)?.s ?? 0,
    );
    return { reserved, settling, total: reserved + settling };
  }

  async listUnsettled(limit: number): Promise<GenerationRow[]> {
    await this.writes.flush();
    const rows = this.statement(
      `SELECT ${generationColumnList} FROM generations
       WHERE settled_at IS NULL AND usage IS NOT NULL AND status IN ('completed', 'failed', 'cancelled')
       ORDER BY created_at, id LIMIT ?`,
    ).all(limit);
    return rows.map((row) => generationFromColumns(row as Columns));
  }

  // ── operators ─────────────────────────────────────────────────────────────────────────────────

  async deleteGenerations(idBefore: string, limit: number): Promise<number> {
    return this.transaction(
      () =>
        this.statement(
          `DELETE FROM generations WHERE id IN (
             SELECT id FROM generations WHERE id < ? AND ${deletableGeneration} ORDER BY id LIMIT ?)`,
        ).run(idBefore, limit).changes as number,
    );
  }

  // ── internals ─────────────────────────────────────────────────────────────────────────────────

  /**
   * One transaction for the batch, or for as much of it as its turn allows when the write queue lets
   * it leave the rest (sqlite-batch.ts); a write that cannot apply fails alone.
   */
  private applyWrites(writes: GenerationWrite[], mayLeave: boolean): BatchOutcome {
    const deadline = mayLeave ? performance.now() + this.batchTurnMs : Number.POSITIVE_INFINITY;
    return this.transaction(() => applyBatch(this.batchStore, writes, deadline));
  }

  /** Inside a transaction: adds a batch's rollup deltas, one upsert per rollup row. */
  private applyRollups(rollups: RollupBatch): void {
    if (rollups.size === 0) return;
    for (const table of ROLLUP_TABLES) {
      const upsert = this.statement(ROLLUP_UPSERT_SQL.get(table)!);
      for (const d of rollups.deltas(table))
        upsert.run(...table.keys.map((c) => keyValue(d, c)), ...d.counters, d.cost);
    }
  }

  private transaction<T>(work: () => T): T {
    try {
      this.db.exec("BEGIN IMMEDIATE");
      try {
        const result = work();
        this.db.exec("COMMIT");
        return result;
      } catch (error) {
        if (this.db.isTransaction) this.db.exec("ROLLBACK");
        throw error;
      }
    } catch (error) {
      throw isUnavailable(error) ? new StoreUnavailable(error) : error;
    }
  }

  // ── kept thinking ─────────────────────────────────────────────────────────────────────────────

  async keepThinking(accountId: string, kept: KeptThinking[], expiresAt: number): Promise<void> {
    this.transaction(() => {
      this.statement("DELETE FROM kept_thinking WHERE account_id = ? AND expires_at <= ?").run(
        accountId,
        Date.now(),
      );
      const insert = this.statement(
        "INSERT OR REPLACE INTO kept_thinking (account_id, tool_call_id, blocks, expires_at) VALUES (?, ?, ?, ?)",
      );
      for (const { toolCallId, blocks } of kept) insert.run(accountId, toolCallId, blocks, expiresAt);
    });
  }

  async keptThinking(
    accountId: string,
    toolCallIds: readonly string[],
    now: number,
  ): Promise<Map<string, string>> {
    const found = new Map<string, string>();
    const select = this.statement(
      "SELECT blocks FROM kept_thinking WHERE account_id = ? AND tool_call_id = ? AND expires_at > ?",
    );
    read(() => {
      for (const id of toolCallIds) {
        const row = select.get(accountId, id, now) as { blocks: string } | undefined;
        if (row) found.set(id, row.blocks);
      }
    });
    return found;
  }

  private statement(sql: string): StatementSync {
    let statement = this.statements.get(sql);
    if (!statement) {
      statement = this.db.prepare(sql);
      this.statements.set(sql, statement);
    }
    return statement;
  }
}
