// What operators read of the ledger (the admin API, a key's budget): generations listed by filter,
// and sums of the per-day rollups (rollups.ts). Both stores implement it (usage-sqlite.ts,
// usage-postgres.ts) and share one contract test (test/ledger/store-contract.ts, "rollups,
// listings and retention"). Each read first waits for the generation writes queued before it.

import type { UsageFilter, UsageGroup, UsageSums } from "./rollups.ts";
import type { GenerationFilter, GenerationRow } from "./types.ts";

export interface UsageQueries {
  /** Any account's generations, newest first. */
  listGenerations(filter: GenerationFilter): Promise<GenerationRow[]>;
  /** Sums of the per-day rollups, one per group, in group order. */
  usage(filter: UsageFilter, group: UsageGroup): Promise<UsageSums[]>;
}
