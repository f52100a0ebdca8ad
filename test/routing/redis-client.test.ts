// connectedWithin (src/routing/redis-client.ts): what the gateway waits for before it listens, for
// its routing state and its key limits alike.

import assert from "node:assert/strict";
import { test } from "node:test";
import { connectedWithin, loadRedis } from "../../src/routing/redis-client.ts";
import { freePort } from "../support/free-port.ts";
import { REDIS_URL, requireRedis } from "../support/redis.ts";

const client = (url: string) => {
  const redis = new (loadRedis())(url, { enableOfflineQueue: false, retryStrategy: () => 100 });
  redis.on("error", () => {});
  return redis;
};

test("a reachable Redis is connected when the wait ends", async (t) => {
  if (!(await requireRedis(t))) return;
  const redis = client(REDIS_URL);
  try {
    assert.notEqual(redis.status, "ready");
    await connectedWithin(redis, 5_000);
    assert.equal(redis.status, "ready");
    // Its commands now run instead of failing at once for want of a connection.
    assert.equal(await redis.ping(), "PONG");
  } finally {
    redis.disconnect();
  }
});

test("an unreachable Redis is waited for no longer than asked", async () => {
  const redis = client(`redis://127.0.0.1:${await freePort()}`);
  try {
    const began = performance.now();
    await connectedWithin(redis, 300);
    const waited = performance.now() - began;
    assert.ok(waited >= 250 && waited < 2_000, `${waited} ms`);
    assert.notEqual(redis.status, "ready");
  } finally {
    redis.disconnect();
  }
});
