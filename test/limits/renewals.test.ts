// What runs is renewed together on one timer while anything runs (src/limits/buckets.ts Renewals),
// for the rate limiter's concurrency leases and the spend holds alike.

import assert from "node:assert/strict";
import { test } from "node:test";
import { LEASE_RENEW_MS, Renewals } from "../../src/limits/buckets.ts";

test("renewed all at once every LEASE_RENEW_MS while any runs; no timer once none does", (t) => {
  t.mock.timers.enable({ apis: ["setInterval"] });
  const calls: string[][] = [];
  const renewals = new Renewals<string, string>((running) => calls.push([...running.values()]));
  renewals.add("a", "lease-a");
  renewals.add("b", "lease-b");
  t.mock.timers.tick(LEASE_RENEW_MS);
  assert.deepEqual(calls, [["lease-a", "lease-b"]]);
  renewals.delete("a");
  t.mock.timers.tick(LEASE_RENEW_MS);
  assert.deepEqual(calls.at(-1), ["lease-b"]);
  renewals.delete("b");
  t.mock.timers.tick(3 * LEASE_RENEW_MS);
  assert.equal(calls.length, 2);
  // Running again starts the timer again; stop ends it whatever still runs.
  renewals.add("c", "lease-c");
  t.mock.timers.tick(LEASE_RENEW_MS);
  assert.deepEqual(calls.at(-1), ["lease-c"]);
  renewals.stop();
  t.mock.timers.tick(3 * LEASE_RENEW_MS);
  assert.equal(calls.length, 3);
});
