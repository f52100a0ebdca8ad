// Scale-out: gateway processes configured with the same `redis.url` share round-robin turns and
// circuit breakers, so traffic is spread (and a failing endpoint avoided) across the whole fleet.

import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { startFakeUpstream } from "../../fakes/index.ts";
import { baseConfig, PAYG_KEY, type RunningGateway, startGateways } from "../../support/gateway.ts";
import { REDIS_URL, requireRedis } from "../../support/redis.ts";

test("two processes share round-robin turns and breakers through Redis", async (t) => {
  if (!(await requireRedis(t))) return;
  const [fa, fb] = await Promise.all([startFakeUpstream("openai"), startFakeUpstream("openai")]);
  const dir = mkdtempSync(join(tmpdir(), "switchyard-redis-"));
  // A model and providers of their own: round-robin turns and open breakers (kept for the 60 s
  // cool-down) left in Redis by an earlier run, or by another test, would otherwise steer this one.
  const run = randomUUID().slice(0, 8);
  const modelId = `shared/m-${run}`;
  const [a, b] = [`a-${run}`, `b-${run}`];
  const config = baseConfig(dir, {
    redis: { url: REDIS_URL },
    routing: { health: { failure_threshold: 2, cooldown_ms: 60000 } },
    providers: [
      { id: a, protocol: "openai", base_url: fa.url, api_key: "k" },
      { id: b, protocol: "openai", base_url: fb.url, api_key: "k" },
    ],
    models: [
      {
        id: modelId,
        display_name: "Shared",
        created: "2025-01-01",
        input_modalities: ["text"],
        output_modalities: ["text"],
        context_length: 100000,
        max_output_tokens: 4096,
        pricings: {
          prompt: [{ value: 1, unit: "perMTokens", currency: "USD" }],
          completion: [{ value: 1, unit: "perMTokens", currency: "USD" }],
        },
        endpoints: [
          { provider: a, model: "m" },
          { provider: b, model: "m" },
        ],
      },
    ],
  });
  const gateways: RunningGateway[] = [];
  try {
    gateways.push(...(await startGateways(config, 2)));
    const [one, two] = gateways;
    const ask = async (gw: RunningGateway, routing: Record<string, unknown>) => {
      const res = await fetch(`${gw.url}/v1/chat/completions`, {
        method: "POST",
        headers: { authorization: `Bearer ${PAYG_KEY}`, "content-type": "application/json" },
        body: JSON.stringify({
          model: modelId,
          messages: [{ role: "user", content: "hi" }],
          provider: { routing },
        }),
      });
      await res.text();
      return res.headers.get("x-switchyard-provider");
    };

    // Round robin: three turns on one process, the fourth on the other continues the same sequence.
    const rr = { type: "round_robin", fallback: "false" };
    const seen = [await ask(one, rr), await ask(one, rr), await ask(one, rr), await ask(two, rr)];
    const other = seen[0] === a ? b : a;
    assert.deepEqual(seen.slice(1), [other, seen[0], other]);

    // Breaker: endpoint a fails twice through process one; process two then avoids it.
    fa.script({ status: 500 }, { status: 500 });
    const prio = { type: "priority", fallback: "true" };
    assert.equal(await ask(one, prio), b);
    assert.equal(await ask(one, prio), b);
    const before = fa.requests.length;
    assert.equal(await ask(two, prio), b);
    assert.equal(fa.requests.length, before, "process two did not send to the open breaker");
  } finally {
    await Promise.all(gateways.map((g) => g.stop()));
    await Promise.all([fa.close(), fb.close()]);
  }
});
