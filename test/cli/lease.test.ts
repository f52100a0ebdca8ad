// The lease a gateway keeps on a store shared by gateways started apart (PostgreSQL): taken before
// it serves, renewed while it runs, and each renewal followed by a sweep for silent gateways; a
// failing database is told once, and no sweep runs on a renewal that failed.

import assert from "node:assert/strict";
import { test } from "node:test";
import { LeaseKeeper, startUpSilenceMs } from "../../src/cli/lease.ts";
import type { Store } from "../../src/ledger/types.ts";

function leasedStore(sharedByGateways: boolean) {
  const calls: string[] = [];
  let failing = false;
  let runsFailing = false;
  const store = {
    sharedByGateways,
    async renewLease() {
      calls.push("renew");
      if (failing) throw new Error("database away");
    },
    async markAbandoned(silentForMs: number) {
      calls.push(`sweep ${silentForMs}`);
      return 2;
    },
    responses: {
      async markAbandonedRuns(silentForMs: number) {
        calls.push(`runs ${silentForMs}`);
        if (runsFailing) throw new Error("stored_responses: canceling statement due to statement timeout");
        return 1;
      },
    },
  } as unknown as Store;
  return {
    store,
    calls,
    fail: (on: boolean) => (failing = on),
    failRuns: (on: boolean) => (runsFailing = on),
  };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

test("the lease is taken at start, renewed and followed by a sweep; a failure is told once", async () => {
  const { store, calls, fail } = leasedStore(true);
  const lines: string[] = [];
  const lease = new LeaseKeeper(store, { renewMs: 20, leaseMs: 500, log: (line) => lines.push(line) });
  await lease.start();
  assert.deepEqual(calls, ["renew"], "taken before serving, no sweep yet");
  await sleep(70);
  assert.ok(calls.includes("sweep 500"), calls.join());
  const runs = calls.indexOf("runs 500");
  assert.ok(runs >= 0 && runs < calls.indexOf("sweep 500"), `background runs first: ${calls}`);
  assert.match(lines[0] ?? "", /marked 1 background response\(s\) of gateways silent for 500 ms as failed/);
  assert.match(lines[1] ?? "", /marked 2 generation\(s\) of gateways silent for 500 ms as interrupted/);

  fail(true);
  calls.length = 0;
  await sleep(90);
  assert.ok(calls.length >= 2 && calls.every((c) => c === "renew"), `no sweep while renewals fail: ${calls}`);
  assert.equal(lines.filter((l) => /could not renew/.test(l)).length, 1);

  fail(false);
  await sleep(50);
  assert.ok(lines.some((l) => /renewed again/.test(l)));
  await lease.stop();
  calls.length = 0;
  await sleep(50);
  assert.deepEqual(calls, [], "stopped");
});

test("a store that is one serve's own keeps no lease; its start abandons every pending row", async () => {
  const { store, calls } = leasedStore(false);
  const lease = new LeaseKeeper(store, { renewMs: 10 });
  await lease.start();
  await sleep(40);
  await lease.stop();
  assert.deepEqual(calls, []);
  assert.equal(startUpSilenceMs(store), 0);
  assert.ok(startUpSilenceMs(leasedStore(true).store) > 10_000);
});

test("a sweep of background runs that fails does not keep the generations' sweep from running", async () => {
  const { store, calls, failRuns } = leasedStore(true);
  const lines: string[] = [];
  const lease = new LeaseKeeper(store, { renewMs: 20, leaseMs: 500, log: (line) => lines.push(line) });
  failRuns(true);
  await lease.start();
  await sleep(70);
  await lease.stop();
  assert.ok(calls.includes("runs 500"), calls.join());
  assert.ok(calls.includes("sweep 500"), `generations still swept: ${calls}`);
  assert.ok(
    lines.some((l) => /marked 2 generation\(s\)/.test(l)),
    lines.join("\n"),
  );
  assert.ok(
    lines.some((l) => /background responses: .*statement timeout/.test(l)),
    lines.join("\n"),
  );
});
