// A Redis of the test's own going away under the shared routing state (the shared Redis must never
// be stopped): stopped, every operation answers from memory at once and nothing is queued for it;
// hung, an operation waits at most one command timeout and then memory for a second; started again,
// the same client shares state through it without a restart. See docs/operations.md.

import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { Redis } from "ioredis";
import { FallbackRoutingState, RedisRoutingState } from "../../src/routing/redis-state.ts";
import { type PrivateRedis, requirePrivateRedis, startPrivateRedis } from "../support/private-redis.ts";

describe("shared routing state while Redis goes away", () => {
  let redis: PrivateRedis | undefined;
  before(async (t) => {
    if (requirePrivateRedis({ skip: (m) => t.diagnostic(`skipped: ${m}`) }))
      redis = await startPrivateRedis();
  });
  after(async () => {
    await redis?.destroy();
  });

  async function ready(shared: RedisRoutingState): Promise<void> {
    if (shared.redis.status !== "ready") await new Promise((r) => shared.redis.once("ready", r));
  }

  test("stopped, operations answer from memory at once; started again, the same client shares through it", async (t) => {
    if (!redis) return t.skip("no private Redis");
    const shared = new RedisRoutingState(redis.url, { prefix: "outage-a:" });
    const warnings: string[] = [];
    let now = 1_000_000;
    const state = new FallbackRoutingState(shared, (m) => warnings.push(m), { now: () => now });
    const reader = new Redis(redis.url, { lazyConnect: true });
    reader.on("error", () => {});
    try {
      await ready(shared);
      assert.equal(await state.increment("rr:m"), 1);
      await redis.stop();
      const began = performance.now();
      for (let i = 0; i < 50; i++) {
        now += 100; // some of these are past the one-second pause: Redis is tried again, and fails fast
        await state.increment("rr:local");
        await state.readHash("stats:e");
      }
      assert.ok(
        performance.now() - began < 1_000,
        `took ${performance.now() - began} ms while Redis was down`,
      );
      const { offlineQueue } = shared.redis as unknown as { offlineQueue: { length: number } };
      assert.equal(offlineQueue.length, 0, "commands were queued for the missing Redis");
      assert.equal(warnings.length, 1);
      await redis.start();
      await ready(shared);
      now += 2_000;
      assert.equal(await state.increment("rr:after"), 1);
      assert.equal(await state.increment("rr:after"), 2);
      await reader.connect();
      assert.equal(await reader.get("outage-a:rr:after"), "2");
    } finally {
      reader.disconnect();
      await shared.close();
    }
  });

  test("hung, an operation waits at most one command timeout, then memory for a second", async (t) => {
    if (!redis) return t.skip("no private Redis");
    const shared = new RedisRoutingState(redis.url, { prefix: "outage-b:" });
    const state = new FallbackRoutingState(shared, () => {});
    try {
      await ready(shared);
      redis.pause();
      const began = performance.now();
      for (let i = 0; i < 20; i++) await state.markedFor(`open:e${i}`);
      const took = performance.now() - began;
      // Without the pause after a failure, each of the 20 would wait the 250 ms command timeout.
      assert.ok(took < 900, `20 operations took ${Math.round(took)} ms on a hung Redis`);
      redis.resume();
      await sleep(1_100);
      assert.equal(await state.mark("open:e0", 60_000), true);
      assert.ok((await shared.markedFor("open:e0")) > 0, "not written to Redis after it answered again");
    } finally {
      redis.resume();
      await shared.close();
    }
  });
});
