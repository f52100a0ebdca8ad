// Tables of the shared store: the ledger's (ledger-tables.ts) in its schema, and the columns added
// since the first release, which PostgreSQL adds itself where a table lacks them.

import { addedColumns, ledgerTables } from "./ledger-tables.ts";
import { POSTGRES, type Qualify } from "./sql-dialect.ts";

/** The database's clock in epoch ms: leases are compared on one clock, whatever the gateways' clocks say. */
export const DATABASE_NOW_MS = "(extract(epoch from clock_timestamp()) * 1000)::bigint";

/** `qualify("keys")` → `"schema".keys`, or just `keys` when no schema was chosen. */
export function qualifier(schema: string | undefined): Qualify {
  return schema === undefined ? (table) => table : (table) => `"${schema}".${table}`;
}

export function postgresSchema(schema: string | undefined): string {
  const t = qualifier(schema);
  const added = addedColumns(POSTGRES).map(
    ({ table, column, type }) => `ALTER TABLE ${t(table)} ADD COLUMN IF NOT EXISTS ${column} ${type};`,
  );
  return `
${schema === undefined ? "" : `CREATE SCHEMA IF NOT EXISTS "${schema}";`}
${ledgerTables(t, POSTGRES)}
${added.join("\n")}
`;
}
