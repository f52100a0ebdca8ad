// The shared store for many gateway processes: PostgreSQL through a pg Pool. Generation writes are
// batched like the SQLite store's, and each batch is at most three set-based statements (one INSERT
// of all whole generations and one UPDATE of all finishes, each from one jsonb array of records;
// one INSERT of all starts from unnest()ed arrays) in one transaction: a batch of 500 costs about
// as many round trips as a batch of 1.
//
// An unreachable server (down, restarting, out of connections) is a StoreUnavailable, a 503 to the
// client, never a crash: every query is bounded in time, and a connection the server drops, idle or
// checked out, is only logged and discarded. Generation writes wait for the server to come back
// (write-queue.ts); see docs/operations.md, "When the store or Redis goes away".
// This class is the generation ledger; accounts, keys, usage queries, stored responses and
// conversations are parts of their own on its pool (accounts-postgres.ts, keys-postgres.ts, …).

import { createRequire } from "node:module";
import type { Pool, PoolClient, QueryResult, QueryResultRow } from "pg";
import { PostgresAccounts } from "./accounts-postgres.ts";
import {
  deletableGeneration,
  generationColumnList,
  generationFromColumns,
  ratingColumn,
  storableErrorMessage,
  usageColumn,
  wholeMs,
} from "./columns.ts";
import { PostgresConversations } from "./conversations-postgres.ts";
import { DebitsByAccount, debitOf } from "./debits.ts";
import { PostgresKeys } from "./keys-postgres.ts";
import { generationAlreadyStarted, generationNotFinishable, StoreUnavailable } from "./ledger-errors.ts";
import { newOwnerId } from "./owner.ts";
import { isServerUnavailable } from "./postgres-errors.ts";
import { migrateUnderLock, type PostgresAccess } from "./postgres-part.ts";
import { DATABASE_NOW_MS, postgresSchema, qualifier } from "./postgres-schema.ts";
import { withDefaultUser } from "./postgres-url.ts";
import { QueuedGenerations } from "./queued-generations.ts";
import { PostgresResponses } from "./responses-postgres.ts";
import { COUNTER_COLUMNS, keyValue, ROLLUP_TABLES, RollupBatch, type RollupSource } from "./rollups.ts";
import type { Qualify } from "./sql-dialect.ts";
import {
  runStepsAsync,
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
  GenerationEnd,
  GenerationRow,
  GenerationStart,
  HeldSpend,
  KeptThinking,
  SettlementItem,
  SpendDecision,
  SpendHold,
  SpendReservation,
  Store,
  StoreOptions,
} from "./types.ts";
import { PostgresUsage } from "./usage-postgres.ts";
import {
  type BatchOutcome,
  type GenerationWrite,
  WriteQueue,
  type WriteQueueOptions,
} from "./write-queue.ts";

export interface PostgresStoreOptions extends WriteQueueOptions, StoreOptions {
  /** Schema holding the tables (created by migrate); default: the connection's search_path. */
  schema?: string;
  /** Pool size. */
  maxConnections?: number;
}

/** A new connection that takes longer than this is a server away (or a pool exhausted): 503. */
const CONNECT_TIMEOUT_MS = 5_000;
/** No statement may hang a request or the writer forever (a server that stopped answering). */
const QUERY_TIMEOUT_MS = 30_000;
const identifierPattern = /^[A-Za-z_][A-Za-z0-9_]{0,62}$/;

/** pg is loaded with the first PostgreSQL store: a gateway on SQLite does not carry its modules. */
const loadPg = () => createRequire(import.meta.url)("pg") as typeof import("pg");

