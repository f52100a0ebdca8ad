// The key part of the ledger (src/ledger/keys-types.ts), one behaviour on both stores: run by the
// store contract (store-contract.ts) on SQLite and PostgreSQL.

import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { KeyStore } from "../../src/ledger/keys-types.ts";

/** Runs `work` on a migrated store's keys, then closes the store. */
export type WithKeys = <T>(work: (keys: KeyStore) => Promise<T>) => Promise<T>;

/** `unique` makes an id no other test of the run uses. */
export function runKeysContract(withKeys: WithKeys, unique: (kind: string) => string): void {
  describe("key store", () => {
    // Each key is created after the one before it: listings are oldest first.
    let createdAt = 1_700_000_000_000;
    const keyOf = (accountId: string, overrides: Record<string, unknown> = {}) => ({
      id: unique("key"),
      hash: unique("hash"),
      prefix: unique("sk-payg"),
      kind: "payg" as const,
      accountId,
      createdAt: ++createdAt,
      ...overrides,
    });

    test("a key is found by its hash, with every field", () =>
      withKeys(async (keys) => {
        const account = unique("acct");
        const key = keyOf(account, { kind: "subscription", name: "ci" });
        await keys.insertKey(key);
        assert.deepEqual(await keys.findKeyByHash(key.hash), key);
        assert.equal(await keys.findKeyByHash(unique("hash")), undefined);
      }));

    test("a second key with the same hash is refused", () =>
      withKeys(async (keys) => {
        const key = keyOf(unique("acct"));
        await keys.insertKey(key);
        await assert.rejects(keys.insertKey({ ...key, id: unique("key") }), /already exists/);
      }));

    test("keys are listed per account and all together, oldest first", () =>
      withKeys(async (keys) => {
        const a = unique("acct");
        const b = unique("acct");
        const a1 = keyOf(a);
        const b1 = keyOf(b);
        const a2 = keyOf(a);
        for (const key of [a1, b1, a2]) await keys.insertKey(key);
        assert.deepEqual(
          (await keys.listKeys(a)).map((k) => k.id),
          [a1.id, a2.id],
        );
        const all = (await keys.listKeys()).map((k) => k.id);
        assert.ok(all.includes(a1.id) && all.includes(b1.id) && all.includes(a2.id));
        assert.ok(all.indexOf(a1.id) < all.indexOf(b1.id) && all.indexOf(b1.id) < all.indexOf(a2.id));
      }));

    test("revoking by id marks revokedAt once", () =>
      withKeys(async (keys) => {
        const key = keyOf(unique("acct"));
        await keys.insertKey(key);
        const before = Date.now();
        assert.equal(await keys.revokeKey(key.id), true);
        const revoked = await keys.findKeyByHash(key.hash);
        assert.ok(revoked?.revokedAt !== undefined && revoked.revokedAt >= before);
        assert.equal(await keys.revokeKey(key.id), false);
        assert.equal(await keys.revokeKey(unique("no-such-key")), false);
      }));

    test("revoking by display prefix works when one live key has it, and refuses when several do", () =>
      withKeys(async (keys) => {
        const account = unique("acct");
        const single = keyOf(account);
        await keys.insertKey(single);
        assert.equal(await keys.revokeKey(single.prefix), true);
        assert.ok((await keys.findKeyByHash(single.hash))?.revokedAt);

        const shared = unique("sk-shared");
        const first = keyOf(account, { prefix: shared });
        const second = keyOf(account, { prefix: shared });
        await keys.insertKey(first);
        await keys.insertKey(second);
        await assert.rejects(keys.revokeKey(shared), /2 live keys/);
        assert.equal((await keys.findKeyByHash(first.hash))?.revokedAt, undefined);
      }));
    test("a key's limits and budget are stored with it, listed, and replaced", () =>
      withKeys(async (keys) => {
        const account = unique("acct");
        const key = keyOf(account, {
          limits: { rpm: 60, tpm: 100_000, concurrency: 4 },
          budget: { usd: "5.25", period: "day" },
        });
        await keys.insertKey(key);
        assert.deepEqual(await keys.findKeyByHash(key.hash), key);
        assert.deepEqual((await keys.listKeys(account))[0], key);
        assert.equal(await keys.setKeyLimits(key.id, { rpm: 2 }, undefined), true);
        const changed = await keys.findKeyByHash(key.hash);
        assert.deepEqual([changed?.limits, changed?.budget], [{ rpm: 2 }, undefined]);
        assert.equal(await keys.setKeyLimits(unique("no-such-key"), undefined, undefined), false);
      }));
  });
}
