// What a PostgreSQL store lends each of its parts (accounts, keys, usage queries, stored responses,
// conversations): its pool's bounded queries and transactions, and the qualifier that names its
// tables in the configured schema. One place, so every part is constructed and wired the same way.

import type { PoolClient, QueryResult, QueryResultRow } from "pg";
import type { Qualify } from "./sql-dialect.ts";

export interface PostgresAccess {
  query<R extends QueryResultRow = QueryResultRow>(sql: string, params?: unknown[]): Promise<QueryResult<R>>;
  transaction<T>(work: (client: PoolClient) => Promise<T>): Promise<T>;
}

/** A part of the PostgreSQL store: it queries through the store's pool, in the store's schema. */
export abstract class PostgresPart {
  protected readonly db: PostgresAccess;
  protected readonly t: Qualify;

  constructor(db: PostgresAccess, t: Qualify) {
    this.db = db;
    this.t = t;
  }
}

/** The n-th placeholder of a statement written for both stores. */
export const param = (n: number): string => `$${n}`;

/**
 * Runs DDL under a transaction-scoped advisory lock: many processes starting at once migrate one
 * after the other, never both creating one table.
 */
export async function migrateUnderLock(db: PostgresAccess, ddl: string): Promise<void> {
  await db.transaction(async (client) => {
    await client.query("SELECT pg_advisory_xact_lock(hashtext('switchyard.ledger.migrate'))");
    await client.query(ddl);
  });
}
