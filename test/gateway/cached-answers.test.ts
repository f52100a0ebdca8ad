// The request path's answers without an await (src/gateway/inference.ts, recorder.ts): a key, an
// account's credit or its discount are answered at once only from a cached answer that is fresh and
// says yes; anything else (never read, expired, refused) goes to the store as before.

import assert from "node:assert/strict";
import { test } from "node:test";
import type { AdminKeys } from "../../src/auth/admin.ts";
import { Authenticator } from "../../src/auth/authenticator.ts";
import { hashKey } from "../../src/auth/keys.ts";
import { loadBuiltinCatalog } from "../../src/catalog/load.ts";
import { CreditCheck } from "../../src/gateway/credit.ts";
import { Settlement } from "../../src/gateway/settlement.ts";
import { emptyUsage } from "../../src/ir/usage.ts";
import type { AccountRow, KeyRow, Store } from "../../src/ledger/types.ts";

function memoryStore(keys: KeyRow[], accounts: Record<string, AccountRow>) {
  const state = { reads: 0, acceptsGenerations: true };
  const store = {
    get acceptsGenerations() {
      return state.acceptsGenerations;
    },
    findKeyByHash: async (hash: string) => {
      state.reads++;
      return keys.find((k) => k.hash === hash);
    },
    getAccount: async (id: string) => {
      state.reads++;
      return accounts[id];
    },
  } as unknown as Store;
  return { store, state };
}

const key = (plain: string, extra: Partial<KeyRow> = {}): KeyRow => ({
  id: `key-${plain}`,
  hash: hashKey(plain),
  prefix: plain.slice(0, 6),
  kind: "payg",
  accountId: "acme",
  createdAt: 0,
  ...extra,
});

const account = (balance: string, discount?: string): AccountRow => ({
  id: "acme",
  balance,
  discount,
  createdAt: 0,
});

test("a key's caller is at hand only while its verified answer is fresh", async (t) => {
  t.mock.timers.enable({ apis: ["Date"], now: 1_000_000 });
  const revoked = key("sk-revoked", { revokedAt: 1 });
  const { store, state } = memoryStore([key("sk-good"), revoked], {});
  const admins = { isAdminKey: (k: string) => k === "sk-admin-0123456789" } as unknown as AdminKeys;
  const auth = new Authenticator(store, admins);
  assert.equal(auth.cachedCaller(undefined), undefined);
  assert.equal(auth.cachedCaller("sk-good"), undefined, "never verified");
  assert.equal((await auth.authenticate("sk-good")).keyId, "key-sk-good");
  assert.equal(auth.cachedCaller("sk-good")?.keyId, "key-sk-good");
  const reads = state.reads;
  // Refused answers are cached too, but never handed out: authenticate says why.
  await assert.rejects(auth.authenticate("sk-revoked"), /not valid/);
  assert.equal(auth.cachedCaller("sk-revoked"), undefined);
  await assert.rejects(auth.authenticate("sk-admin-0123456789"));
  assert.equal(auth.cachedCaller("sk-admin-0123456789"), undefined);
  t.mock.timers.tick(6_000); // past the 5 s cache
  assert.equal(auth.cachedCaller("sk-good"), undefined, "expired: the store decides again");
  await auth.authenticate("sk-good");
  assert.ok(state.reads > reads);
});

test("an account is admitted at once only on a fresh answer that it has credit", async (t) => {
  t.mock.timers.enable({ apis: ["Date"], now: 1_000_000 });
  const accounts = { acme: account("0.5") };
  const { store, state } = memoryStore([], accounts);
  const credit = new CreditCheck(store);
  const payg = { keyId: "k", accountId: "acme", kind: "payg" as const };
  const subscription = { keyId: "s", accountId: "acme", kind: "subscription" as const };
  assert.equal(credit.admitsNow(payg), false, "never read");
  assert.equal(credit.admitsNow(subscription), true, "a plan needs no credit");
  await credit.admit(payg);
  assert.equal(credit.admitsNow(payg), true);
  credit.forget(["acme"]);
  assert.equal(credit.admitsNow(payg), false, "a settlement changed the balance");
  accounts.acme = account("0");
  await assert.rejects(credit.admit(payg), /no credit left/);
  assert.equal(credit.admitsNow(payg), false, "a cached refusal is admit's to answer");
  state.acceptsGenerations = false;
  assert.equal(credit.admitsNow(subscription), false, "a full ledger backlog is admit's to answer");
});

test("a settlement is rated at once only with the account's discount cached and fresh", async (t) => {
  t.mock.timers.enable({ apis: ["Date"], now: 1_000_000 });
  const { store } = memoryStore([], { acme: account("10", "0.5") });
  const settlement = new Settlement({ store, delayMs: 0, priceVersion: "v", log: console });
  const model = loadBuiltinCatalog().find((m) => (m.pricings.prompt?.[0]?.value ?? 0) > 0)!;
  const generation = { id: "g", accountId: "acme", kind: "payg" as const };
  const usage = { ...emptyUsage(), promptTokens: 1000, completionTokens: 10 };
  assert.equal(settlement.settlementNow(generation, model, usage), undefined, "discount never read");
  const read = await settlement.settlementOf(generation, model, usage);
  const now = settlement.settlementNow(generation, model, usage);
  assert.deepEqual(now, read);
  assert.notEqual(read.rating.discountAmount, "0", "the discount applies");
  t.mock.timers.tick(6_000); // past the 5 s discount cache
  assert.equal(settlement.settlementNow(generation, model, usage), undefined);
});
