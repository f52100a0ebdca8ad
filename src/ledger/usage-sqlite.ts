// Operators' reads of the embedded ledger (usage-types.ts). Costs are summed exactly in SQL by the
// store's `dec_sum` (billing/money.ts DecimalSum).

import type { SQLInputValue } from "node:sqlite";
import { type Columns, generationColumnList, generationFromColumns, generationWhere } from "./columns.ts";
import {
  counterSums,
  GROUP_COLUMN,
  rollupTableFor,
  sumsFromColumns,
  type UsageFilter,
  type UsageGroup,
  type UsageSums,
  usageWhere,
} from "./rollups.ts";
import { read } from "./sqlite-errors.ts";
import { param, type SqliteAccess, SqlitePart } from "./sqlite-part.ts";
import type { GenerationFilter, GenerationRow } from "./types.ts";
import type { UsageQueries } from "./usage-types.ts";

export class SqliteUsage extends SqlitePart implements UsageQueries {
  private readonly flush: () => Promise<unknown>;

  /** `flush` resolves once the generation writes queued so far are committed. */
  constructor(access: SqliteAccess, flush: () => Promise<unknown>) {
    super(access);
    this.flush = flush;
  }

  async listGenerations(filter: GenerationFilter): Promise<GenerationRow[]> {
    await this.flush();
    const where = generationWhere(filter, param);
    const rows = read(() =>
      this.statement(
        `SELECT ${generationColumnList} FROM generations WHERE ${where.sql} ORDER BY id DESC LIMIT ?`,
      ).all(...where.values, filter.limit),
    );
    return rows.map((row) => generationFromColumns(row as Columns));
  }

  async usage(filter: UsageFilter, group: UsageGroup): Promise<UsageSums[]> {
    await this.flush();
    const where = usageWhere(filter, param);
    const rows = read(() =>
      this.statement(
        `SELECT ${GROUP_COLUMN[group]} AS g, ${counterSums}, dec_sum(cost) AS cost
         FROM ${rollupTableFor(filter, group).name} WHERE ${where.sql} GROUP BY g ORDER BY g`,
      ).all(...(where.values as SQLInputValue[])),
    );
    return rows.map((row) => sumsFromColumns(row, row.cost));
  }
}