export class PostgresStore extends QueuedGenerations implements Store {
  readonly sharedByProcesses = true;
  readonly sharedByGateways = true;
  readonly owner: string;
  private readonly pool: Pool;
  protected readonly writes: WriteQueue;
  private readonly schema: string | undefined;
  private readonly t: Qualify;
  /** What the store's parts query through (postgres-part.ts). */
  private readonly access: PostgresAccess;
  private closed = false;
  readonly accounts: PostgresAccounts;
  readonly keys: PostgresKeys;
  readonly queries: PostgresUsage;
  readonly responses: PostgresResponses;
  readonly conversations: PostgresConversations;

  constructor(url: string, options: PostgresStoreOptions = {}) {
    super();
    if (options.schema !== undefined && !identifierPattern.test(options.schema)) {
      throw new Error(`PostgreSQL schema name ${JSON.stringify(options.schema)} must be a plain identifier`);
    }
    this.schema = options.schema;
    this.owner = options.owner ?? newOwnerId();
    this.t = qualifier(options.schema);
    this.pool = new (loadPg().Pool)({
      connectionString: withDefaultUser(url),
      max: options.maxConnections ?? 10,
      connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
      query_timeout: QUERY_TIMEOUT_MS,
      keepAlive: true,
    });
    // An idle connection the server drops emits 'error' on the pool; unhandled, it would end the process.
    this.pool.on("error", (error) => logConnectionLost(error));
    this.writes = new WriteQueue((writes) => this.applyWrites(writes), options);
    this.access = {
      query: (sql, params) => this.query(sql, params),
      transaction: (work) => this.transaction(work),
    };
    this.accounts = new PostgresAccounts(this.access, this.t);
    this.queries = new PostgresUsage(this.access, this.t, () => this.writes.flush());
    this.keys = new PostgresKeys(this.access, this.t);
    this.responses = new PostgresResponses(this.access, this.t);
    this.conversations = new PostgresConversations(this.access, this.t);
  }

  /** Safe when many processes start at once: the DDL runs under a transaction-scoped advisory lock. */
  async migrate(): Promise<void> {
    await migrateUnderLock(this.access, postgresSchema(this.schema));
    await this.responses.migrate();
    await this.conversations.migrate();
  }

