// The PostgreSQL store while its server goes away, on a cluster of the test's own (the shared one
// must never be stopped): no crash, reads answer StoreUnavailable (a 503) at once, generation writes
// wait in memory and land once the server is back, settlement debits exactly once after recovery.
// See docs/operations.md, "When the store or Redis goes away".

import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import pg from "pg";
import { loadBuiltinCatalog } from "../../src/catalog/load.ts";
import { CreditCheck } from "../../src/gateway/credit.ts";
import { Settlement } from "../../src/gateway/settlement.ts";
import { emptyUsage } from "../../src/ir/usage.ts";
import { StoreUnavailable } from "../../src/ledger/ledger-errors.ts";
import { PostgresStore } from "../../src/ledger/postgres-store.ts";
import type { GenerationEnd, GenerationStart, Rating } from "../../src/ledger/types.ts";
import {
  type PrivatePostgres,
  requirePrivatePostgres,
  startPrivatePostgres,
} from "../support/private-postgres.ts";

const quiet = { onError: () => {}, onRecovered: () => {} };
const quick = { retryDelayMs: 20, maxRetryDelayMs: 100, ...quiet };
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

let n = 0;
const startOf = (accountId: string): GenerationStart => ({
  id: `gen-${Date.now()}-${++n}`,
  accountId,
  keyId: "key-1",
  api: "chat.completions",
  model: "local/echo-1",
  streamed: false,
  createdAt: Date.now(),
});
const endOf = (id: string, settlement?: GenerationEnd["settlement"]): GenerationEnd => ({
  id,
  status: "completed",
  usage: { ...emptyUsage(), promptTokens: 10, completionTokens: 5 },
  requestRetryTimes: 0,
  finalRetry: true,
  completedAt: Date.now(),
  settlement,
});
const ratingOf = (usage: string): Rating => ({
  usage,
  billAmount: usage,
  discountAmount: "0",
  originAmount: usage,
  priceVersion: "test",
  ratingDetails: [
    { feeItemCode: "prompt", rate: usage, originAmount: usage, discountAmount: "0", billAmount: usage },
  ],
});

async function until(what: string, check: () => Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}

