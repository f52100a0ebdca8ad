// The account part of the ledger (src/ledger/accounts-types.ts), one behaviour on both stores: run
// by the store contract (store-contract.ts) on SQLite and PostgreSQL.

import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { GatewayError } from "../../src/ir/errors.ts";
import type { AccountStore } from "../../src/ledger/accounts-types.ts";

/** Runs `work` on a migrated store's accounts, then closes the store. */
export type WithAccounts = <T>(work: (accounts: AccountStore) => Promise<T>) => Promise<T>;

/** `unique` makes an id no other test of the run uses. */
export function runAccountsContract(withAccounts: WithAccounts, unique: (kind: string) => string): void {
  describe("account store", () => {
    test("a new account starts at the given balance, or zero", () =>
      withAccounts(async (accounts) => {
        const rich = unique("acct");
        const created = await accounts.upsertAccount(rich, { balance: "100", discount: "0.1" });
        assert.equal(created.id, rich);
        assert.equal(created.balance, "100");
        assert.equal(created.discount, "0.1");
        assert.equal(typeof created.createdAt, "number");
        assert.deepEqual(await accounts.getAccount(rich), created);

        const plain = await accounts.upsertAccount(unique("acct"));
        assert.equal(plain.balance, "0");
        assert.equal(plain.discount, undefined);
      }));

    test("upsert of an existing account overwrites only the fields given", () =>
      withAccounts(async (accounts) => {
        const id = unique("acct");
        const first = await accounts.upsertAccount(id, { balance: "5", discount: "0.2" });
        const second = await accounts.upsertAccount(id, { balance: "7.25" });
        assert.equal(second.balance, "7.25");
        assert.equal(second.discount, "0.2");
        assert.equal(second.createdAt, first.createdAt);
      }));

    test("an unknown account is undefined", () =>
      withAccounts(async (accounts) => {
        assert.equal(await accounts.getAccount(unique("nobody")), undefined);
      }));

    test("credits add exactly: 0.1 + 0.2 is 0.3", () =>
      withAccounts(async (accounts) => {
        const id = unique("acct");
        await accounts.upsertAccount(id);
        assert.equal(await accounts.creditAccount(id, "0.1"), "0.1");
        assert.equal(await accounts.creditAccount(id, "0.2"), "0.3");
        assert.equal((await accounts.getAccount(id))?.balance, "0.3");
        assert.equal(await accounts.creditAccount(id, "-1.05"), "-0.75");
        assert.equal(await accounts.creditAccount(id, "0.00000000000000000001"), "-0.74999999999999999999");
      }));

    test("concurrent credits all count", () =>
      withAccounts(async (accounts) => {
        const id = unique("acct");
        await accounts.upsertAccount(id);
        await Promise.all(Array.from({ length: 50 }, () => accounts.creditAccount(id, "0.01")));
        assert.equal((await accounts.getAccount(id))?.balance, "0.5");
      }));

    test("a malformed amount is a 400 naming the field; an unknown account is a 404", () =>
      withAccounts(async (accounts) => {
        const id = unique("acct");
        await accounts.upsertAccount(id);
        await assert.rejects(accounts.creditAccount(id, "1,5"), (e: unknown) => {
          assert.ok(e instanceof GatewayError);
          assert.equal(e.status, 400);
          assert.equal(e.param, "amount");
          return true;
        });
        await assert.rejects(accounts.upsertAccount(id, { discount: "1.5" }), /discount/);
        await assert.rejects(accounts.creditAccount(unique("nobody"), "1"), (e: unknown) => {
          assert.ok(e instanceof GatewayError);
          assert.equal(e.status, 404);
          return true;
        });
        assert.equal((await accounts.getAccount(id))?.balance, "0");
      }));

    test("accounts are listed by id", () =>
      withAccounts(async (accounts) => {
        const b = unique("acct-b");
        const a = unique("acct-a");
        await accounts.upsertAccount(b);
        await accounts.upsertAccount(a, { balance: "2" });
        const listed = (await accounts.listAccounts()).filter((row) => row.id === a || row.id === b);
        assert.deepEqual(
          listed.map((row) => [row.id, row.balance]),
          [
            [a, "2"],
            [b, "0"],
          ],
        );
      }));
  });
}
