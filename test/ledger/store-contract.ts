// One behaviour, two databases: the SQLite and PostgreSQL stores both run this suite.

import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { describe, test } from "node:test";
import { addDecimals } from "../../src/billing/money.ts";
import type { Usage } from "../../src/ir/usage.ts";
import type { GenerationEnd, GenerationStart, Rating, Store, StoreOptions } from "../../src/ledger/types.ts";
import type { WriteQueueOptions } from "../../src/ledger/write-queue.ts";
import { runAccountsContract } from "./accounts-contract.ts";
import { runKeysContract } from "./keys-contract.ts";

export type ContractStore = Store & { readonly batchesWritten: number };

/**
 * `makeStore` returns a migrated store; every call must reach the same data (same file, same
 * schema), so that a write closed by one store is read back by the next.
 */
export type MakeStore = (options?: ContractStoreOptions) => Promise<ContractStore>;

/** `batchTurnMs` is the embedded store's alone (its batches' turns: sqlite-store.test.ts); others ignore it. */
type ContractStoreOptions = WriteQueueOptions & StoreOptions & { batchTurnMs?: number };

const usage: Usage = {
  promptTokens: 1200,
  cacheReadTokens: 1000,
  cacheWrite5mTokens: 0,
  cacheWrite1hTokens: 0,
  completionTokens: 300,
  reasoningTokens: 120,
  webSearchRequests: 0,
};

const rating: Rating = {
  usage: "0.000123",
  billAmount: "0.000123",
  discountAmount: "0",
  originAmount: "0.000123",
  priceVersion: "catalog-2025-01",
  ratingDetails: [
    {
      feeItemCode: "prompt",
      rate: "0.0000001",
      originAmount: "0.00002",
      discountAmount: "0",
      billAmount: "0.00002",
    },
    {
      feeItemCode: "completion",
      rate: "0.00000034333",
      originAmount: "0.000103",
      discountAmount: "0",
      billAmount: "0.000103",
    },
  ],
};