  async ping(): Promise<boolean> {
    try {
      const result = await this.query("SELECT 1 AS ok");
      return result.rows[0]?.ok === 1;
    } catch {
      return false;
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    try {
      await this.writes.close();
    } finally {
      await this.pool.end();
    }
  }

  // ── generations ───────────────────────────────────────────────────────────────────────────────

  async settleGenerations(items: SettlementItem[]): Promise<Array<Error | undefined>> {
    const debits = items.map(debitOf);
    await this.writes.awaitWritesFor(items.map((item) => item.id));
    return this.transaction((client) =>
      runStepsAsync(settlement(items, debits), (step) => this.settlementStep(client, step)),
    );
  }

  /** Inside a transaction: one statement of the settlement rule (store-rules.ts). */
  private async settlementStep(client: PoolClient, step: SettlementStep): Promise<unknown> {
    const generations = this.t("generations");
    switch (step.op) {
      case "readGeneration": {
        const found = await client.query(
          `SELECT account_id, key_id, model, provider, created_at, status, settled_at FROM ${generations}
           WHERE id = $1 FOR UPDATE`,
          [step.id],
        );
        const row = found.rows[0];
        if (!row) return undefined;
        const generation: SettlingGeneration = {
          status: String(row.status),
          settled: row.settled_at !== null,
          source: rollupSource(row),
        };
        return generation;
      }
      case "markSettled":
        await client.query(`UPDATE ${generations} SET rating = $1, settled_at = $2 WHERE id = $3`, [
          ratingColumn(step.rating),
          wholeMs(step.settledAt),
          step.id,
        ]);
        return undefined;
      case "addToBalance":
        return this.accounts.addToBalance(client, step.account, step.amount);
      case "applyRollups":
        return this.applyRollups(client, step.rollups);
    }
  }

  async getGeneration(id: string, accountId: string): Promise<GenerationRow | undefined> {
    await this.writes.awaitWritesFor(id);
    const result = await this.query(
      `SELECT ${generationColumnList} FROM ${this.t("generations")} WHERE id = $1 AND account_id = $2`,
      [id, accountId],
    );
    return result.rows[0] ? generationFromColumns(result.rows[0]) : undefined;
  }

  async getGenerationAnyAccount(id: string): Promise<GenerationRow | undefined> {
    await this.writes.flush();
    const result = await this.query(
      `SELECT ${generationColumnList} FROM ${this.t("generations")} WHERE id = $1`,
      [id],
    );
    return result.rows[0] ? generationFromColumns(result.rows[0]) : undefined;
  }

  async markInterrupted(owners: readonly string[]): Promise<number> {
    await this.writes.flush();
    if (owners.length === 0) return 0;
    return this.transaction(async (client) => {
      const result = await client.query(
        `UPDATE ${this.t("generations")} SET status = 'interrupted', completed_at = $1
         WHERE status = 'pending' AND owner = ANY($2::text[])`,
        [Date.now(), owners],
      );
      await client.query(`DELETE FROM ${this.t("owner_leases")} WHERE id = ANY($1::text[])`, [owners]);
      // Their spend holds too: a dead process settles nothing (spend-reservations.ts).
      await client.query(`DELETE FROM ${this.t("spend_reservations")} WHERE owner = ANY($1::text[])`, [
        owners,
      ]);
      return result.rowCount ?? 0;
    });
  }

  async renewLease(): Promise<void> {
    await this.query(
      `INSERT INTO ${this.t("owner_leases")} (id, renewed_at) VALUES ($1, ${DATABASE_NOW_MS})
       ON CONFLICT (id) DO UPDATE SET renewed_at = excluded.renewed_at`,
      [this.owner],
    );
  }

  async markAbandoned(silentForMs: number): Promise<number> {
    await this.writes.flush();
    return this.transaction(async (client) => {
      const leases = this.t("owner_leases");
      const cutoff = `${DATABASE_NOW_MS} - $2::bigint`;
      const result = await client.query(
        `UPDATE ${this.t("generations")} SET status = 'interrupted', completed_at = $1
         WHERE status = 'pending'
           AND (owner IS NULL OR owner NOT IN (SELECT id FROM ${leases} WHERE renewed_at > ${cutoff}))`,
        [Date.now(), Math.max(0, Math.round(silentForMs))],
      );
      // Their spend holds too: a silent process settles nothing (spend-reservations.ts).
      await client.query(
        `DELETE FROM ${this.t("spend_reservations")}
         WHERE owner IS NULL OR owner NOT IN (SELECT id FROM ${leases} WHERE renewed_at > ${DATABASE_NOW_MS} - $1::bigint)`,
        [Math.max(0, Math.round(silentForMs))],
      );
      await client.query(`DELETE FROM ${leases} WHERE renewed_at <= ${DATABASE_NOW_MS} - $1::bigint`, [
        Math.max(0, Math.round(silentForMs)),
      ]);
      return result.rowCount ?? 0;
    });
  }

  // ── spend reservations (src/limits/spend-reservations.ts) ──────────────────────────────────────

  /**
   * Under transaction-scoped advisory locks on the account and the key (taken in that order, so two
   * reservations cannot wait on each other), so the sums and the insert do not interleave with
   * another process's. Times are the database's clock.
   */
  async reserveSpend(r: SpendReservation): Promise<SpendDecision> {
    return this.transaction(async (client) => {
      const held = { key: 0, account: 0 };
      for (const [column, id, side, readAt] of [
        ["account_id", r.accountId, "account", r.accountReadAt],
        ["key_id", r.keyId, "key", r.keyReadAt],
      ] as const) {
        if (id === undefined) continue;
        await client.query("SELECT pg_advisory_xact_lock(hashtextextended($1, 0))", [
          `spend:${column}:${id}`,
        ]);
        held[side] = (await this.heldNow(client, column, id, readAt ?? 0, true)).total;
      }
      const decision = spendDecision(r, held);
      if (decision.refused) return decision;
      await client.query(
        `INSERT INTO ${this.t("spend_reservations")} (id, key_id, account_id, amount, expires_at, owner)
         VALUES ($1, $2, $3, $4, ${DATABASE_NOW_MS} + $5::bigint, $6) ON CONFLICT (id) DO NOTHING`,
        [r.id, r.keyId ?? null, r.accountId ?? null, decision.held, Math.round(r.ttlMs), this.owner],
      );
      return decision;
    });
  }

  async settleSpend(h: SpendHold, amount: number, holdMs: number, settledAt: number): Promise<void> {
    const bucket = settledBucket(settledAt);
    const settled = this.t("spend_settled");
    await this.transaction(async (client) => {
      await client.query(`DELETE FROM ${this.t("spend_reservations")} WHERE id = $1`, [h.id]);
      for (const scope of settledScopes(h))
        await client.query(
          `INSERT INTO ${settled} AS s (scope, bucket, amount, last_at, expires_at) VALUES ($1, $2, $3, $4, $5)
           ON CONFLICT (scope, bucket) DO UPDATE SET amount = s.amount + excluded.amount,
             last_at = greatest(s.last_at, excluded.last_at),
             expires_at = greatest(s.expires_at, excluded.expires_at)`,
          [scope, bucket, amount, Math.round(settledAt), bucket + SETTLED_BUCKET_MS + Math.round(holdMs)],
        );
    });
  }

  async releaseSpend(h: SpendHold): Promise<void> {
    await this.query(`DELETE FROM ${this.t("spend_reservations")} WHERE id = $1`, [h.id]);
  }

  async renewSpend(holds: SpendHold[], ttlMs: number): Promise<void> {
    if (holds.length === 0) return;
    await this.query(
      `UPDATE ${this.t("spend_reservations")} SET expires_at = ${DATABASE_NOW_MS} + $1::bigint
       WHERE id = ANY($2::text[])`,
      [Math.round(ttlMs), holds.map((h) => h.id)],
    );
  }

  async heldSpend(on: { keyId: string } | { accountId: string }): Promise<HeldSpend> {
    const [column, id] =
      "keyId" in on ? (["key_id", on.keyId] as const) : (["account_id", on.accountId] as const);
    const { reserved, settling } = await this.heldNow(this.pool, column, id, 0, false);
    return { reserved, settling };
  }

  /**
   * A key's or account's live holds: reserved, and settled in buckets settled into at or after
   * `readAt` (a reading taken earlier lacks them). With `prune` (inside a reservation), expired ones are deleted.
   */
  private async heldNow(
    client: Pick<PoolClient, "query">,
    column: "key_id" | "account_id",
    id: string,
    readAt: number,
    prune: boolean,
  ) {
    const reservations = this.t("spend_reservations");
    const settled = this.t("spend_settled");
    const scope = settledScope(column, id);
    try {
      if (prune) {
        await client.query(
          `DELETE FROM ${reservations} WHERE ${column} = $1 AND expires_at <= ${DATABASE_NOW_MS}`,
          [id],
        );
        await client.query(`DELETE FROM ${settled} WHERE scope = $1 AND expires_at <= ${DATABASE_NOW_MS}`, [
          scope,
        ]);
      }
      const sums = await client.query(
        `SELECT (SELECT coalesce(sum(amount), 0) FROM ${reservations}
                  WHERE ${column} = $1 AND expires_at > ${DATABASE_NOW_MS})::text AS reserved,
                (SELECT coalesce(sum(amount), 0) FROM ${settled}
                  WHERE scope = $2 AND expires_at > ${DATABASE_NOW_MS} AND last_at >= $3::bigint)::text AS settling`,
        [id, scope, Math.round(readAt)],
      );
      const reserved = Number(sums.rows[0].reserved);
      const settling = Number(sums.rows[0].settling);
      return { reserved, settling, total: reserved + settling };
    } catch (error) {
      throw asUnavailable(error);
    }
  }

  async listUnsettled(limit: number): Promise<GenerationRow[]> {
    await this.writes.flush();
    const result = await this.query(
      `SELECT ${generationColumnList} FROM ${this.t("generations")}
       WHERE settled_at IS NULL AND usage IS NOT NULL AND status IN ('completed', 'failed', 'cancelled')
       ORDER BY created_at, id LIMIT $1`,
      [limit],
    );
    return result.rows.map(generationFromColumns);
  }

  // ── operators ─────────────────────────────────────────────────────────────────────────────────

  async deleteGenerations(idBefore: string, limit: number): Promise<number> {
    const generations = this.t("generations");
    // SKIP LOCKED: processes sharing the store delete apart, and never wait on a row being settled.
    const result = await this.query(
      `DELETE FROM ${generations} WHERE id IN (
         SELECT id FROM ${generations} WHERE id < $1 AND ${deletableGeneration}
         ORDER BY id LIMIT $2 FOR UPDATE SKIP LOCKED)`,
      [idBefore, limit],
    );
    return result.rowCount ?? 0;
  }

  // ── internals ─────────────────────────────────────────────────────────────────────────────────

  /**
   * One transaction: whole generations, then all starts, then all finishes. Equivalent to queue
   * order, since a finish only ever follows its own start. A second start or finish of one id in a
   * batch fails, as it would one at a time.
   */
  private async applyWrites(writes: GenerationWrite[]): Promise<BatchOutcome> {
    const outcome: BatchOutcome = writes.map(() => undefined);
    const wholes = new Map<string, { index: number; start: GenerationStart; end: GenerationEnd }>();
    const starts = new Map<string, { index: number; start: GenerationStart }>();
    const ends = new Map<string, { index: number; end: GenerationEnd }>();
    writes.forEach((write, index) => {
      if (write.kind === "whole") {
        if (wholes.has(write.start.id)) outcome[index] = generationAlreadyStarted(write.start.id);
        else wholes.set(write.start.id, { index, ...write });
      } else if (write.kind === "start") {
        if (starts.has(write.start.id)) outcome[index] = generationAlreadyStarted(write.start.id);
        else starts.set(write.start.id, { index, start: write.start });
      } else if (ends.has(write.end.id)) {
        outcome[index] = generationNotFinishable(write.end.id);
      } else {
        ends.set(write.end.id, { index, end: write.end });
      }
    });
    await this.transaction(async (client) => {
      const settled: Array<{ source: RollupSource; end: GenerationEnd }> = [];
      const written = await this.insertWholes(client, [...wholes.values()]);
      for (const [id, { index, start, end }] of wholes) {
        if (written.has(id)) settled.push({ source: start, end });
        else outcome[index] = generationAlreadyStarted(id);
      }
      const inserted = await this.insertStarts(
        client,
        [...starts.values()].map((s) => s.start),
      );
      for (const [id, { index }] of starts)
        if (!inserted.has(id)) outcome[index] = generationAlreadyStarted(id);
      const finished = await this.applyFinishes(
        client,
        [...ends.values()].map((e) => e.end),
      );
      for (const [id, { index, end }] of ends) {
        const source = finished.get(id);
        if (source === undefined) outcome[index] = generationNotFinishable(id);
        else settled.push({ source, end });
      }
      await this.debitSettled(
        client,
        settled.map(({ source, end }) => ({ accountId: source.accountId, end })),
      );
      const rollups = new RollupBatch();
      for (const { source, end } of settled) rollups.finished(source, end);
      await this.applyRollups(client, rollups);
    });
    return outcome;
  }

  private async insertStarts(client: PoolClient, starts: GenerationStart[]): Promise<Set<string>> {
    if (starts.length === 0) return new Set();
    const result = await client.query(
      `INSERT INTO ${this.t("generations")} (id, account_id, key_id, api, model, streamed, created_at,
         session_id, status, owner)
       SELECT s.*, 'pending', $9::text
       FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::boolean[], $7::bigint[],
         $8::text[]) AS s
       ON CONFLICT (id) DO NOTHING
       RETURNING id`,
      [...startColumns(starts), this.owner],
    );
    return new Set(result.rows.map((row) => row.id as string));
  }

  /**
   * Generations that ended before their start was written: one finished row each. The rows travel
   * as one JSON array (built from text: usage and rating are JSON already), which the server turns
   * into records; cheaper on the gateway than nineteen array parameters escaped element by element.
   */
  private async insertWholes(
    client: PoolClient,
    wholes: Array<{ start: GenerationStart; end: GenerationEnd }>,
  ): Promise<Set<string>> {
    if (wholes.length === 0) return new Set();
    const result = await client.query(
      `INSERT INTO ${this.t("generations")} (id, account_id, key_id, api, model, streamed, created_at,
         status, provider, usage, finish_reason, latency_ms, generation_time_ms, request_retry_times, final_retry,
         error_message, completed_at, rating, settled_at, session_id, owner)
       SELECT r.*, $2::text
       FROM jsonb_to_recordset($1::jsonb) AS r(id text, account_id text, key_id text, api text, model text,
         streamed boolean, created_at bigint, status text, provider text, usage jsonb, finish_reason text,
         latency_ms integer, generation_time_ms integer, request_retry_times integer, final_retry boolean,
         error_message text, completed_at bigint, rating jsonb, settled_at bigint, session_id text)
       ON CONFLICT (id) DO NOTHING
       RETURNING id`,
      [`[${wholes.map(wholeRowJson).join(",")}]`, this.owner],
    );
    return new Set(result.rows.map((row) => row.id as string));
  }

  /**
   * Also completes an 'interrupted' row: another process may have marked it while it was running.
   * Returns what each finished generation's row says of itself (for its debit and rollup).
   */
  private async applyFinishes(client: PoolClient, ends: GenerationEnd[]): Promise<Map<string, RollupSource>> {
    if (ends.length === 0) return new Map();
    const result = await client.query(
      `UPDATE ${this.t("generations")} AS g
       SET model = coalesce(f.model, g.model), status = f.status, provider = f.provider, usage = f.usage, finish_reason = f.finish_reason,
           latency_ms = f.latency_ms, generation_time_ms = f.generation_time_ms,
           request_retry_times = f.request_retry_times, final_retry = f.final_retry,
           error_message = f.error_message, completed_at = f.completed_at,
           rating = coalesce(f.rating, g.rating), settled_at = coalesce(f.settled_at, g.settled_at)
       FROM jsonb_to_recordset($1::jsonb) AS f(id text, model text, status text, provider text, usage jsonb,
         finish_reason text, latency_ms integer, generation_time_ms integer, request_retry_times integer,
         final_retry boolean, error_message text, completed_at bigint, rating jsonb, settled_at bigint)
       WHERE g.id = f.id AND g.status IN ('pending', 'interrupted')
       RETURNING g.id, g.account_id, g.key_id, g.model, g.provider, g.created_at`,
      [
        `[${ends.map((e) => `{"id":${JSON.stringify(e.id)},"model":${jsonText(e.model)},${finishMembers(e)}}`).join(",")}]`,
      ],
    );
    return new Map(result.rows.map((row) => [row.id as string, rollupSource(row)]));
  }

  /**
   * Finishes that settle debit their accounts in their own batch's transaction, summed per account
   * and in a fixed order so concurrent batches cannot deadlock.
   */
  private async debitSettled(client: PoolClient, settled: Array<{ accountId: string; end: GenerationEnd }>) {
    const debits = new DebitsByAccount();
    for (const { accountId, end } of settled)
      if (end.settlement) debits.add(accountId, debitOf(end.settlement));
    for (const [account, change] of debits.balanceChanges())
      await this.accounts.addToBalance(client, account, change);
  }

  /**
   * Adds a batch's rollup deltas in one statement, rows in key order (RollupBatch.deltas) so that
   * concurrent batches lock shared rollup rows in the same order and cannot deadlock.
   */
  private async applyRollups(client: PoolClient, rollups: RollupBatch): Promise<void> {
    if (rollups.size === 0) return;
    for (const table of ROLLUP_TABLES) {
      const columns = [...table.keys, ...COUNTER_COLUMNS, "cost"];
      const types = [
        ...table.keys.map((c) => `${c} ${c === "day" ? "integer" : "text"}`),
        ...COUNTER_COLUMNS.map((c) => `${c} bigint`),
        "cost numeric",
      ];
      const rows = rollups.deltas(table).map((d) => {
        const row: Record<string, unknown> = { cost: d.cost };
        for (const c of table.keys) row[c] = keyValue(d, c);
        COUNTER_COLUMNS.forEach((c, i) => {
          row[c] = d.counters[i];
        });
        return row;
      });
      await client.query(
        `INSERT INTO ${this.t(table.name)} AS u (${columns.join(", ")})
         SELECT ${columns.join(", ")} FROM jsonb_to_recordset($1::jsonb) AS r(${types.join(", ")})
         ON CONFLICT (${table.keys.join(", ")}) DO UPDATE SET
         ${COUNTER_COLUMNS.map((c) => `${c} = u.${c} + excluded.${c}`).join(", ")},
         cost = u.cost + excluded.cost`,
        [JSON.stringify(rows)],
      );
    }
  }

  /** A pool query; an unreachable server is a StoreUnavailable. */
  // ── kept thinking ─────────────────────────────────────────────────────────────────────────────

  async keepThinking(accountId: string, kept: KeptThinking[], expiresAt: number): Promise<void> {
    const table = this.t("kept_thinking");
    await this.query(`DELETE FROM ${table} WHERE account_id = $1 AND expires_at <= $2`, [
      accountId,
      Date.now(),
    ]);
    if (kept.length === 0) return;
    await this.query(
      `INSERT INTO ${table} (account_id, tool_call_id, blocks, expires_at)
       SELECT $1, id, blocks, $4 FROM unnest($2::text[], $3::text[]) AS k(id, blocks)
       ON CONFLICT (account_id, tool_call_id) DO UPDATE SET blocks = excluded.blocks, expires_at = excluded.expires_at`,
      [accountId, kept.map((k) => k.toolCallId), kept.map((k) => k.blocks), expiresAt],
    );
  }

  async keptThinking(
    accountId: string,
    toolCallIds: readonly string[],
    now: number,
  ): Promise<Map<string, string>> {
    const result = await this.query<{ tool_call_id: string; blocks: string }>(
      `SELECT tool_call_id, blocks FROM ${this.t("kept_thinking")}
       WHERE account_id = $1 AND tool_call_id = ANY($2::text[]) AND expires_at > $3`,
      [accountId, [...toolCallIds], now],
    );
    return new Map(result.rows.map((row) => [row.tool_call_id, row.blocks]));
  }

  private async query<R extends QueryResultRow = QueryResultRow>(
    sql: string,
    params?: unknown[],
  ): Promise<QueryResult<R>> {
    try {
      return await this.pool.query<R>(sql, params);
    } catch (error) {
      throw asUnavailable(error);
    }
  }

  private async transaction<T>(work: (client: PoolClient) => Promise<T>): Promise<T> {
    let client: PoolClient;
    try {
      client = await this.pool.connect();
    } catch (error) {
      throw asUnavailable(error);
    }
    // A checked-out client has no listener of the pool's: a server that drops the connection
    // between two statements (a restart) would emit an unhandled 'error' and end the process.
    let broken: Error | undefined;
    const onError = (error: Error) => {
      broken = error;
      logConnectionLost(error);
    };
    client.on("error", onError);
    try {
      await client.query("BEGIN");
      const result = await work(client);
      await client.query("COMMIT");
      return result;
    } catch (error) {
      if (!broken) {
        try {
          await client.query("ROLLBACK");
        } catch (rollbackError) {
          broken = rollbackError as Error; // the connection is unusable: the pool must drop it
        }
      }
      throw asUnavailable(error);
    } finally {
      client.off("error", onError);
      client.release(broken);
    }
  }
}

/** A failure that says the server is away becomes a StoreUnavailable; anything else is left as is. */
function asUnavailable(error: unknown): unknown {
  return isServerUnavailable(error) ? new StoreUnavailable(error) : error;
}

/** At most one line a second: a restart drops every pooled connection at once. */
let lostLoggedAt = 0;
function logConnectionLost(error: Error): void {
  const now = Date.now();
  if (now - lostLoggedAt < 1_000) return;
  lostLoggedAt = now;
  console.error(`switchyard ledger: PostgreSQL connection lost: ${error.message}`);
}

function rollupSource(row: QueryResultRow): RollupSource {
  return {
    accountId: String(row.account_id),
    keyId: String(row.key_id),
    model: String(row.model),
    provider: row.provider ?? undefined,
    createdAt: Number(row.created_at),
  };
}

/** A whole generation as one JSON object of its columns (see insertWholes). */
function wholeRowJson({ start: g, end: e }: { start: GenerationStart; end: GenerationEnd }): string {
  return (
    `{"id":${jsonText(g.id)},"account_id":${jsonText(g.accountId)},"key_id":${jsonText(g.keyId)},` +
    `"api":${jsonText(g.api)},"model":${jsonText(e.model ?? g.model)},"streamed":${g.streamed},` +
    `"created_at":${jsonInt(wholeMs(g.createdAt))},${finishMembers(e)},` +
    `"session_id":${jsonText(g.sessionId)}}`
  );
}

/** The columns a finish sets, as JSON object members (usage and rating are JSON text already). */
function finishMembers(e: GenerationEnd): string {
  return (
    `"status":${jsonText(e.status)},"provider":${jsonText(e.provider)},"usage":${usageColumn(e.usage)},` +
    `"finish_reason":${jsonText(e.finishReason)},"latency_ms":${jsonInt(wholeMs(e.latencyMs))},` +
    `"generation_time_ms":${jsonInt(wholeMs(e.generationTimeMs))},` +
    `"request_retry_times":${Math.round(e.requestRetryTimes)},"final_retry":${e.finalRetry},` +
    `"error_message":${jsonText(storableErrorMessage(e.errorMessage))},` +
    `"completed_at":${jsonInt(wholeMs(e.completedAt))},` +
    `"rating":${e.settlement ? ratingColumn(e.settlement.rating) : "null"},` +
    `"settled_at":${e.settlement ? jsonInt(wholeMs(e.completedAt)) : "null"}`
  );
}

function jsonText(value: string | undefined | null): string {
  return value == null ? "null" : JSON.stringify(value);
}

function jsonInt(value: number | null): string {
  return value === null ? "null" : String(value);
}

/**
 * The columns of starts, as unnest() arrays: id, account_id, key_id, api, model, streamed, created_at,
 * session_id.
 */
function startColumns(starts: GenerationStart[]): unknown[] {
  return [
    starts.map((g) => g.id),
    starts.map((g) => g.accountId),
    starts.map((g) => g.keyId),
    starts.map((g) => g.api),
    starts.map((g) => g.model),
    starts.map((g) => g.streamed),
    starts.map((g) => wholeMs(g.createdAt)),
    starts.map((g) => g.sessionId ?? null),
  ];
}
