// The limits' rule, on both states: this process's memory and Redis's Lua scripts must decide alike.

import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { test } from "node:test";
import type { Caller } from "../../src/auth/authenticator.ts";
import type { TakeRequest } from "../../src/limits/buckets.ts";
import { type LimitState, MemoryLimitState } from "../../src/limits/limit-state.ts";
import { RateLimiter } from "../../src/limits/rate-limiter.ts";
import { RedisLimitState } from "../../src/limits/redis-limit-state.ts";
import { flushScripts, REDIS_URL, requireRedis, scriptsSent } from "../support/redis.ts";

async function rule(state: LimitState, key: string): Promise<void> {
  const take = (t: Partial<TakeRequest>) => state.take({ key, tokens: 0, lease: randomUUID(), ...t });
  // Requests per minute: two, then a wait of about half a minute (one request refills in 30 s).
  assert.equal((await take({ rpm: 2 })).refused, undefined);
  const second = await take({ rpm: 2 });
  assert.equal(second.refused, undefined);
  assert.ok(second.requestsLevel >= 0 && second.requestsLevel < 0.1, String(second.requestsLevel));
  const third = await take({ rpm: 2 });
  assert.equal(third.refused, "rpm");
  assert.ok(third.waitMs > 29_000 && third.waitMs <= 30_000, String(third.waitMs));

  // Tokens per minute: an estimate is taken, what was not used comes back.
  const tk = `${key}-t`;
  const a = await state.take({ key: tk, tpm: 100, tokens: 80, lease: "a" });
  assert.equal(a.refused, undefined);
  assert.equal((await state.take({ key: tk, tpm: 100, tokens: 80, lease: "b" })).refused, "tpm");
  await state.returnTokens(tk, 100, 70); // used 10 of 80
  assert.equal((await state.take({ key: tk, tpm: 100, tokens: 80, lease: "c" })).refused, undefined);
  // An estimate over the whole limit waits for a full bucket, then takes it below zero.
  const big = `${key}-big`;
  const over = await state.take({ key: big, tpm: 100, tokens: 500, lease: "d" });
  assert.equal(over.refused, undefined);
  assert.ok(over.tokensLevel <= -399, String(over.tokensLevel));

  // Concurrency: leases, released once.
  const ck = `${key}-c`;
  assert.equal((await state.take({ key: ck, concurrency: 1, tokens: 0, lease: "x" })).refused, undefined);
  assert.equal((await state.take({ key: ck, concurrency: 1, tokens: 0, lease: "y" })).refused, "concurrency");
  await state.release(ck, "x");
  assert.equal((await state.take({ key: ck, concurrency: 1, tokens: 0, lease: "z" })).refused, undefined);
}

test("in memory", async () => {
  await rule(new MemoryLimitState(), "k");
});

test("in Redis (Lua), under a prefix of its own", async (t) => {
  if (!(await requireRedis(t))) return;
  const state = new RedisLimitState(REDIS_URL, `switchyard-test-${randomUUID()}:`);
  try {
    await state.ready(5_000);
    const sent = scriptsSent(state);
    await rule(state, "k");
    // Redis forgets its scripts (a restart, a failover): each is sent whole again once, then by SHA1.
    await flushScripts(state);
    await rule(state, "k2");
    await state.renew([{ key: "k2-c", lease: "z" }]);
    const { eval: whole, evalsha: bySha } = sent();
    assert.ok(whole <= 2 * 3, `${whole} scripts sent whole`);
    assert.ok(bySha >= 15, `${bySha} scripts sent by SHA1`);
  } finally {
    await state.close();
  }
});

// The start-up race (found as a flaky two-process test): a gateway that served before its Redis
// connection was made counted its first requests in its own memory, so two processes each admitted
// a key's whole limit. The app waits for RateLimiter.ready before it listens.
test("a limiter that is ready counts its first request in Redis; one asked at once falls back", async (t) => {
  if (!(await requireRedis(t))) return;
  const caller: Caller = { keyId: "k", accountId: "a", kind: "payg", limits: { rpm: 5 } };
  for (const waits of [true, false]) {
    const warnings: string[] = [];
    const state = new RedisLimitState(REDIS_URL, `switchyard-test-${randomUUID()}:`);
    const limiter = new RateLimiter({ shared: state, warn: (m) => warnings.push(m) });
    try {
      if (waits) await limiter.ready(2_000);
      (await limiter.admit(caller, "openai-chat", () => 0))?.end();
      assert.deepEqual(warnings.length > 0, !waits, warnings.join("; "));
    } finally {
      await limiter.close();
    }
  }
});
