// The spend reservations' rule on its four states (SQLite, PostgreSQL, Redis's Lua, and this
// process's memory when they fail): each must
// decide alike, concurrently too, and count a settled cost until its hold runs out.

import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { test } from "node:test";
import { parseDecimal } from "../../src/billing/money.ts";
import { PostgresStore } from "../../src/ledger/postgres-store.ts";
import { SqliteStore } from "../../src/ledger/sqlite-store.ts";
import { SETTLED_BUCKET_MS, settledBucket } from "../../src/ledger/store-rules.ts";
import type { SpendState } from "../../src/ledger/types.ts";
import { MemorySpendState } from "../../src/limits/memory-spend-state.ts";
import { RedisSpendState } from "../../src/limits/redis-spend-state.ts";
import { nanos, usdOf } from "../../src/limits/spend-reservations.ts";
import { dropSchema, PG_URL, requirePostgres, uniqueSchema } from "../support/postgres.ts";
import { flushScripts, REDIS_URL, requireRedis, scriptsSent } from "../support/redis.ts";

const TTL = 60_000;

async function rule(state: SpendState): Promise<void> {
  const run = randomUUID().slice(0, 8);
  const keyId = `key-${run}`;
  const accountId = `acct-${run}`;
  const reserve = (id: string, amount: number, rooms: { key?: number; account?: number }, minimum?: number) =>
    state.reserveSpend({
      id: `${run}-${id}`,
      amount,
      minimum,
      ttlMs: TTL,
      ...(rooms.key === undefined ? {} : { keyId, keyRoom: rooms.key }),
      ...(rooms.account === undefined ? {} : { accountId, accountRoom: rooms.account }),
    });
  const hold = (id: string, on: { key?: boolean; account?: boolean }) => ({
    id: `${run}-${id}`,
    ...(on.key ? { keyId } : {}),
    ...(on.account ? { accountId } : {}),
  });

  // Two holds of 40 fit a room of 100; a third does not, and is told 20 are left.
  assert.deepEqual(await reserve("a", 40, { key: 100, account: 1000 }), { held: 40 });
  assert.deepEqual(await reserve("b", 40, { key: 100, account: 1000 }), { held: 40 });
  assert.deepEqual(await reserve("c", 40, { key: 100, account: 1000 }), { refused: "budget", left: 20 });
  assert.deepEqual(await state.heldSpend({ keyId }), { reserved: 80, settling: 0 });
  // The account's credit refuses too, by its own room.
  assert.deepEqual(await reserve("d", 950, { account: 1000 }), { refused: "credit", left: 920 });

  // a settles at 10 (held still, as settling); b charged nothing and goes: 90 left, so 80 fits, then 10.
  await state.settleSpend(hold("a", { key: true, account: true }), 10, TTL, Date.now());
  await state.releaseSpend(hold("b", { key: true, account: true }));
  assert.deepEqual(await state.heldSpend({ keyId }), { reserved: 0, settling: 10 });
  assert.deepEqual(await state.heldSpend({ accountId }), { reserved: 0, settling: 10 });
  assert.deepEqual(await reserve("e", 80, { key: 100 }), { held: 80 });
  assert.deepEqual(await reserve("f", 11, { key: 100 }), { refused: "budget", left: 10 });
  await state.renewSpend([hold("e", { key: true })], TTL);
  // A reading of the settled spend taken after a settled is in it: a's 10 is not counted again.
  const after = (id: string, amount: number) =>
    state.reserveSpend({
      id: `${run}-${id}`,
      amount,
      ttlMs: TTL,
      keyId,
      keyRoom: 100,
      keyReadAt: Date.now() + 1,
    });
  assert.deepEqual(await after("after", 20), { held: 20 });
  await state.releaseSpend(hold("after", { key: true }));
  // One that may take less (no max_tokens) holds what is left, when that covers its minimum.
  assert.deepEqual(await reserve("g", 50, { key: 100 }, 5), { held: 10 });
  assert.deepEqual(await reserve("h", 50, { key: 100 }, 5), { refused: "budget", left: 0 });
  await state.releaseSpend(hold("g", { key: true }));

  // Settled spend runs out once its bucket ends and its hold is over (its cost is in every reading by
  // then): of another account, held for no longer than its bucket.
  const other = { id: `${run}-z`, accountId: `${accountId}-z` };
  assert.deepEqual(await state.reserveSpend({ ...other, amount: 7, accountRoom: 100, ttlMs: TTL }), {
    held: 7,
  });
  // Settled at the start of the next bucket: its whole bucket ahead, however slow the host (settled
  // now, it may have only the rest of the current bucket, a few ms, when the check runs).
  const nextBucket = settledBucket(Date.now()) + SETTLED_BUCKET_MS;
  await state.settleSpend(other, 5, 0, nextBucket);
  assert.deepEqual(await state.heldSpend({ accountId: other.accountId }), { reserved: 0, settling: 5 });
  await new Promise((r) => setTimeout(r, nextBucket + SETTLED_BUCKET_MS + 20 - Date.now()));
  assert.deepEqual(await state.heldSpend({ accountId: other.accountId }), { reserved: 0, settling: 0 });
  assert.deepEqual(await state.heldSpend({ keyId }), { reserved: 80, settling: 10 });

  // Concurrent reservations never overcommit: of 30 holds of 10 against a room of 100 (a's settled 10
  // still held on the account), 9 fit.
  const results = await Promise.all(
    Array.from({ length: 30 }, (_, i) => reserve(`many-${i}`, 10, { account: 100 })),
  );
  assert.equal(results.filter((r) => !r.refused).length, 9);
}