describe("PostgreSQL store while the server goes away", () => {
  let db: PrivatePostgres | undefined;
  const stores: PostgresStore[] = [];
  const open = async (options: ConstructorParameters<typeof PostgresStore>[1] = {}) => {
    const store = new PostgresStore(db!.url, { ...quick, ...options });
    stores.push(store);
    await store.migrate();
    return store;
  };

  before(async (t) => {
    // `before` has no skip: a missing server fails under CI and leaves `db` unset locally.
    if (requirePrivatePostgres({ skip: (m) => t.diagnostic(`skipped: ${m}`) }))
      db = await startPrivatePostgres();
  });
  after(async () => {
    for (const store of stores) await store.close().catch(() => {});
    await db?.destroy();
  });

  test("a connection the server ends mid-transaction neither crashes the process nor loses the batch", async (t) => {
    if (!db) return t.skip("no private PostgreSQL");
    const store = await open();
    await store.accounts.upsertAccount("held", { balance: "10" });
    // Hold the account's row so that the batch's debit waits inside its transaction, then end the
    // batch's connection from the server side, as a restart does: the checked-out client emits
    // 'error' with no pool listener on it (which used to end the process).
    const locker = new pg.Client({ connectionString: db.url });
    await locker.connect();
    try {
      await locker.query("BEGIN");
      await locker.query("SELECT * FROM accounts WHERE id = 'held' FOR UPDATE");
      const g = startOf("held");
      const written = store.recordGeneration(g, endOf(g.id, { rating: ratingOf("1") }));
      const waiting =
        "SELECT pid FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND pid <> pg_backend_pid()";
      await until("the batch to wait on the row lock", async () => (await db!.query(waiting)).length > 0);
      await db.query(`SELECT pg_terminate_backend(pid) FROM (${waiting}) AS w`);
      await sleep(200);
      await locker.query("COMMIT");
      await written;
      const row = await store.getGeneration(g.id, "held");
      assert.equal(row?.status, "completed");
      assert.equal((await store.accounts.getAccount("held"))?.balance, "9");
    } finally {
      await locker.end();
    }
  });

  test("while it is down: reads are StoreUnavailable at once, writes wait in memory and land once it is back", async (t) => {
    if (!db) return t.skip("no private PostgreSQL");
    const store = await open();
    await store.accounts.upsertAccount("acct", { balance: "10" });
    const before = startOf("acct");
    await store.recordGeneration(before, endOf(before.id));
    await db.stop();
    try {
      assert.equal(await store.ping(), false);
      const began = performance.now();
      await assert.rejects(store.accounts.getAccount("acct"), StoreUnavailable);
      await assert.rejects(store.keys.findKeyByHash("x"), StoreUnavailable);
      await assert.rejects(store.getGeneration(before.id, "acct"), StoreUnavailable);
      // Stored responses and conversations are parts on the same pool: the same 503.
      await assert.rejects(store.responses.getResponse(before.id, "acct"), StoreUnavailable);
      await assert.rejects(store.responses.getChain(before.id, "acct", 10), StoreUnavailable);
      await assert.rejects(store.conversations.listItems("conv_x", "acct"), StoreUnavailable);
      await assert.rejects(store.conversations.findItem("msg_x", "acct"), StoreUnavailable);
      assert.ok(performance.now() - began < 3_000, "reads waited for the server");

      const streamed = startOf("acct");
      const whole = startOf("acct");
      const writes = [
        store.startGeneration(streamed),
        store.recordGeneration(whole, endOf(whole.id, { rating: ratingOf("2") })),
        store.finishGeneration(endOf(streamed.id, { rating: ratingOf("3") })),
      ];
      await sleep(200);
      assert.equal(store.pendingGenerationWrites, 3);
      assert.equal(store.acceptsGenerations, true);
      // A lookup of a generation still waiting to be written says 503, it does not wait.
      await assert.rejects(store.getGeneration(whole.id, "acct"), StoreUnavailable);
      await db.start();
      await Promise.all(writes);
      assert.equal(store.pendingGenerationWrites, 0);
      assert.equal((await store.getGeneration(streamed.id, "acct"))?.status, "completed");
      assert.equal((await store.getGeneration(whole.id, "acct"))?.status, "completed");
      assert.equal((await store.accounts.getAccount("acct"))?.balance, "5");
      assert.equal(await store.ping(), true);
    } finally {
      await db.start().catch(() => {}); // already running unless the test failed above
    }
  });

  test("at its bound the backlog refuses new generations with a 503 until it drains", async (t) => {
    if (!db) return t.skip("no private PostgreSQL");
    const store = await open({ maxBacklog: 2 });
    await store.accounts.upsertAccount("bound", { balance: "10" });
    const credit = new CreditCheck(store);
    const caller = { keyId: "k", accountId: "bound", kind: "payg" as const };
    await credit.admit(caller);
    await db.stop();
    try {
      const [a, b] = [startOf("bound"), startOf("bound")];
      const writes = [store.recordGeneration(a, endOf(a.id))];
      // Below the bound, admission goes on while the store is down (the credit read before stands)...
      await credit.admit(caller);
      writes.push(store.recordGeneration(b, endOf(b.id)));
      assert.equal(store.acceptsGenerations, false);
      // ...at the bound, a generation the ledger could not record is refused.
      await assert.rejects(
        credit.admit(caller),
        (err: unknown) => err instanceof StoreUnavailable && err.status === 503,
      );
      await db.start();
      await Promise.all(writes);
      assert.equal(store.acceptsGenerations, true);
      await credit.admit(caller);
    } finally {
      await db.start().catch(() => {});
    }
  });

  test("a settlement made while the store is down debits exactly once after it is back", async (t) => {
    if (!db) return t.skip("no private PostgreSQL");
    const store = await open();
    await store.accounts.upsertAccount("later", { balance: "10" });
    const g = startOf("later");
    await store.recordGeneration(g, endOf(g.id));
    const model = loadBuiltinCatalog().find((m) => m.id === "local/echo-1")!;
    const errors: string[] = [];
    const settlement = new Settlement({
      store,
      delayMs: 0,
      priceVersion: "test",
      log: { error: (_obj, msg) => errors.push(msg ?? "") },
    });
    await db.stop();
    try {
      // Its discount was never read: rating needs the store, so it waits for it.
      settlement.schedule({ id: g.id, accountId: "later", kind: "payg" }, model, endOf(g.id).usage);
      await sleep(300);
      await db.start();
      await until(
        "the generation to be settled",
        async () => (await store.getGeneration(g.id, "later"))?.settledAt !== undefined,
      );
      const row = (await store.getGeneration(g.id, "later"))!;
      const balance = (await store.accounts.getAccount("later"))!.balance;
      assert.equal(Number(balance), 10 - Number(row.rating!.usage));
      // Settling it again (a retry whose first COMMIT had landed) changes nothing.
      assert.deepEqual(
        await store.settleGenerations([{ id: g.id, rating: row.rating!, settledAt: Date.now() }]),
        [undefined],
      );
      assert.equal((await store.accounts.getAccount("later"))!.balance, balance);
      assert.deepEqual(errors, []);
    } finally {
      settlement.stop();
      await db.start().catch(() => {});
    }
  });

  test("close while the server stays down gives up after its grace instead of hanging", async (t) => {
    if (!db) return t.skip("no private PostgreSQL");
    const reported: Error[] = [];
    const store = await open({ closeGraceMs: 300, onError: (e) => reported.push(e) });
    await db.stop();
    try {
      const g = startOf("nobody");
      const written = store.recordGeneration(g, endOf(g.id));
      const began = performance.now();
      await store.close();
      assert.ok(performance.now() - began < 5_000);
      await assert.rejects(written, new RegExp(`lost: ${g.id}`));
      assert.ok(reported.some((e) => e.message.includes(g.id)));
    } finally {
      await db.start();
    }
  });
});
