// Tables of the embedded store: the ledger's (ledger-tables.ts), and the columns added since the
// first release, which migrate() adds where a file lacks them (SQLite has no ADD COLUMN IF NOT EXISTS).

import { addedColumns, ledgerTables } from "./ledger-tables.ts";
import { SQLITE } from "./sql-dialect.ts";

export const sqliteSchema = ledgerTables((table) => table, SQLITE);

/** Columns added since the first release: migrate() adds those an existing file lacks. */
export const sqliteAddedColumns = addedColumns(SQLITE);
