// A generation's record has one owner of its end: GenerationRecorder.end(outcome), once. It stops the
// meter itself, writes what the routing reported (attempts, provider, the model whose prices apply),
// and a second end (a path that ends twice) writes nothing more.

import assert from "node:assert/strict";
import { test } from "node:test";
import { loadBuiltinCatalog } from "../../src/catalog/load.ts";
import { Meter } from "../../src/gateway/meter.ts";
import { Metrics } from "../../src/gateway/metrics.ts";
import { GenerationRecorder, UnwrittenStarts } from "../../src/gateway/recorder.ts";
import { Settlement } from "../../src/gateway/settlement.ts";
import type { Request } from "../../src/ir/request.ts";
import type { GenerationEnd, Store } from "../../src/ledger/types.ts";
import { candidatesOf } from "../../src/routing/plan.ts";

function recorder() {
  const written: GenerationEnd[] = [];
  const store = {
    recordGeneration: async (_start: unknown, end: GenerationEnd) => {
      written.push(end);
    },
  } as unknown as Store;
  const log = { error: () => {} };
  const settlement = new Settlement({ store, delayMs: 0, priceVersion: "test", log });
  const metrics = new Metrics();
  const [model, fallback] = loadBuiltinCatalog().filter((m) => m.id.startsWith("local/"));
  const generation = new GenerationRecorder({ store, settlement, log, metrics }, new UnwrittenStarts(), {
    id: "gen-1",
    caller: { keyId: "k", accountId: "acme", kind: "subscription" },
    model,
    api: "chat.completions",
    request: { stream: false } as Request,
    arrivedAt: performance.now(),
  });
  return { generation, written, metrics, fallback, settlement };
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 20));

test("a failure: the meter is stopped by end, the error and the routing's report are written, once", async () => {
  const { generation, written, metrics, fallback, settlement } = recorder();
  const [attempt] = candidatesOf(fallback);
  generation.attempted({ attempts: 2, attempt: { ...attempt, probe: false }, final: true });
  generation.pricedAs(fallback);
  const meter = new Meter();
  meter.observe({ type: "block_start", index: 0, block: { type: "text" } });
  generation.end(meter, { status: "failed", error: new Error("upstream broke") });
  const timeAtEnd = meter.generationTimeMs;
  generation.end(meter, { status: "completed" });
  await settle();
  settlement.stop();
  assert.equal(written.length, 1, "one end is written");
  assert.equal(written[0].status, "failed");
  assert.equal(written[0].errorMessage, "upstream broke");
  assert.equal(written[0].requestRetryTimes, 1);
  assert.equal(written[0].provider, attempt.endpoint.provider);
  assert.equal(written[0].model, fallback.id);
  await new Promise((resolve) => setTimeout(resolve, 15));
  assert.equal(meter.generationTimeMs, timeAtEnd, "the meter stopped at end");
  assert.match(
    metrics.render(),
    /switchyard_generations_total\{api="chat.completions",status="failed"\} 1\n/,
  );
  assert.doesNotMatch(metrics.render(), /status="completed"/);
});
