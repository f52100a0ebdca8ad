// Authentication, admission and recording while the store is unavailable: a key or account this process read
// recently keeps its last answer (the store asked again about once a second), anything it cannot
// verify is a 503, never a guess. See docs/operations.md, "When the store or Redis goes away".

import assert from "node:assert/strict";
import { test } from "node:test";
import { Authenticator } from "../../src/auth/authenticator.ts";
import { hashKey } from "../../src/auth/keys.ts";
import { loadBuiltinCatalog } from "../../src/catalog/load.ts";
import { CreditCheck } from "../../src/gateway/credit.ts";
import { Meter } from "../../src/gateway/meter.ts";
import { GenerationRecorder, UnwrittenStarts } from "../../src/gateway/recorder.ts";
import { Settlement } from "../../src/gateway/settlement.ts";
import { GatewayError } from "../../src/ir/errors.ts";
import type { Request } from "../../src/ir/request.ts";
import { emptyUsage } from "../../src/ir/usage.ts";
import { StoreUnavailable } from "../../src/ledger/ledger-errors.ts";
import type { AccountRow, GenerationEnd, KeyRow, Store } from "../../src/ledger/types.ts";

/** A store whose reads can be made to fail as unavailable; counts the reads it is asked for. */
function outageStore(keys: Record<string, KeyRow>, accounts: Record<string, AccountRow>) {
  const state = { down: false, reads: 0, acceptsGenerations: true };
  const read = <T>(value: T): Promise<T> => {
    state.reads++;
    return state.down
      ? Promise.reject(new StoreUnavailable(new Error("ECONNREFUSED")))
      : Promise.resolve(value);
  };
  const store = {
    get acceptsGenerations() {
      return state.acceptsGenerations;
    },
    keys: { findKeyByHash: (hash: string) => read(Object.values(keys).find((k) => k.hash === hash)) },
    accounts: { getAccount: (id: string) => read(accounts[id]) },
  } as unknown as Store;
  return { store, state };
}

const key = (plain: string, accountId: string): KeyRow => ({
  id: `key-${plain}`,
  hash: hashKey(plain),
  prefix: plain.slice(0, 6),
  kind: "payg",
  accountId,
  createdAt: 0,
});

function isServiceUnavailable(err: unknown): boolean {
  return err instanceof GatewayError && err.status === 503;
}

test("a key verified before the store went away keeps working; one never verified is a 503", async (t) => {
  t.mock.timers.enable({ apis: ["Date"], now: 1_000_000 });
  const { store, state } = outageStore({ a: key("sk-known", "acme"), b: key("sk-new", "acme") }, {});
  const auth = new Authenticator(store);
  await assert.rejects(auth.authenticate("sk-bogus"), /not valid/);
  assert.equal((await auth.authenticate("sk-known")).accountId, "acme");
  state.down = true;
  t.mock.timers.tick(6_000); // past the 5 s cache: the store is asked, and fails
  assert.equal((await auth.authenticate("sk-known")).accountId, "acme");
  await assert.rejects(auth.authenticate("sk-bogus"), /not valid/); // its last answer stands too
  await assert.rejects(auth.authenticate("sk-new"), isServiceUnavailable);
  // While it is down the store is asked again about once a second per key, not on every request.
  const reads = state.reads;
  for (let i = 0; i < 10; i++) await auth.authenticate("sk-known");
  assert.equal(state.reads, reads);
  t.mock.timers.tick(1_001);
  await auth.authenticate("sk-known");
  assert.equal(state.reads, reads + 1);
  // An answer older than ten minutes is not trusted: 503.
  t.mock.timers.tick(10 * 60_000);
  await assert.rejects(auth.authenticate("sk-known"), isServiceUnavailable);
  state.down = false;
  assert.equal((await auth.authenticate("sk-known")).accountId, "acme");
});

test("a store failure that is not an outage is not papered over with a cached answer", async (t) => {
  t.mock.timers.enable({ apis: ["Date"], now: 1_000_000 });
  let fail = false;
  const store = {
    keys: {
      findKeyByHash: async () => {
        if (fail) throw new Error("relation keys does not exist");
        return key("sk-known", "acme");
      },
    },
  } as unknown as Store;
  const auth = new Authenticator(store);
  await auth.authenticate("sk-known");
  fail = true;
  t.mock.timers.tick(6_000);
  await assert.rejects(auth.authenticate("sk-known"), /relation keys does not exist/);
});

test("admission: the credit read before stands while the store is away, even once settlement said to re-read", async (t) => {
  t.mock.timers.enable({ apis: ["Date"], now: 1_000_000 });
  const acme = { id: "acme", balance: "5", createdAt: 0 };
  const broke = { id: "broke", balance: "0", createdAt: 0 };
  const { store, state } = outageStore({}, { acme, broke });
  const credit = new CreditCheck(store);
  const payg = (accountId: string) => ({ keyId: "k", accountId, kind: "payg" as const });
  await credit.admit(payg("acme"));
  await assert.rejects(credit.admit(payg("broke")), /no credit left/);
  state.down = true;
  credit.forget(["acme", "broke"]);
  await credit.admit(payg("acme"));
  await assert.rejects(credit.admit(payg("broke")), /no credit left/);
  await assert.rejects(credit.admit(payg("never-seen")), isServiceUnavailable);
  // A subscription key has nothing to read, but the ledger must still be able to record it.
  await credit.admit({ keyId: "k", accountId: "never-seen", kind: "subscription" });
  state.acceptsGenerations = false;
  await assert.rejects(
    credit.admit({ keyId: "k", accountId: "acme", kind: "subscription" }),
    isServiceUnavailable,
  );
});

/** A recorder's finish, with a store that records what it is asked to write. */
async function finishOneGeneration(getAccount: () => Promise<AccountRow | undefined>) {
  const written: GenerationEnd[] = [];
  const store = {
    accounts: { getAccount },
    recordGeneration: async (_g: unknown, end: GenerationEnd) => {
      written.push(end);
    },
  } as unknown as Store;
  const errors: string[] = [];
  const log = { error: (_obj: unknown, msg?: string) => errors.push(msg ?? "") };
  const settlement = new Settlement({ store, delayMs: 0, priceVersion: "test", log });
  const model = loadBuiltinCatalog().find((m) => m.id === "local/echo-1")!;
  const recorder = new GenerationRecorder({ store, settlement, log }, new UnwrittenStarts(), {
    id: "gen-1",
    caller: { keyId: "k", accountId: "acme", kind: "payg" },
    model,
    api: "chat.completions",
    request: { stream: false } as Request,
    arrivedAt: performance.now(),
  });
  const meter = new Meter();
  meter.observeWhole({ ...emptyUsage(), promptTokens: 3, completionTokens: 2 }, "stop");
  meter.end();
  recorder.end(meter, { status: "completed" });
  await new Promise((resolve) => setTimeout(resolve, 20));
  settlement.stop();
  return { written, errors };
}

test("a generation whose rating cannot be made now is still recorded, unsettled", async () => {
  // The store is away (the account's discount cannot be read): written now, rated once it is back.
  const away = await finishOneGeneration(() => Promise.reject(new StoreUnavailable()));
  assert.equal(away.written.length, 1);
  assert.equal(away.written[0]!.settlement, undefined);
  assert.deepEqual(away.errors, []);
  // Rating fails for another reason: recorded all the same, and the failure logged.
  const broken = await finishOneGeneration(() => Promise.reject(new Error("bad discount")));
  assert.equal(broken.written.length, 1);
  assert.equal(broken.written[0]!.settlement, undefined);
  assert.deepEqual(broken.errors, ["rating failed"]);
});
