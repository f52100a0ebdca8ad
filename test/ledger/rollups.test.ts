// A batch's rollup deltas: each finish and settlement lands in the row of its day, account, key,
// model and provider, however the batch interleaves them; costs add up exactly.

import assert from "node:assert/strict";
import { test } from "node:test";
import { emptyUsage } from "../../src/ir/usage.ts";
import { ROLLUP_TABLES, RollupBatch } from "../../src/ledger/rollups.ts";
import type { GenerationEnd } from "../../src/ledger/types.ts";

const DAY = 86_400_000;
const source = (accountId: string, keyId: string, model: string, createdAt = 10 * DAY) => ({
  accountId,
  keyId,
  model,
  createdAt,
});
const end = (cost?: string, extra: Partial<GenerationEnd> = {}): GenerationEnd => ({
  id: "g",
  status: "completed",
  provider: "p",
  usage: { ...emptyUsage(), promptTokens: 10, completionTokens: 1 },
  requestRetryTimes: 0,
  finalRetry: true,
  completedAt: 0,
  ...(cost === undefined
    ? {}
    : {
        settlement: {
          rating: {
            usage: cost,
            billAmount: cost,
            discountAmount: "0",
            originAmount: cost,
            priceVersion: "v",
            ratingDetails: [],
          },
        },
      }),
  ...extra,
});

test("interleaved finishes of one batch land in their own rows, each counted once, costs exact", () => {
  const batch = new RollupBatch();
  const a = source("acct", "k1", "m");
  const b = source("acct", "k2", "m");
  batch.finished(a, end("0.1"));
  batch.finished(b, end("0.2"));
  batch.finished(a, end("0.2"));
  batch.finished(a, end(undefined, { provider: "q" })); // another provider: another row
  batch.finished(a, end("0.000000000001", { model: "fallback" })); // answered by a fallback model
  batch.finished(source("acct", "k1", "m", 11 * DAY), end("1")); // the next day
  batch.finished(a, end("0.3", { status: "failed" }));
  batch.settled({ ...a, provider: "p" }, "0.4");
  const rows = batch
    .deltas(ROLLUP_TABLES[0])
    .map((d) => [d.day, d.keyId, d.model, d.provider, d.counters[0], d.counters[1], d.counters[2], d.cost]);
  assert.deepEqual(rows, [
    [10, "k1", "fallback", "p", 1, 0, 10, "0.000000000001"],
    [10, "k1", "m", "p", 3, 1, 30, "1"],
    [10, "k1", "m", "q", 1, 0, 10, "0"],
    [10, "k2", "m", "p", 1, 0, 10, "0.2"],
    [11, "k1", "m", "p", 1, 0, 10, "1"],
  ]);
  // Coarser grains add the rows up.
  const byKey = batch.deltas(ROLLUP_TABLES[2]).map((d) => [d.day, d.keyId, d.counters[0], d.cost]);
  assert.deepEqual(byKey, [
    [10, "k1", 5, "1.000000000001"],
    [10, "k2", 1, "0.2"],
    [11, "k1", 1, "1"],
  ]);
});