test("nano-USD: held amounts round up, rooms down, exactly", () => {
  assert.equal(nanos(parseDecimal("0.0000000011", "x"), "up"), 2);
  assert.equal(nanos(parseDecimal("0.0000000011", "x"), "down"), 1);
  assert.equal(nanos(parseDecimal("-0.0000000011", "x"), "down"), -2);
  assert.equal(nanos(parseDecimal("0.0005", "x"), "down"), 500_000);
  assert.equal(usdOf(33_000), "0.000033");
});

test("in memory", async () => {
  await rule(new MemorySpendState());
});

test("in SQLite", async () => {
  const store = new SqliteStore(":memory:");
  await store.migrate();
  try {
    await rule(store);
  } finally {
    await store.close();
  }
});

/** A store drops the holds of a process known dead, and of one silent past its lease. */
async function deadProcesses(store: SqliteStore | PostgresStore): Promise<void> {
  const accountId = `dead-${randomUUID().slice(0, 8)}`;
  const hold = (id: string) => ({
    id: `${accountId}-${id}`,
    accountId,
    amount: 10,
    accountRoom: 100,
    ttlMs: TTL,
  });
  await store.reserveSpend(hold("h1"));
  await store.markInterrupted([store.owner]);
  assert.deepEqual(await store.heldSpend({ accountId }), { reserved: 0, settling: 0 });
  await store.reserveSpend(hold("h2"));
  await store.renewLease();
  await store.markAbandoned(60_000);
  assert.deepEqual(await store.heldSpend({ accountId }), { reserved: 10, settling: 0 });
  await store.markAbandoned(0);
  assert.deepEqual(await store.heldSpend({ accountId }), { reserved: 0, settling: 0 });
}

test("a store drops a dead process's holds (SQLite)", async () => {
  const store = new SqliteStore(":memory:");
  await store.migrate();
  try {
    await deadProcesses(store);
  } finally {
    await store.close();
  }
});

test("in PostgreSQL", async (t) => {
  if (!(await requirePostgres(t))) return;
  const schema = uniqueSchema("switchyard_spend");
  const store = new PostgresStore(PG_URL, { schema });
  try {
    await store.migrate();
    await rule(store);
    await deadProcesses(store);
  } finally {
    await store.close();
    await dropSchema(schema);
  }
});

test("in Redis (Lua), under a prefix of its own", async (t) => {
  if (!(await requireRedis(t))) return;
  const state = new RedisSpendState(REDIS_URL, `switchyard-test-${randomUUID()}:`);
  try {
    await state.ready(2_000);
    const sent = scriptsSent(state);
    await rule(state);
    // Redis forgets its scripts (a restart, a failover): each is sent whole again once, then by SHA1.
    await flushScripts(state);
    await rule(state);
    const { eval: whole, evalsha: bySha } = sent();
    assert.ok(whole <= 2 * 4, `${whole} scripts sent whole`);
    assert.ok(bySha >= 40, `${bySha} scripts sent by SHA1`);
  } finally {
    await state.close();
  }
});
