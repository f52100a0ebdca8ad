// What the primary of `serve --workers N` marks when a worker dies (src/cli/cluster-primary.ts): its
// background runs failed and its generations interrupted, each whether or not the other could be.

import assert from "node:assert/strict";
import { test } from "node:test";
import { markDeadWorker } from "../../src/cli/cluster-primary.ts";
import type { Store } from "../../src/ledger/types.ts";

function deadWorkerStore(fail: { runs?: boolean; generations?: boolean }) {
  const calls: string[] = [];
  const store = {
    async markInterrupted(owners: string[]) {
      calls.push(`generations ${owners}`);
      if (fail.generations) throw new Error("generations: database away");
      return 3;
    },
    responses: {
      async failRunsOf(owners: string[]) {
        calls.push(`runs ${owners}`);
        if (fail.runs) throw new Error("stored_responses: statement timeout");
        return 1;
      },
    },
  } as unknown as Store;
  return { store, calls };
}

test("a dead worker's runs are failed first, then its generations interrupted; both are told", async () => {
  const { store, calls } = deadWorkerStore({});
  const told = await markDeadWorker(store, "owner-1");
  assert.deepEqual(calls, ["runs owner-1", "generations owner-1"]);
  assert.match(told, /3 generation\(s\) it was serving marked interrupted/);
  assert.match(told, /1 background response\(s\) it was running failed/);
});

test("runs that cannot be failed do not leave its generations, and the spend they hold, pending", async () => {
  const { store, calls } = deadWorkerStore({ runs: true });
  const told = await markDeadWorker(store, "owner-1");
  assert.deepEqual(calls, ["runs owner-1", "generations owner-1"]);
  assert.match(told, /3 generation\(s\) it was serving marked interrupted/);
  assert.match(told, /its background responses could not be failed: stored_responses: statement timeout/);
});

test("generations that cannot be marked are told, the runs failed all the same", async () => {
  const { store } = deadWorkerStore({ generations: true });
  const told = await markDeadWorker(store, "owner-1");
  assert.match(told, /1 background response\(s\) it was running failed/);
  assert.match(told, /its in-flight generations could not be marked interrupted: generations: database away/);
});
