// The store-neutral rules driven by scripted steps: what they ask of a store, in which order, and
// the synchronous driver's refusal of an asynchronous step (SQLite's atomicity rests on it). Both
// stores run the same rules against real databases in store-contract.ts.

import assert from "node:assert/strict";
import { test } from "node:test";
import { parseDecimal } from "../../src/billing/money.ts";
import {
  type RevocationStep,
  revocation,
  runSteps,
  runStepsAsync,
  type SettlementStep,
  type SettlingGeneration,
  settlement,
} from "../../src/ledger/store-rules.ts";
import type { Rating } from "../../src/ledger/types.ts";

const rating = { billAmount: "1", usage: "1" } as unknown as Rating;

function generation(accountId: string, status = "completed", settled = false): SettlingGeneration {
  return { status, settled, source: { accountId, keyId: "k", model: "m", createdAt: 0 } };
}

test("settlement debits each account once, in a fixed order, and fails unknown and pending items alone", () => {
  const rows: Record<string, SettlingGeneration> = {
    a: generation("zeta"),
    b: generation("alpha"),
    c: generation("zeta"),
    d: generation("alpha", "completed", true),
    e: generation("alpha", "pending"),
  };
  const steps: SettlementStep[] = [];
  const items = ["a", "b", "c", "d", "e", "x"].map((id) => ({ id, rating, settledAt: 1 }));
  const debits = ["1.5", "2", "0.25", "9", "9", "9"].map((d) => parseDecimal(d, "debit"));
  const outcomes = runSteps(settlement(items, debits), (step) => {
    steps.push(step);
    return step.op === "readGeneration" ? rows[step.id] : undefined;
  });
  assert.deepEqual(outcomes.slice(0, 4), [undefined, undefined, undefined, undefined]);
  assert.match(outcomes[4]?.message ?? "", /generation e cannot be settled while pending/);
  assert.match(outcomes[5]?.message ?? "", /generation x does not exist/);
  assert.deepEqual(
    steps.filter((s) => s.op === "markSettled").map((s) => s.id),
    ["a", "b", "c"],
  );
  assert.deepEqual(
    steps.filter((s) => s.op === "addToBalance"),
    [
      { op: "addToBalance", account: "alpha", amount: "-2" },
      { op: "addToBalance", account: "zeta", amount: "-1.75" },
    ],
  );
  assert.equal(steps.at(-1)!.op, "applyRollups");
});

test("revocation: by id once; else the one live key with the prefix; several are refused", async () => {
  const run = (keys: Record<string, boolean>, live: string[]) => {
    const revoked: string[] = [];
    const step = (s: RevocationStep) => {
      if (s.op === "readKey") return s.id in keys ? { revoked: keys[s.id] } : undefined;
      if (s.op === "liveKeysWithPrefix") return live;
      revoked.push(s.id);
      return undefined;
    };
    return { revoked, step };
  };
  const byId = run({ k1: false }, []);
  assert.equal(runSteps(revocation("k1", 5), byId.step), true);
  assert.deepEqual(byId.revoked, ["k1"]);
  assert.equal(runSteps(revocation("k1", 5), run({ k1: true }, []).step), false);
  const byPrefix = run({}, ["k2"]);
  assert.equal(await runStepsAsync(revocation("sy-ab", 5), async (s) => byPrefix.step(s)), true);
  assert.deepEqual(byPrefix.revoked, ["k2"]);
  assert.throws(() => runSteps(revocation("sy-ab", 5), run({}, ["k2", "k3"]).step), /sy-ab/);
});

test("the synchronous driver refuses a step that returns a promise", () => {
  assert.throws(
    () => runSteps(revocation("k1", 5), async () => undefined),
    /synchronous store ran a step asynchronously/,
  );
});