export function runStoreContract(name: string, makeStore: MakeStore): void {
  describe(`${name} store contract`, () => {
    // Rows from every test share one database: unique ids keep the tests apart.
    const run = randomUUID().slice(0, 8);
    let counter = 0;
    const unique = (kind: string) => `${kind}-${run}-${++counter}`;

    const startOf = (accountId: string, overrides: Partial<GenerationStart> = {}): GenerationStart => ({
      id: unique("gen"),
      accountId,
      keyId: "key-1",
      api: "chat.completions",
      model: "openai/gpt-4.1",
      streamed: true,
      createdAt: 1_700_000_000_000 + counter,
      ...overrides,
    });

    const endOf = (id: string, overrides: Partial<GenerationEnd> = {}): GenerationEnd => ({
      id,
      status: "completed",
      provider: "openai",
      usage,
      finishReason: "stop",
      latencyMs: 250,
      generationTimeMs: 1800,
      requestRetryTimes: 1,
      finalRetry: true,
      completedAt: 1_700_000_002_000,
      ...overrides,
    });

    /** The row a store reads back for a start and an end made by endOf (optional fields absent). */
    const finishedRowOf = (start: GenerationStart, end: GenerationEnd) => ({
      ...start,
      status: end.status,
      provider: end.provider,
      usage: end.usage,
      finishReason: end.finishReason,
      latencyMs: end.latencyMs,
      generationTimeMs: end.generationTimeMs,
      requestRetryTimes: end.requestRetryTimes,
      finalRetry: end.finalRetry,
      completedAt: end.completedAt,
      ...(end.settlement ? { rating: end.settlement.rating, settledAt: end.completedAt } : {}),
    });

    async function withStore<T>(
      work: (store: ContractStore) => Promise<T>,
      options?: ContractStoreOptions,
    ): Promise<T> {
      const store = await makeStore(options);
      try {
        return await work(store);
      } finally {
        await store.close();
      }
    }

    /** A failed generation, recorded whole for a fresh account, as the store reads it back. */
    async function recordFailed(store: ContractStore, errorMessage: string, requestRetryTimes = 0) {
      const account = unique("acct");
      const start = startOf(account);
      await store.recordGeneration(start, {
        id: start.id,
        status: "failed",
        usage: { ...usage, completionTokens: 0, reasoningTokens: 0 },
        requestRetryTimes,
        finalRetry: true,
        errorMessage,
        completedAt: 1_700_000_005_000,
      });
      return store.getGeneration(start.id, account);
    }

    test("ping answers true on a live store", () =>
      withStore(async (store) => {
        assert.equal(await store.ping(), true);
      }));

    test("migrate can run again on existing tables", () =>
      withStore(async (store) => {
        await store.migrate();
        assert.equal(await store.ping(), true);
      }));

    describe("rollups, listings and retention", () => {
      const costOf = (amount: string): Rating => ({
        ...rating,
        usage: amount,
        billAmount: amount,
        originAmount: amount,
        ratingDetails: [{ ...rating.ratingDetails[0], originAmount: amount, billAmount: amount }],
      });
      const day = (ms: number) => Math.floor(ms / 86_400_000);

      test("in a batch of many generations written whole, those whose id is taken fail alone; the rest are written and counted", () =>
        withStore(
          async (store) => {
            const account = unique("acct");
            await store.accounts.upsertAccount(account, { balance: "10" });
            const taken = [startOf(account), startOf(account)];
            for (const g of taken) await store.startGeneration(g);
            const fresh = Array.from({ length: 40 }, () => startOf(account));
            // The taken ids in the middle of the batch, among rows the embedded store inserts together.
            const batch = [
              ...fresh.slice(0, 5),
              taken[0]!,
              ...fresh.slice(5, 30),
              taken[1]!,
              ...fresh.slice(30),
            ];
            const settled = { settlement: { rating: costOf("0.01") } };
            const writes = batch.map((g) => store.recordGeneration(g, endOf(g.id, settled)));
            const results = await Promise.allSettled(writes);
            assert.deepEqual(
              results.flatMap((r, i) => (r.status === "rejected" ? [[batch[i]!.id, String(r.reason)]] : [])),
              taken.map((g) => [g.id, `Error: generation ${g.id} was already started`]),
            );
            for (const g of taken)
              assert.equal((await store.getGeneration(g.id, account))?.status, "pending");
            for (const g of fresh)
              assert.deepEqual(
                await store.getGeneration(g.id, account),
                finishedRowOf(g, endOf(g.id, settled)),
              );
            const filter = {
              fromDay: day(fresh[0]!.createdAt),
              toDay: day(fresh[39]!.createdAt),
              accountId: account,
            };
            const [sums] = await store.queries.usage(filter, "account");
            assert.deepEqual([sums?.counters[0], sums?.cost], [40, "0.4"]);
            assert.equal((await store.accounts.getAccount(account))?.balance, "9.6");
          },
          { delayMs: 50 },
        ));

      test("finishes and settlements add up per day, model and key; costs exactly, once", () =>
        withStore(async (store) => {
          const account = unique("acct");
          await store.accounts.upsertAccount(account, { balance: "10" });
          // Settled with its finish, in one write.
          const a = startOf(account, { model: "m-a" });
          await store.recordGeneration(a, endOf(a.id, { settlement: { rating: costOf("0.1") } }));
          // Started, finished, then settled later (twice: the second changes nothing).
          const b = startOf(account, { model: "m-a", keyId: "key-2" });
          await store.startGeneration(b);
          await store.finishGeneration(endOf(b.id, { latencyMs: 4000, generationTimeMs: 1000 }));
          await store.settleGenerations([{ id: b.id, rating: costOf("0.2"), settledAt: Date.now() }]);
          await store.settleGenerations([{ id: b.id, rating: costOf("0.2"), settledAt: Date.now() }]);
          // A failure on another model.
          const c = startOf(account, { model: "m-b" });
          await store.recordGeneration(
            c,
            endOf(c.id, { status: "failed", usage: { ...usage, completionTokens: 0 } }),
          );
          const filter = { fromDay: day(a.createdAt), toDay: day(c.createdAt), accountId: account };

          const byModel = await store.queries.usage(filter, "model");
          assert.deepEqual(
            byModel.map((g) => [g.group, g.counters[0], g.counters[1], g.cost]),
            [
              ["m-a", 2, 0, "0.3"],
              ["m-b", 1, 1, "0"],
            ],
          );
          const [ma] = byModel;
          assert.equal(ma.counters[2], 2 * usage.promptTokens);
          assert.equal(ma.counters[3], 2 * usage.completionTokens);
          assert.equal(ma.counters[4], 2 * usage.cacheReadTokens);
          assert.equal(ma.counters[6], 2 * usage.reasoningTokens);
          const byKey = await store.queries.usage(filter, "key");
          assert.deepEqual(
            byKey.map((g) => [g.group, g.counters[0], g.cost]),
            [
              ["key-1", 2, "0.1"],
              ["key-2", 1, "0.2"],
            ],
          );
          // By key for one model: the finest rollup grain; the three grains agree.
          const byKeyOfModel = await store.queries.usage({ ...filter, model: "m-a" }, "key");
          assert.deepEqual(
            byKeyOfModel.map((g) => [g.group, g.counters[0], g.cost]),
            [
              ["key-1", 1, "0.1"],
              ["key-2", 1, "0.2"],
            ],
          );
          const [byAccount] = await store.queries.usage(filter, "account");
          const [byAccountOfKeys] = await store.queries.usage({ ...filter, keyId: "key-1" }, "account");
          assert.deepEqual([byAccount.counters[0], byAccount.cost], [3, "0.3"]);
          assert.deepEqual([byAccountOfKeys.counters[0], byAccountOfKeys.cost], [2, "0.1"]);
          assert.equal((await store.accounts.getAccount(account))?.balance, "9.7");
          // Another account's rows are not in this account's sums.
          assert.deepEqual(await store.queries.usage({ ...filter, accountId: unique("acct") }, "model"), []);
        }));

      test("finishes settled in one batch debit each account their exact sum and add up in its rollups", () =>
        withStore(async (store) => {
          const [one, two] = [unique("acct"), unique("acct")];
          await store.accounts.upsertAccount(one, { balance: "1" });
          await store.accounts.upsertAccount(two, { balance: "0" });
          // Not awaited one by one: the writes share a batch (amounts a binary double would not add exactly).
          const amounts = ["0.1", "0.2", "0.000000000001", "1e-12", "0.7"];
          const starts = amounts.map((_, n) => startOf(n % 2 === 0 ? one : two, { model: "m-batch" }));
          await Promise.all(
            starts.map((g, n) =>
              store.recordGeneration(g, endOf(g.id, { settlement: { rating: costOf(amounts[n]) } })),
            ),
          );
          assert.equal((await store.accounts.getAccount(one))?.balance, "0.199999999999");
          assert.equal((await store.accounts.getAccount(two))?.balance, "-0.200000000001");
          const filter = { fromDay: day(starts[0].createdAt), toDay: day(starts[4].createdAt) };
          const costs = async (accountId: string) =>
            (await store.queries.usage({ ...filter, accountId }, "model")).map((g) => [
              g.group,
              g.counters[0],
              g.cost,
            ]);
          assert.deepEqual(await costs(one), [["m-batch", 3, "0.800000000001"]]);
          assert.deepEqual(await costs(two), [["m-batch", 2, "0.200000000001"]]);
        }));

      test("after a cross-model fallback, usage counts the model that answered", () =>
        withStore(async (store) => {
          const account = unique("acct");
          await store.accounts.upsertAccount(account, { balance: "1" });
          const whole = startOf(account, { model: "m-asked" });
          await store.recordGeneration(
            whole,
            endOf(whole.id, { model: "m-answered", settlement: { rating: costOf("0.01") } }),
          );
          const later = startOf(account, { model: "m-asked" });
          await store.startGeneration(later);
          await store.flush();
          await store.finishGeneration(endOf(later.id, { model: "m-answered" }));
          await store.settleGenerations([{ id: later.id, rating: costOf("0.02"), settledAt: Date.now() }]);
          const filter = { fromDay: day(whole.createdAt), toDay: day(later.createdAt), accountId: account };
          assert.deepEqual(
            (await store.queries.usage(filter, "model")).map((g) => [g.group, g.counters[0], g.cost]),
            [["m-answered", 2, "0.03"]],
          );
        }));

      test("listings filter by account, model and status, newest first, paged by id", () =>
        withStore(async (store) => {
          const account = unique("acct");
          await store.accounts.upsertAccount(account);
          const made: GenerationStart[] = [];
          for (let i = 0; i < 5; i++) {
            const g = startOf(account, { id: `gen-${run}-list-${i}`, model: i % 2 ? "m-odd" : "m-even" });
            made.push(g);
            await store.recordGeneration(g, endOf(g.id, i === 4 ? { status: "failed" } : {}));
          }
          const ids = made.map((g) => g.id).reverse();
          const page1 = await store.queries.listGenerations({ accountId: account, limit: 2 });
          assert.deepEqual(
            page1.map((r) => r.id),
            ids.slice(0, 2),
          );
          const page2 = await store.queries.listGenerations({
            accountId: account,
            limit: 2,
            idBefore: page1[1].id,
          });
          assert.deepEqual(
            page2.map((r) => r.id),
            ids.slice(2, 4),
          );
          const odd = await store.queries.listGenerations({ accountId: account, model: "m-odd", limit: 10 });
          assert.deepEqual(
            odd.map((r) => r.id),
            [made[3].id, made[1].id],
          );
          const failed = await store.queries.listGenerations({
            accountId: account,
            status: "failed",
            limit: 10,
          });
          assert.deepEqual(
            failed.map((r) => r.id),
            [made[4].id],
          );
          const range = await store.queries.listGenerations({
            accountId: account,
            idAtLeast: made[1].id,
            idBefore: made[3].id,
            limit: 10,
          });
          assert.deepEqual(
            range.map((r) => r.id),
            [made[2].id, made[1].id],
          );
          assert.ok((await store.accounts.listAccounts()).some((a) => a.id === account));
        }));

      test("retention deletes done rows below the bound in batches and keeps the rollups", () =>
        withStore(async (store) => {
          const account = unique("acct");
          await store.accounts.upsertAccount(account, { balance: "1" });
          // "!" sorts before every other id of this run: the bound below reaches only these rows.
          const id = (n: number) => `gen-!${run}-ret-${n}`;
          const done = [0, 1, 2].map((n) => startOf(account, { id: id(n) }));
          for (const g of done)
            await store.recordGeneration(g, endOf(g.id, { settlement: { rating: costOf("0.01") } }));
          const pending = startOf(account, { id: id(3) });
          await store.startGeneration(pending);
          const unsettled = startOf(account, { id: id(4) });
          await store.recordGeneration(unsettled, endOf(unsettled.id));
          const newer = startOf(account, { id: id(9) });
          await store.recordGeneration(newer, endOf(newer.id, { settlement: { rating: costOf("0.01") } }));
          const filter = { fromDay: day(done[0].createdAt), toDay: day(newer.createdAt), accountId: account };
          const before = await store.queries.usage(filter, "account");

          assert.equal(await store.deleteGenerations(id(5), 2), 2);
          assert.equal(await store.deleteGenerations(id(5), 2), 1);
          assert.equal(await store.deleteGenerations(id(5), 2), 0);
          for (const g of done) assert.equal(await store.getGeneration(g.id, account), undefined);
          assert.equal((await store.getGeneration(pending.id, account))?.status, "pending");
          assert.equal((await store.getGeneration(unsettled.id, account))?.status, "completed");
          assert.equal((await store.getGeneration(newer.id, account))?.status, "completed");
          assert.deepEqual(await store.queries.usage(filter, "account"), before);
          assert.equal(before[0].counters[0], 5);
          assert.equal(before[0].cost, "0.04");
        }));
    });

    describe("kept thinking", () => {
      test("what is kept comes back by account and tool-call id until it expires, the last kept winning", () =>
        withStore(async (store) => {
          const account = unique("acct");
          const other = unique("acct");
          const now = Date.now();
          const blocks = (text: string) =>
            JSON.stringify([{ type: "thinking", text, signature: "sig\u0000" }]);
          await store.keepThinking(account, [{ toolCallId: "toolu_a", blocks: blocks("a") }], now + 60_000);
          await store.keepThinking(
            account,
            [
              { toolCallId: "toolu_b", blocks: blocks("b") },
              { toolCallId: "toolu_a", blocks: blocks("a again") },
            ],
            now + 60_000,
          );
          await store.keepThinking(other, [{ toolCallId: "toolu_c", blocks: blocks("c") }], now + 60_000);
          const found = await store.keptThinking(account, ["toolu_a", "toolu_b", "toolu_c", "toolu_x"], now);
          assert.deepEqual(
            [...found.entries()].sort(),
            [
              ["toolu_a", blocks("a again")],
              ["toolu_b", blocks("b")],
            ],
            "another account's entry is not this one's",
          );
          assert.equal((await store.keptThinking(account, ["toolu_a"], now + 60_000)).size, 0, "expired");
          assert.equal((await store.keptThinking(account, [], now)).size, 0);
        }));
    });

    // The parts' own contracts: accounts-contract.ts, keys-contract.ts.
    runAccountsContract((work) => withStore((store) => work(store.accounts)), unique);
    runKeysContract((work) => withStore((store) => work(store.keys)), unique);

    describe("keys", () => {
      test("a key's spend (what its budget reads): its settled costs by day of creation, from the rollups", () =>
        withStore(async (store) => {
          const account = unique("acct");
          const keyId = unique("key");
          await store.accounts.upsertAccount(account, { balance: "1" });
          const DAY = 86_400_000;
          const at = (day: number, key = keyId) =>
            startOf(account, { keyId: key, createdAt: day * DAY + 5_000 });
          // The amount of a rating is its items' bill (what a rating column keeps).
          const ratingOf = (bill: string, discount = "0"): Rating => ({
            ...rating,
            usage: bill,
            billAmount: bill,
            ratingDetails: [
              {
                feeItemCode: "prompt",
                rate: "1",
                originAmount: addDecimals(bill, discount),
                discountAmount: discount,
                billAmount: bill,
              },
            ],
          });
          const old = at(20_000);
          const recent = [at(20_002), at(20_003)];
          const otherKey = at(20_003, unique("key"));
          const unsettled = at(20_003);
          for (const g of [old, ...recent, otherKey, unsettled]) await store.recordGeneration(g, endOf(g.id));
          await store.settleGenerations([
            { id: old.id, rating: ratingOf("0.2", "0.05"), settledAt: 1 },
            { id: recent[0].id, rating: ratingOf("0.1"), settledAt: 1 },
            { id: recent[1].id, rating: ratingOf("0.2", "0.05"), settledAt: 1 },
            { id: otherKey.id, rating: ratingOf("0.2"), settledAt: 1 },
          ]);
          const spend = async (fromDay: number) =>
            (await store.queries.usage({ fromDay, toDay: 20_010, keyId }, "key")).find(
              (g) => g.group === keyId,
            )?.cost;
          assert.equal(await spend(20_002), "0.3");
          assert.equal(await spend(0), "0.5");
          assert.deepEqual(
            await store.queries.usage({ fromDay: 0, toDay: 20_010, keyId: unique("key") }, "key"),
            [],
          );
        }));
    });

    describe("generations", () => {
      test("start → pending, finish → completed with usage, timings and retries, settle → rated and debited", () =>
        withStore(async (store) => {
          const account = unique("acct");
          await store.accounts.upsertAccount(account, { balance: "1" });
          const start = startOf(account, { api: "messages", streamed: false });
          await store.startGeneration(start);

          assert.deepEqual(await store.getGeneration(start.id, account), {
            ...start,
            status: "pending",
            requestRetryTimes: 0,
            finalRetry: false,
          });

          const end = endOf(start.id);
          await store.finishGeneration(end);
          const finished = await store.getGeneration(start.id, account);
          assert.deepEqual(finished, finishedRowOf(start, end));

          await store.settleGeneration(start.id, rating, 1_700_000_003_000);
          const settled = await store.getGeneration(start.id, account);
          assert.deepEqual(settled?.rating, rating);
          assert.equal(settled?.settledAt, 1_700_000_003_000);
          assert.equal((await store.accounts.getAccount(account))?.balance, "0.999877");
        }));

      test("a finish naming a fallback model replaces the model asked for: started then finished, and written whole", () =>
        withStore(async (store) => {
          const account = unique("acct");
          const started = startOf(account);
          await store.startGeneration(started);
          await store.finishGeneration(endOf(started.id, { model: "openai/gpt-4.1-mini" }));
          assert.equal((await store.getGeneration(started.id, account))?.model, "openai/gpt-4.1-mini");
          const whole = startOf(account);
          await store.recordGeneration(whole, endOf(whole.id, { model: "openai/gpt-4.1-mini" }));
          assert.equal((await store.getGeneration(whole.id, account))?.model, "openai/gpt-4.1-mini");
          const unchanged = startOf(account);
          await store.recordGeneration(unchanged, endOf(unchanged.id));
          assert.equal((await store.getGeneration(unchanged.id, account))?.model, "openai/gpt-4.1");
        }));

      test("a session id is kept with the generation: started then finished, and written whole", () =>
        withStore(async (store) => {
          const account = unique("acct");
          const started = startOf(account, { sessionId: "3f0c-session" });
          await store.startGeneration(started);
          assert.equal((await store.getGeneration(started.id, account))?.sessionId, "3f0c-session");
          await store.finishGeneration(endOf(started.id));
          const finished = await store.getGeneration(started.id, account);
          assert.equal(finished?.status, "completed");
          assert.equal(finished?.sessionId, "3f0c-session");

          const whole = startOf(account, { sessionId: "9e1d-session" });
          await store.recordGeneration(whole, endOf(whole.id));
          assert.equal((await store.getGeneration(whole.id, account))?.sessionId, "9e1d-session");

          const none = startOf(account);
          await store.recordGeneration(none, endOf(none.id));
          assert.ok(!("sessionId" in ((await store.getGeneration(none.id, account)) ?? {})));
        }));

      test("settling twice debits once", () =>
        withStore(async (store) => {
          const account = unique("acct");
          await store.accounts.upsertAccount(account, { balance: "0" });
          const start = startOf(account);
          void store.startGeneration(start);
          void store.finishGeneration(endOf(start.id));
          await store.settleGeneration(start.id, rating, 1);
          await store.settleGeneration(start.id, rating, 2);
          assert.equal((await store.accounts.getAccount(account))?.balance, "-0.000123");
          assert.equal((await store.getGeneration(start.id, account))?.settledAt, 1);
        }));

      test("a batch of settlements: one debit per account for the sum, errors per item, no double debit", () =>
        withStore(async (store) => {
          const account = unique("acct");
          await store.accounts.upsertAccount(account, { balance: "1" });
          const [a, b, pending] = [startOf(account), startOf(account), startOf(account)];
          for (const g of [a, b, pending]) void store.startGeneration(g);
          for (const g of [a, b]) void store.finishGeneration(endOf(g.id));
          const outcomes = await store.settleGenerations([
            { id: a.id, rating, settledAt: 1 },
            { id: b.id, rating, settledAt: 1, debit: "0.5" },
            { id: unique("gen"), rating, settledAt: 1 },
            { id: pending.id, rating, settledAt: 1 },
            { id: a.id, rating, settledAt: 2 },
          ]);
          assert.deepEqual(
            outcomes.map((e) => (e ? e.message.match(/does not exist|pending/)?.[0] : undefined)),
            [undefined, undefined, "does not exist", "pending", undefined],
          );
          // 1 − 0.000123 (a's rating) − 0.5 (b's explicit debit); a's repeat is not debited again.
          assert.equal((await store.accounts.getAccount(account))?.balance, "0.499877");
          assert.equal((await store.getGeneration(a.id, account))?.settledAt, 1);
        }));

      test("a finish that carries its settlement is rated and debited in the finish's own batch", () =>
        withStore(async (store) => {
          const account = unique("acct");
          await store.accounts.upsertAccount(account, { balance: "1" });
          // Start and finish in one batch (written as one row), and in separate batches.
          const together = startOf(account);
          void store.startGeneration(together);
          void store.finishGeneration(endOf(together.id, { settlement: { rating } }));
          const apart = startOf(account);
          await store.startGeneration(apart);
          const sub = startOf(account);
          await store.startGeneration(sub);
          void store.finishGeneration(endOf(apart.id, { settlement: { rating } }));
          await store.finishGeneration(endOf(sub.id, { settlement: { rating, debit: "0" } }));
          for (const g of [together, apart, sub]) {
            const row = await store.getGeneration(g.id, account);
            assert.deepEqual(row?.rating, rating);
            assert.equal(row?.settledAt, 1_700_000_002_000);
          }
          // Two ratings of 0.000123 debited; the subscription one (debit 0) is not.
          assert.equal((await store.accounts.getAccount(account))?.balance, "0.999754");
          const unsettled = new Set((await store.listUnsettled(100_000)).map((g) => g.id));
          assert.equal(unsettled.has(together.id) || unsettled.has(apart.id) || unsettled.has(sub.id), false);
          // Settling again later changes nothing.
          await store.settleGeneration(apart.id, rating, 5);
          assert.equal((await store.accounts.getAccount(account))?.balance, "0.999754");
        }));

      test("a generation recorded whole is one finished row, settled and debited with it; an id is recorded once", () =>
        withStore(async (store) => {
          const account = unique("acct");
          await store.accounts.upsertAccount(account, { balance: "1" });
          const whole = startOf(account, { streamed: true });
          const wholeEnd = endOf(whole.id, { settlement: { rating } });
          const unsettled = startOf(account);
          const started = startOf(account);
          await store.startGeneration(started);
          const outcomes = await Promise.allSettled([
            store.recordGeneration(whole, wholeEnd),
            store.recordGeneration(unsettled, endOf(unsettled.id)),
            store.recordGeneration(whole, endOf(whole.id)),
            store.recordGeneration(started, endOf(started.id)),
          ]);
          assert.deepEqual(
            outcomes.map((o) => o.status),
            ["fulfilled", "fulfilled", "rejected", "rejected"],
          );
          assert.deepEqual(await store.getGeneration(whole.id, account), finishedRowOf(whole, wholeEnd));
          assert.equal((await store.accounts.getAccount(account))?.balance, "0.999877");
          assert.equal((await store.getGeneration(unsettled.id, account))?.status, "completed");
          assert.equal((await store.getGeneration(started.id, account))?.status, "pending");
          const leftToSettle = new Set((await store.listUnsettled(100_000)).map((g) => g.id));
          assert.equal(leftToSettle.has(unsettled.id), true);
          assert.equal(leftToSettle.has(whole.id), false);
        }));

      test("a settlement with an explicit debit of 0 rates without touching the balance", () =>
        withStore(async (store) => {
          const account = unique("acct");
          await store.accounts.upsertAccount(account, { balance: "5" });
          const start = startOf(account);
          void store.startGeneration(start);
          void store.finishGeneration(endOf(start.id));
          await store.settleGeneration(start.id, rating, 1, "0");
          assert.equal((await store.accounts.getAccount(account))?.balance, "5");
          assert.deepEqual((await store.getGeneration(start.id, account))?.rating, rating);
        }));

      test("settlement may take the balance below zero, and refuses unknown or pending generations", () =>
        withStore(async (store) => {
          const account = unique("acct");
          await store.accounts.upsertAccount(account, { balance: "0.0001" });
          const start = startOf(account);
          await store.startGeneration(start);
          await assert.rejects(store.settleGeneration(start.id, rating, 1), /pending/);
          await store.finishGeneration(endOf(start.id));
          await store.settleGeneration(start.id, rating, 1);
          assert.equal((await store.accounts.getAccount(account))?.balance, "-0.000023");
          await assert.rejects(store.settleGeneration(unique("gen"), rating, 1), /does not exist/);
          await assert.rejects(
            store.settleGeneration(start.id, { ...rating, usage: "NaN" }, 1),
            /rating\.usage/,
          );
        }));

      test("a failed generation keeps its error message and empty optional fields stay absent", () =>
        withStore(async (store) => {
          const account = unique("acct");
          const start = startOf(account);
          await store.startGeneration(start);
          await store.finishGeneration({
            id: start.id,
            status: "failed",
            usage: { ...usage, completionTokens: 0, reasoningTokens: 0 },
            requestRetryTimes: 3,
            finalRetry: true,
            errorMessage: "upstream 503: overloaded\u0000",
            completedAt: 1_700_000_005_000,
          });
          const row = await store.getGeneration(start.id, account);
          assert.equal(row?.status, "failed");
          assert.equal(row?.errorMessage, "upstream 503: overloaded");
          assert.equal(row?.requestRetryTimes, 3);
          assert.ok(row && !("provider" in row) && !("finishReason" in row) && !("latencyMs" in row));
        }));

      test("a failed generation recorded whole keeps an awkward error message; absent fields stay absent", () =>
        withStore(async (store) => {
          const row = await recordFailed(store, 'upstream said "no" \\ twice\n\ttabbed é ✓ \u2028\u0000', 2);
          assert.equal(row?.status, "failed");
          assert.equal(row?.errorMessage, 'upstream said "no" \\ twice\n\ttabbed é ✓ \u2028');
          assert.equal(row?.requestRetryTimes, 2);
          assert.deepEqual(row?.usage, { ...usage, completionTokens: 0, reasoningTokens: 0 });
          assert.ok(row && !("provider" in row) && !("finishReason" in row) && !("rating" in row));
        }));

      test("an error message cut at its limit through a surrogate pair, or holding half of one, is stored", () =>
        withStore(async (store) => {
          // PostgreSQL's JSON refuses half a pair (the batch travels as JSON); it reads back as U+FFFD.
          const row = await recordFailed(store, `\ud800 lone ${"a".repeat(1992)}\u{1F600}tail`);
          assert.equal(row?.errorMessage, `\ufffd lone ${"a".repeat(1992)}\ufffd`);
        }));

      test("another account's generation is undefined, like an unknown id", () =>
        withStore(async (store) => {
          const owner = unique("acct");
          const start = startOf(owner);
          await store.startGeneration(start);
          assert.equal(await store.getGeneration(start.id, unique("acct")), undefined);
          assert.equal(await store.getGeneration(unique("gen"), owner), undefined);
          assert.equal((await store.getGeneration(start.id, owner))?.id, start.id);
          // The operator's CLI reads any account's generation; an unknown id is still undefined.
          assert.equal((await store.getGenerationAnyAccount(start.id))?.accountId, owner);
          assert.equal(await store.getGenerationAnyAccount(unique("gen")), undefined);
        }));

      test("a read sees writes still queued, and a finish queued with its start applies after it", () =>
        withStore(async (store) => {
          const account = unique("acct");
          const start = startOf(account);
          void store.startGeneration(start);
          assert.equal((await store.getGeneration(start.id, account))?.status, "pending");

          const both = startOf(account);
          void store.startGeneration(both);
          void store.finishGeneration(endOf(both.id));
          assert.equal((await store.getGeneration(both.id, account))?.status, "completed");
        }));

      test("a write that cannot apply fails alone, and is reported, without sinking its batch", async () => {
        const reported: Error[] = [];
        await withStore(
          async (store) => {
            const account = unique("acct");
            const good = startOf(account);
            const unknownFinish = store.finishGeneration(endOf(unique("gen")));
            const goodStart = store.startGeneration(good);
            const duplicate = store.startGeneration(good);
            const goodFinish = store.finishGeneration(endOf(good.id));
            const secondFinish = store.finishGeneration(endOf(good.id));
            await assert.rejects(unknownFinish, /unknown or already finished/);
            await goodStart;
            await assert.rejects(duplicate, /already started/);
            await goodFinish;
            await assert.rejects(secondFinish, /unknown or already finished/);
            assert.equal((await store.getGeneration(good.id, account))?.status, "completed");
          },
          { onError: (error) => reported.push(error) },
        );
        assert.equal(reported.length, 3);
      });

      test("markInterrupted closes only the named owners' pending generations; a late finish still completes one", () =>
        withStore(
          async (dead) => {
            const live = await makeStore({ owner: unique("owner-live") });
            try {
              assert.notEqual(dead.owner, live.owner);
              const account = unique("acct");
              const pending = [startOf(account), startOf(account)];
              const done = startOf(account);
              const others = [startOf(account), startOf(account)];
              for (const g of [...pending, done]) void dead.startGeneration(g);
              void dead.finishGeneration(endOf(done.id));
              for (const g of others) void live.startGeneration(g);
              await Promise.all([dead.flush(), live.flush()]); // what a process that died had written

              const before = Date.now();
              assert.equal(await live.markInterrupted([dead.owner]), 2);
              for (const g of pending) {
                const row = await live.getGeneration(g.id, account);
                assert.equal(row?.status, "interrupted");
                assert.ok(row?.completedAt !== undefined && row.completedAt >= before);
              }
              assert.equal((await live.getGeneration(done.id, account))?.status, "completed");
              for (const g of others)
                assert.equal((await live.getGeneration(g.id, account))?.status, "pending");
              assert.equal(await live.markInterrupted([dead.owner]), 0);
              assert.equal(await live.markInterrupted([]), 0);

              await dead.finishGeneration(endOf(pending[0]!.id));
              assert.equal((await dead.getGeneration(pending[0]!.id, account))?.status, "completed");
              for (const g of others) await live.finishGeneration(endOf(g.id));
            } finally {
              await live.close();
            }
          },
          { owner: unique("owner-dead") },
        ));

      test("markAbandoned spares the generations of owners whose lease is fresh", async () => {
        const fresh = await makeStore({ owner: unique("owner-fresh") });
        const silent = await makeStore({ owner: unique("owner-silent") });
        const never = await makeStore({ owner: unique("owner-never") });
        try {
          const account = unique("acct");
          const [a, b, c] = [startOf(account), startOf(account), startOf(account)];
          await fresh.renewLease();
          await silent.renewLease();
          await Promise.all([fresh.startGeneration(a), silent.startGeneration(b), never.startGeneration(c)]);
          await new Promise((resolve) => setTimeout(resolve, 120));
          await fresh.renewLease();

          // Other tests' rows may be pending too: the count is at least this test's two.
          assert.ok((await fresh.markAbandoned(60)) >= 2);
          const status = async (g: GenerationStart) => (await fresh.getGeneration(g.id, account))?.status;
          assert.equal(await status(a), "pending", "a fresh lease keeps its owner's generations");
          assert.equal(await status(b), "interrupted", "a lease silent too long does not");
          assert.equal(await status(c), "interrupted", "nor does an owner that never took one");

          // A long enough silence spares everyone; zero silence spares no one.
          assert.equal(await fresh.markAbandoned(3_600_000), 0);
          assert.ok((await fresh.markAbandoned(0)) >= 1);
          assert.equal(await status(a), "interrupted");
          await fresh.finishGeneration(endOf(a.id));
          assert.equal(await status(a), "completed");
        } finally {
          await Promise.all([fresh.close(), silent.close(), never.close()]);
        }
      });

      test("a silent owner's lease is dropped, and renewing takes a new one", async () => {
        const store = await makeStore({ owner: unique("owner-back") });
        const other = await makeStore();
        try {
          const account = unique("acct");
          await store.renewLease();
          await new Promise((resolve) => setTimeout(resolve, 60));
          await other.markAbandoned(30); // drops the silent lease
          await store.renewLease();
          const g = startOf(account);
          await store.startGeneration(g);
          assert.equal(await other.markAbandoned(30_000), 0);
          assert.equal((await other.getGeneration(g.id, account))?.status, "pending");
          await store.finishGeneration(endOf(g.id));
        } finally {
          await Promise.all([store.close(), other.close()]);
        }
      });

      test("listUnsettled gives finished, unsettled generations, oldest first", () =>
        withStore(async (store) => {
          const account = unique("acct");
          await store.accounts.upsertAccount(account);
          const pending = startOf(account);
          const older = startOf(account, { createdAt: 1_600_000_000_000 });
          const newer = startOf(account, { createdAt: 1_600_000_000_001 });
          const settled = startOf(account, { createdAt: 1_600_000_000_002 });
          const cancelled = startOf(account, { createdAt: 1_600_000_000_003 });
          for (const g of [pending, newer, older, settled, cancelled]) void store.startGeneration(g);
          for (const g of [newer, older, settled]) void store.finishGeneration(endOf(g.id));
          void store.finishGeneration(endOf(cancelled.id, { status: "cancelled" }));
          await store.settleGeneration(settled.id, rating, 1);

          const mine = new Set([pending.id, older.id, newer.id, settled.id, cancelled.id]);
          const listed = (await store.listUnsettled(100_000)).filter((g) => mine.has(g.id));
          assert.deepEqual(
            listed.map((g) => g.id),
            [older.id, newer.id, cancelled.id],
          );
          assert.deepEqual(listed[0]?.usage, usage);
          assert.equal((await store.listUnsettled(1)).length, 1);
        }));

      test("1000 concurrent starts and finishes are all readable after a flush, in few transactions", () =>
        withStore(
          async (store) => {
            const account = unique("acct");
            const starts = Array.from({ length: 1000 }, () => startOf(account));
            const batchesBefore = store.batchesWritten;
            const writes: Promise<void>[] = [];
            for (const g of starts) {
              writes.push(store.startGeneration(g));
              writes.push(store.finishGeneration(endOf(g.id, { latencyMs: 12.6 })));
            }
            await store.flush();
            const batches = store.batchesWritten - batchesBefore;
            assert.ok(batches >= 1 && batches <= 20, `2000 writes took ${batches} transactions`);
            await Promise.all(writes);
            for (const g of starts) {
              const row = await store.getGeneration(g.id, account);
              assert.equal(row?.status, "completed", g.id);
              assert.equal(row?.latencyMs, 13);
            }
          },
          // Turns long enough for a whole batch: this counts group commit, not the embedded store's turns.
          { batchTurnMs: 1_000 },
        ));

      test("close() flushes queued writes: the next store reads them", async () => {
        const account = unique("acct");
        const start = startOf(account);
        const first = await makeStore();
        void first.startGeneration(start);
        void first.finishGeneration(endOf(start.id));
        await first.close();
        await assert.rejects(first.startGeneration(startOf(account)), /closed/);

        await withStore(async (second) => {
          assert.equal((await second.getGeneration(start.id, account))?.status, "completed");
        });
      });
    });
  });
}
