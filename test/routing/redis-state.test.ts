// The Redis routing state behaves as the in-memory one does (the same operations, the same answers),
// and a process whose Redis is away keeps routing on its own memory.

import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { describe, test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { FallbackRoutingState, RedisRoutingState } from "../../src/routing/redis-state.ts";
import { REDIS_URL, requireRedis } from "../support/redis.ts";

function fresh(): RedisRoutingState {
  return new RedisRoutingState(REDIS_URL, { prefix: `switchyard-test:${randomUUID()}:` });
}

async function connected(state: RedisRoutingState): Promise<RedisRoutingState> {
  if (state.redis.status !== "ready") await new Promise((r) => state.redis.once("ready", r));
  return state;
}

describe("RedisRoutingState", () => {
  test("counters start at 1 and count per key; two processes share them", async (t) => {
    if (!(await requireRedis(t))) return;
    const a = await connected(fresh());
    const b = await connected(new RedisRoutingState(REDIS_URL, { prefix: a.prefix }));
    try {
      assert.equal(await a.increment("rr:x"), 1);
      assert.equal(await b.increment("rr:x"), 2);
      assert.equal(await a.increment("rr:y"), 1);
    } finally {
      await a.close();
      await b.close();
    }
  });

  test("hash fields add up (fractions too), can be set, and read back as numbers", async (t) => {
    if (!(await requireRedis(t))) return;
    const state = await connected(fresh());
    try {
      assert.deepEqual(await state.readHash("stats:e"), {});
      assert.deepEqual(await state.addToHash("stats:e", { ok: 1, errors: 2 }), { ok: 1, errors: 2 });
      assert.deepEqual(await state.addToHash("stats:e", { ok: 1, ttft: 0.5 }), { ok: 2, ttft: 0.5 });
      await state.setInHash("stats:e", { errors: 0, ttft_ms: 12.5 });
      assert.deepEqual(await state.readHash("stats:e"), { ok: 2, errors: 0, ttft: 0.5, ttft_ms: 12.5 });
    } finally {
      await state.close();
    }
  });

  test("marks expire; onlyIfAbsent takes a mark only when none is live; unmark frees it", async (t) => {
    if (!(await requireRedis(t))) return;
    const state = await connected(fresh());
    try {
      assert.equal(await state.markedFor("open:e"), 0);
      assert.equal(await state.mark("open:e", 150), true);
      const left = await state.markedFor("open:e");
      assert.ok(left > 100 && left <= 150, String(left));
      assert.equal(await state.mark("open:e", 150, { onlyIfAbsent: true }), false);
      await sleep(200);
      assert.equal(await state.markedFor("open:e"), 0);
      assert.equal(await state.mark("open:e", 1000, { onlyIfAbsent: true }), true);
      await state.unmark("open:e");
      assert.equal(await state.mark("open:e", 1000, { onlyIfAbsent: true }), true);
    } finally {
      await state.close();
    }
  });
});

describe("FallbackRoutingState", () => {
  test("with Redis unreachable, every operation answers from memory at once and one warning is given", async () => {
    const down = new RedisRoutingState("redis://127.0.0.1:1");
    const warnings: string[] = [];
    const state = new FallbackRoutingState(down, (m) => warnings.push(m));
    try {
      const started = performance.now();
      assert.equal(await state.increment("rr:x"), 1);
      assert.equal(await state.increment("rr:x"), 2);
      assert.deepEqual(await state.addToHash("h", { a: 1 }), { a: 1 });
      assert.equal(await state.mark("m", 1000), true);
      assert.ok((await state.markedFor("m")) > 0);
      assert.ok(performance.now() - started < 1000, "no operation waited on the missing Redis");
      assert.equal(warnings.length, 1);
      assert.match(warnings[0], /shared routing state unavailable/);
    } finally {
      await down.close();
    }
  });
});
