// Endpoint health end to end: the circuit breaker keeps traffic away from an endpoint that keeps
// failing and probes it again after the cool-down (half-open); an upstream's retry-after keeps it
// aside for that long; an endpoint that is the only one is still tried; failures in the middle of a
// stream count, failures caused by the request do not.

import assert from "node:assert/strict";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, beforeEach, test } from "node:test";
import { DEFAULT_TEXT, type FakeUpstream, startFakeUpstream } from "../../fakes/index.ts";
import { baseConfig, type RunningGateway, startGateway } from "../../support/gateway.ts";
import { chat, fakeProvider, model, record, requestsFor } from "./support.ts";

const COOLDOWN_MS = 400;
const LIMIT = { timeout: 10_000 };

let gw: RunningGateway;
let a: FakeUpstream;
let b: FakeUpstream;

before(async () => {
  [a, b] = await Promise.all([startFakeUpstream("openai"), startFakeUpstream("openai")]);
  const dir = mkdtempSync(join(tmpdir(), "switchyard-health-"));
  const pair = ["h/brk", "h/reopen", "h/ra", "h/mid", "h/400"].map((id) => model(id, ["a", "b"]));
  gw = await startGateway(
    baseConfig(dir, {
      providers: [fakeProvider("a", a), fakeProvider("b", b)],
      models: [...pair, model("h/solo", ["a"]), model("h/solo-brk", ["a"])],
      routing: { health: { failure_threshold: 2, cooldown_ms: COOLDOWN_MS } },
    }),
  );
});
after(async () => {
  await gw?.stop();
  await Promise.all([a?.close(), b?.close()]);
});
beforeEach(() => {
  a.reset();
  b.reset();
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function ask(modelId: string, stream = false) {
  const r = await chat(gw, { model: modelId, stream });
  return { r, rec: await record(gw, r.generationId), provider: r.headers.get("x-switchyard-provider") };
}

test("the breaker opens after consecutive failures, then one probe closes it again", LIMIT, async () => {
  a.script({ status: 500 }, { status: 500 });
  for (let i = 0; i < 2; i++) {
    const { provider, rec } = await ask("h/brk");
    assert.equal(provider, "b");
    assert.equal(rec.requestRetryTimes, 1);
  }
  // Open: a is not even tried.
  const skipped = await ask("h/brk");
  assert.equal(skipped.provider, "b");
  assert.equal(skipped.rec.requestRetryTimes, 0);
  assert.equal(requestsFor(a, "brk").length, 2);
  // After the cool-down, one request probes a; it answers, and the breaker is closed.
  await sleep(COOLDOWN_MS + 50);
  assert.equal((await ask("h/brk")).provider, "a");
  assert.equal((await ask("h/brk")).provider, "a");
});

test("a failed probe opens the breaker again for another cool-down", LIMIT, async () => {
  a.script({ status: 500 }, { status: 500 });
  await ask("h/reopen");
  await ask("h/reopen");
  await sleep(COOLDOWN_MS + 50);
  a.script({ status: 503 });
  const probed = await ask("h/reopen");
  assert.equal(probed.provider, "b");
  assert.equal(probed.rec.requestRetryTimes, 1, "the probe went to a and failed");
  const after = await ask("h/reopen");
  assert.equal(after.rec.requestRetryTimes, 0, "a is skipped again");
  assert.equal(requestsFor(a, "reopen").length, 3);
});

test("retry-after keeps an endpoint aside for that long", LIMIT, async () => {
  a.script({ status: 429, headers: { "retry-after": "1" } });
  const started = Date.now();
  assert.equal((await ask("h/ra")).provider, "b");
  const aside = await ask("h/ra");
  assert.equal(aside.provider, "b");
  assert.equal(aside.rec.requestRetryTimes, 0);
  assert.equal(requestsFor(a, "ra").length, 1);
  await sleep(Math.max(0, 1050 - (Date.now() - started)));
  assert.equal((await ask("h/ra")).provider, "a");
});

test("an endpoint that asked for retry-after is still tried when it is the only one", LIMIT, async () => {
  a.script({ status: 429, headers: { "retry-after": "1" } });
  const limited = await ask("h/solo");
  assert.equal(limited.r.status, 429);
  assert.equal(limited.r.headers.get("retry-after"), "1");
  const next = await ask("h/solo");
  assert.equal(next.r.status, 200);
  assert.equal(next.provider, "a");
});

test("an open breaker on the only endpoint still lets requests through", LIMIT, async () => {
  a.script({ status: 500 }, { status: 500 });
  assert.equal((await ask("h/solo-brk")).r.status, 500);
  assert.equal((await ask("h/solo-brk")).r.status, 500);
  assert.equal((await ask("h/solo-brk")).r.status, 200);
});

test("failures after the first byte count against the endpoint", LIMIT, async () => {
  const broken = {
    blocks: [{ type: "text" as const, text: DEFAULT_TEXT }],
    chunkDelayMs: 20,
    fault: "midstream-error" as const,
  };
  a.script(broken, broken);
  for (let i = 0; i < 2; i++) {
    const { r, rec } = await ask("h/mid", true);
    assert.equal(r.status, 200);
    assert.ok(
      r.frames!.some((f) => f !== "[DONE]" && f.error),
      "the stream ended in an error",
    );
    assert.equal(rec.status, "failed");
  }
  const next = await ask("h/mid", true);
  assert.equal(next.provider, "b");
  assert.equal(next.rec.requestRetryTimes, 0);
});

test("errors caused by the request do not count against the endpoint", LIMIT, async () => {
  a.script({ status: 400 }, { status: 400 }, { status: 400 });
  for (let i = 0; i < 3; i++) assert.equal((await ask("h/400")).r.status, 400);
  const next = await ask("h/400");
  assert.equal(next.provider, "a");
  assert.equal(next.r.status, 200);
});
