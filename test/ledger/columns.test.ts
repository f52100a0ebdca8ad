// The compact usage and rating columns read back exactly as written; rows written by earlier
// versions (a whole rating object) read as they were.

import assert from "node:assert/strict";
import { test } from "node:test";
import { emptyUsage } from "../../src/ir/usage.ts";
import { generationFromColumns, ratingColumn, usageColumn } from "../../src/ledger/columns.ts";
import type { Rating } from "../../src/ledger/types.ts";

const row = {
  id: "gen-1",
  account_id: "a",
  key_id: "k",
  api: "messages",
  model: "m",
  streamed: 0,
  created_at: 1,
  status: "completed",
};

const discounted: Rating = {
  usage: "0.0000405",
  billAmount: "0.0000405",
  discountAmount: "0.0000045",
  originAmount: "0.000045",
  priceVersion: "v7",
  ratingDetails: [
    {
      feeItemCode: "prompt",
      rate: "1",
      originAmount: "0.000009",
      discountAmount: "0.0000009",
      billAmount: "0.0000081",
    },
    {
      feeItemCode: "completion",
      rate: "3.6",
      originAmount: "0.000036",
      discountAmount: "0.0000036",
      billAmount: "0.0000324",
    },
  ],
};

const plain: Rating = {
  usage: "0.000029",
  billAmount: "0.000029",
  discountAmount: "0",
  originAmount: "0.000029",
  priceVersion: "v7",
  ratingDetails: [
    {
      feeItemCode: "prompt",
      rate: "1",
      originAmount: "0.000009",
      discountAmount: "0",
      billAmount: "0.000009",
    },
    {
      feeItemCode: "completion",
      rate: "2",
      originAmount: "0.00002",
      discountAmount: "0",
      billAmount: "0.00002",
    },
  ],
};

test("a rating round-trips exactly, discounted or not, and its column is small", () => {
  for (const rating of [discounted, plain]) {
    const column = ratingColumn(rating);
    assert.deepEqual(generationFromColumns({ ...row, rating: column }).rating, rating);
    assert.ok(column.length < JSON.stringify(rating).length / 2, column);
  }
  assert.equal(ratingColumn(plain), '["v7",["prompt","1","0.000009"],["completion","2","0.00002"]]');
});

test("a rating with no fee items totals zero", () => {
  const none: Rating = { ...plain, usage: "0", billAmount: "0", originAmount: "0", ratingDetails: [] };
  assert.deepEqual(generationFromColumns({ ...row, rating: ratingColumn(none) }).rating, none);
});

test("a rating stored whole by an earlier version reads as it was (SQLite text, PostgreSQL JSONB)", () => {
  assert.deepEqual(generationFromColumns({ ...row, rating: JSON.stringify(discounted) }).rating, discounted);
  assert.deepEqual(generationFromColumns({ ...row, rating: structuredClone(discounted) }).rating, discounted);
});

test("usage keeps only its non-zero counts and reads back whole", () => {
  const usage = { ...emptyUsage(), promptTokens: 9, completionTokens: 10, audioSeconds: 1.5 };
  assert.equal(usageColumn(usage), '{"promptTokens":9,"completionTokens":10,"audioSeconds":1.5}');
  assert.deepEqual(generationFromColumns({ ...row, usage: usageColumn(usage) }).usage, usage);
  assert.deepEqual(generationFromColumns({ ...row, usage: usageColumn(emptyUsage()) }).usage, emptyUsage());
  // Exactly what JSON.stringify writes of the non-zero counts, whatever the counts hold.
  const reference = (u: Record<string, number | boolean | undefined>) =>
    JSON.stringify(Object.fromEntries(Object.entries(u).filter(([, n]) => n !== undefined && n !== 0)));
  for (const u of [
    { ...emptyUsage(), promptTokens: 1, cacheReadTokens: 2, cacheWrite5mTokens: 3, cacheWrite1hTokens: 4 },
    { ...emptyUsage(), reasoningTokens: 5, webSearchRequests: 6, imageOutputs: 7, videoSeconds: 0.25 },
    { ...emptyUsage(), completionTokens: Number.NaN, audioSeconds: undefined, promptTokens: -0 },
    { ...emptyUsage(), promptTokens: 3, completionTokens: 2, estimated: true as const },
  ])
    assert.equal(usageColumn(u), reference(u));
  // The gateway's estimate (a stream cut before its usage) reads back marked so.
  const estimated = { ...emptyUsage(), promptTokens: 3, completionTokens: 2, estimated: true as const };
  assert.deepEqual(generationFromColumns({ ...row, usage: usageColumn(estimated) }).usage, estimated);
  // Earlier rows hold every count, zeros included.
  assert.deepEqual(generationFromColumns({ ...row, usage: JSON.stringify(usage) }).usage, usage);
});
