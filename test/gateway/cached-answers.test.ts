// The request path's cached answers (src/gateway/inference.ts, recorder.ts): a key, an account's
// credit or its discount are answered from a fresh cached answer without reading the store; anything
// else (never read, expired, forgotten) goes to the store.

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
    keys: {
      findKeyByHash: async (hash: string) => {
        state.reads++;
        return keys.find((k) => k.hash === hash);
      },
    },
    accounts: {
      getAccount: async (id: string) => {
        state.reads++;
        return accounts[id];
      },
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

test("a key's caller comes from the cache while its verified answer is fresh", async (t) => {
  t.mock.timers.enable({ apis: ["Date"], now: 1_000_000 });
  const revoked = key("sk-revoked", { revokedAt: 1 });
  const { store, state } = memoryStore([key("sk-good"), revoked], {});
  const admins = { isAdminKey: (k: string) => k === "sk-admin-0123456789" } as unknown as AdminKeys;
  const auth = new Authenticator(store, admins);
  await assert.rejects(auth.authenticate(undefined), /No API key/);
  assert.equal((await auth.authenticate("sk-good")).keyId, "key-sk-good");
  assert.equal(state.reads, 1);
  assert.equal((await auth.authenticate("sk-good")).keyId, "key-sk-good");
  assert.equal(state.reads, 1, "a fresh answer is not read again");
  // Refused answers are cached too: the second refusal reads nothing.
  await assert.rejects(auth.authenticate("sk-revoked"), /not valid/);
  await assert.rejects(auth.authenticate("sk-revoked"), /not valid/);
  assert.equal(state.reads, 2);
  await assert.rejects(auth.authenticate("sk-admin-0123456789"));
  assert.equal(state.reads, 2, "an admin key never reaches the store");
  t.mock.timers.tick(6_000); // past the 5 s cache
  await auth.authenticate("sk-good");
  assert.equal(state.reads, 3, "expired: the store decides again");
});

test("an account's credit comes from the cache while fresh, and is read again once settled", async (t) => {
  t.mock.timers.enable({ apis: ["Date"], now: 1_000_000 });
  const accounts = { acme: account("0.5") };
  const { store, state } = memoryStore([], accounts);
  const credit = new CreditCheck(store);
  const payg = { keyId: "k", accountId: "acme", kind: "payg" as const };
  const subscription = { keyId: "s", accountId: "acme", kind: "subscription" as const };
  await credit.admit(subscription);
  assert.equal(state.reads, 0, "a plan needs no credit");
  await credit.admit(payg);
  await credit.admit(payg);
  assert.equal(state.reads, 1, "a fresh answer is not read again");
  credit.forget(["acme"]);
  accounts.acme = account("0");
  await assert.rejects(credit.admit(payg), /no credit left/);
  assert.equal(state.reads, 2, "a settlement changed the balance");
  state.acceptsGenerations = false;
  await assert.rejects(credit.admit(subscription), /cannot record/);
});

test("a settlement is rated with the account's discount, read once while fresh", async (t) => {
  t.mock.timers.enable({ apis: ["Date"], now: 1_000_000 });
  const { store, state } = memoryStore([], { acme: account("10", "0.5") });
  const settlement = new Settlement({ store, delayMs: 0, priceVersion: "v", log: console });
  const model = loadBuiltinCatalog().find((m) => (m.pricings.prompt?.[0]?.value ?? 0) > 0)!;
  const generation = { id: "g", accountId: "acme", kind: "payg" as const };
  const usage = { ...emptyUsage(), promptTokens: 1000, completionTokens: 10 };
  const read = await settlement.settlementOf(generation, model, usage);
  assert.notEqual(read.rating.discountAmount, "0", "the discount applies");
  assert.deepEqual(await settlement.settlementOf(generation, model, usage), read);
  assert.equal(state.reads, 1, "a fresh discount is not read again");
  t.mock.timers.tick(6_000); // past the 5 s discount cache
  await settlement.settlementOf(generation, model, usage);
  assert.equal(state.reads, 2);
});
