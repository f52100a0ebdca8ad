// What the two stores spell apart in their tables: column types and how a table ends. A table both
// stores hold is written once over a dialect (ledger-tables.ts, responses-types.ts,
// conversations-types.ts, rollups.ts), so the two stores' columns cannot drift apart.

export interface SqlDialect {
  /** Epoch ms, whole nano-USD and other integers past 32 bits. */
  int64: string;
  bool: string;
  /** `false` as a column default. */
  falseValue: string;
  /** A JSON column. */
  json: string;
  /** Exact decimal money, and its zero as a default. */
  money: string;
  moneyZero: string;
  /** After the closing parenthesis of a table keyed by its primary key alone. */
  keyedTable: string;
}

/** Money is TEXT holding an exact decimal: SQLite's NUMERIC affinity would make "0.1" a binary double. */
export const SQLITE: SqlDialect = {
  int64: "INTEGER",
  bool: "INTEGER",
  falseValue: "0",
  json: "TEXT",
  money: "TEXT",
  moneyZero: "'0'",
  // The primary key holds the row itself: one B-tree to write, not two.
  keyedTable: " WITHOUT ROWID",
};

/** Money is NUMERIC (exact; pg hands it back as a string, kept a string). */
export const POSTGRES: SqlDialect = {
  int64: "BIGINT",
  bool: "BOOLEAN",
  falseValue: "false",
  json: "JSONB",
  money: "NUMERIC",
  moneyZero: "0",
  keyedTable: "",
};

/** `qualify("keys")` → the table's name in the store (PostgreSQL: in its schema; SQLite: as is). */
export type Qualify = (table: string) => string;
