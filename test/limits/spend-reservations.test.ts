// The spend holds' policy on top of the states' rule: the estimate's exact price, a request without
// max_tokens holding what is left, the refusal naming what is left in the caller's protocol, holds
// settled and released once, and the next state holding while one fails.

import assert from "node:assert/strict";
import { test } from "node:test";
import type { Caller } from "../../src/auth/authenticator.ts";
import { formatDecimal } from "../../src/billing/money.ts";
import type { CatalogModel } from "../../src/catalog/types.ts";
import { CreditCheck } from "../../src/gateway/credit.ts";
import { GatewayError } from "../../src/ir/errors.ts";
import { SqliteStore } from "../../src/ledger/sqlite-store.ts";
import type { SpendState } from "../../src/ledger/types.ts";
import { BudgetCheck } from "../../src/limits/budget.ts";
import {
  costEstimate,
  type SharedSpendState,
  SpendReservations,
} from "../../src/limits/spend-reservations.ts";

const perMillion = (value: number) => [{ value, unit: "perMTokens" as const, currency: "USD" }];
const model = {
  id: "p/m",
  maxOutputTokens: 1000,
  pricings: { prompt: perMillion(3), completion: perMillion(15) },
} as unknown as CatalogModel;

const payg: Caller = { keyId: "k1", accountId: "a1", kind: "payg" };

async function setUp(balance: string, shared?: SharedSpendState) {
  // A store other processes write to holds in the store itself (else in memory).
  const store = new SqliteStore(":memory:", { sharedByProcesses: true });
  await store.migrate();
  const warnings: string[] = [];
  // The balance was read before any of the test's settlements: each settled cost counts against it.
  const readAt = Date.now();
  const spend = new SpendReservations({
    store,
    shared,
    budget: new BudgetCheck(store),
    credit: { balanceOf: async () => ({ balance, readAt }) },
    warn: (message) => warnings.push(message),
  });
  return { store, spend, warnings };
}

test("the estimate is priced exactly: prompt and the most it may write", () => {
  // 1000 × $3/M + 500 × $15/M = 0.003 + 0.0075
  assert.equal(formatDecimal(costEstimate({ promptTokens: 1000, outputTokens: 500, model })), "0.0105");
});

test("an endpoint with prices of its own: the dearest prices are held", () => {
  const regional = {
    ...model,
    endpoints: [
      { provider: "a", model: "m" },
      { provider: "b", model: "m", pricings: { prompt: perMillion(6), completion: perMillion(30) } },
    ],
  } as unknown as CatalogModel;
  assert.equal(
    formatDecimal(costEstimate({ promptTokens: 1000, outputTokens: 500, model: regional })),
    "0.021",
  );
});

test("holds against credit: fits, refused naming what is left, given back once", async () => {
  const { store, spend } = await setUp("0.02");
  try {
    const estimate = { promptTokens: 1000, outputTokens: 500, outputBounded: true, model };
    const first = await spend.reserve(payg, "openai-chat", "g1", estimate);
    assert.deepEqual(await spend.held({ accountId: "a1" }), { reserved: "0.0105", settling: "0" });
    const refused = await spend.reserve(payg, "anthropic", "g2", estimate).catch((err) => err);
    assert.ok(refused instanceof GatewayError);
    assert.equal(refused.kind, "payment_required");
    assert.match(refused.message, /has \$0\.0095 of credit left .* may cost up to \$0\.0105/);
    // Settled at its real cost: that is what stays held (a few seconds), and only the first call counts.
    first.settled("0.004");
    first.released();
    await new Promise((r) => setTimeout(r, 20));
    assert.deepEqual(await spend.held({ accountId: "a1" }), { reserved: "0", settling: "0.004" });
    // Without max_tokens, a request may hold what is left when that covers its prompt: $0.018 may
    // be its cost, and $0.016 is left (the settled $0.004 is not in the balance as read).
    const open = { promptTokens: 1000, outputTokens: 1000, model };
    const second = await spend.reserve(payg, "openai-chat", "g3", open);
    assert.deepEqual(await spend.held({ accountId: "a1" }), { reserved: "0.016", settling: "0.004" });
    second.released();
  } finally {
    await spend.close();
    await store.close();
  }
});

test("a budgeted key is refused in its protocol's quota error", async () => {
  const { store, spend } = await setUp("100");
  try {
    const budgeted: Caller = { ...payg, budget: { usd: "0.01", period: "day" } };
    const estimate = { promptTokens: 1000, outputTokens: 500, outputBounded: true, model };
    const err = await spend.reserve(budgeted, "openai-chat", "g1", estimate).catch((e) => e);
    assert.ok(err instanceof GatewayError);
    assert.equal(err.status, 429);
    assert.match(err.message, /day budget of \$0\.01 has \$0\.01 left after the requests in flight/);
  } finally {
    await spend.close();
    await store.close();
  }
});

test("a failing shared state: the store holds instead, with one warning", async () => {
  const failing = new Proxy({} as SharedSpendState, {
    get: (_, name) =>
      name === "ready" || name === "close"
        ? async () => {}
        : async () => {
            throw new Error("connection refused");
          },
  }) as SharedSpendState & SpendState;
  const { store, spend, warnings } = await setUp("1", failing);
  try {
    const estimate = { promptTokens: 10, outputTokens: 10, outputBounded: true, model };
    const hold = await spend.reserve(payg, "openai-chat", "g1", estimate);
    assert.deepEqual(await store.heldSpend({ accountId: "a1" }), { reserved: 180_000, settling: 0 });
    hold.released();
    await spend.reserve(payg, "openai-chat", "g2", estimate);
    assert.equal(warnings.length, 1);
    assert.match(warnings[0], /connection refused/);
  } finally {
    await spend.close();
    await store.close();
  }
});

test("a credit cache emptied between admission and the hold reads the balance again: no 402 with credit", async () => {
  const store = new SqliteStore(":memory:", { sharedByProcesses: true });
  await store.migrate();
  try {
    await store.accounts.upsertAccount("a1", { balance: "5" });
    const credit = new CreditCheck(store);
    const spend = new SpendReservations({ store, budget: new BudgetCheck(store), credit, warn: () => {} });
    await credit.admit(payg);
    // Other accounts' requests arrive meanwhile, past what the cache keeps: it starts again empty.
    for (let i = 0; i <= 10_001; i++)
      await credit.admit({ ...payg, accountId: `stranger-${i}` }).catch(() => {});
    const estimate = { promptTokens: 1000, outputTokens: 500, outputBounded: true, model };
    const hold = await spend.reserve(payg, "openai-chat", "g1", estimate);
    assert.deepEqual(await spend.held({ accountId: "a1" }), { reserved: "0.0105", settling: "0" });
    hold.released();
  } finally {
    await store.close();
  }
});
