// Key limits across processes: gateways on one Redis (and one prefix) share a key's count; with its
// Redis unreachable a gateway still serves, and limits each key in its own memory.

import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { fakeModel } from "../../support/config.ts";
import { freePort } from "../../support/free-port.ts";
import { type RunningGateway, startGateway, startGateways } from "../../support/gateway.ts";
import { REDIS_URL, requireRedis } from "../../support/redis.ts";

const KEY = "sk-test-shared-rpm-0123456789";
const ONE_AT_A_TIME = "sk-test-shared-concurrency-0123456789";

function config(redisUrl: string, prefix: string): Record<string, unknown> {
  const dir = mkdtempSync(join(tmpdir(), "switchyard-shared-limits-"));
  return {
    storage: { url: `sqlite:${join(dir, "switchyard.db")}` },
    redis: { url: redisUrl, prefix },
    providers: [{ id: "slow", protocol: "local", chunk_delay_ms: 60 }],
    models: [fakeModel("slow/echo-1", ["slow"], { upstream: "echo-1" })],
    keys: [
      { key: KEY, account: "acme", credits: 10, limits: { rpm: 2 } },
      { key: ONE_AT_A_TIME, account: "acme", credits: 10, limits: { concurrency: 1 } },
    ],
  };
}

function ask(
  gw: RunningGateway,
  opts: { key?: string; model?: string; stream?: boolean } = {},
): Promise<Response> {
  return fetch(`${gw.url}/v1/chat/completions`, {
    method: "POST",
    headers: { authorization: `Bearer ${opts.key ?? KEY}`, "content-type": "application/json" },
    body: JSON.stringify({
      model: opts.model ?? "local/echo-1",
      stream: opts.stream ?? false,
      messages: [{ role: "user", content: "a stream of a good many words, one piece at a time" }],
    }),
  });
}

test("two processes on one Redis share a key's requests per minute", async (t) => {
  if (!(await requireRedis(t))) return;
  // A prefix of this run's own: nothing left in Redis by another run counts.
  const shared = config(REDIS_URL, `switchyard-test-${randomUUID()}:`);
  const gateways = await startGateways(shared, 2);
  try {
    const [one, two] = gateways;
    assert.equal((await ask(one)).status, 200);
    assert.equal((await ask(two)).status, 200);
    const refused = [await ask(one), await ask(two)];
    for (const res of refused) {
      assert.equal(res.status, 429, await res.text());
      assert.ok(Number(res.headers.get("retry-after")) >= 1);
    }
    // Concurrency too: a stream held open through one process takes the key's only slot in the other.
    const streaming = await ask(one, { key: ONE_AT_A_TIME, model: "slow/echo-1", stream: true });
    assert.equal(streaming.status, 200);
    const second = await ask(two, { key: ONE_AT_A_TIME, model: "slow/echo-1" });
    assert.equal(second.status, 429, await second.text());
    await streaming.text(); // the first stream completes, and frees its slot (just after its last byte)
    let status = 0;
    for (let i = 0; i < 50 && status !== 200; i++) {
      if (i > 0) await new Promise((r) => setTimeout(r, 20));
      status = (await ask(two, { key: ONE_AT_A_TIME })).status;
    }
    assert.equal(status, 200);

    // Another deployment (another prefix) on the same Redis counts apart.
    const other = await startGateway(config(REDIS_URL, `switchyard-test-${randomUUID()}:`));
    gateways.push(other);
    assert.equal((await ask(other)).status, 200);
  } finally {
    await Promise.all(gateways.map((gw) => gw.stop()));
  }
});

test("with its Redis unreachable, a gateway serves and limits each key in its own memory", async () => {
  const gw = await startGateway(config(`redis://127.0.0.1:${await freePort()}`, "switchyard-test:"));
  try {
    assert.equal((await ask(gw)).status, 200);
    assert.equal((await ask(gw)).status, 200);
    assert.equal((await ask(gw)).status, 429);
    await gw.waitForOutput(/shared key limits unavailable, using this process's own/);
  } finally {
    await gw.stop();
  }
});
