// Operators' reads of the PostgreSQL ledger (usage-types.ts). Costs are summed by numeric SUM, exact.

import { canonicalDecimal } from "../billing/money.ts";
import { generationColumnList, generationFromColumns, generationWhere } from "./columns.ts";
import { type PostgresAccess, PostgresPart, param } from "./postgres-part.ts";
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
import type { Qualify } from "./sql-dialect.ts";
import type { GenerationFilter, GenerationRow } from "./types.ts";
import type { UsageQueries } from "./usage-types.ts";

export class PostgresUsage extends PostgresPart implements UsageQueries {
  private readonly flush: () => Promise<unknown>;

  /** `flush` resolves once this process's generation writes queued so far are committed. */
  constructor(db: PostgresAccess, t: Qualify, flush: () => Promise<unknown>) {
    super(db, t);
    this.flush = flush;
  }

  async listGenerations(filter: GenerationFilter): Promise<GenerationRow[]> {
    await this.flush();
    const where = generationWhere(filter, param);
    const result = await this.db.query(
      `SELECT ${generationColumnList} FROM ${this.t("generations")} WHERE ${where.sql}
       ORDER BY id DESC LIMIT $${where.values.length + 1}`,
      [...where.values, filter.limit],
    );
    return result.rows.map(generationFromColumns);
  }

  async usage(filter: UsageFilter, group: UsageGroup): Promise<UsageSums[]> {
    await this.flush();
    const where = usageWhere(filter, param);
    const result = await this.db.query(
      `SELECT ${GROUP_COLUMN[group]} AS g, ${counterSums}, SUM(cost)::text AS cost
       FROM ${this.t(rollupTableFor(filter, group).name)} WHERE ${where.sql} GROUP BY g ORDER BY g`,
      where.values,
    );
    return result.rows.map((row) => sumsFromColumns(row, canonicalDecimal(String(row.cost ?? "0"))));
  }
}
