// What the SQLite store lends each of its parts (accounts, keys, usage queries, stored responses,
// conversations): its connection, its cache of prepared statements and its write transaction
// (BEGIN IMMEDIATE, a busy file a StoreUnavailable). One place, so every part is wired the same way.

import type { DatabaseSync, StatementSync } from "node:sqlite";
import type { Qualify } from "./sql-dialect.ts";

export type SqliteTransaction = <T>(work: () => T) => T;

export interface SqliteAccess {
  connection: DatabaseSync;
  /** Prepares (and caches) a statement on the store's connection. */
  statement(sql: string): StatementSync;
  transaction: SqliteTransaction;
}

/** A part of the SQLite store: it reads and writes on the store's one connection. */
export abstract class SqlitePart {
  protected readonly db: DatabaseSync;
  protected readonly statement: (sql: string) => StatementSync;
  protected readonly transaction: SqliteTransaction;

  constructor(access: SqliteAccess) {
    this.db = access.connection;
    this.statement = (sql) => access.statement(sql);
    this.transaction = access.transaction;
  }
}

/** A table's name in the embedded store: as is (one file, no schema). */
export const asIs: Qualify = (table) => table;

/** The n-th placeholder of a statement written for both stores (sql-dialect.ts): SQLite's are positional. */
export const param = (_n: number): string => "?";
