import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { GatewayError } from "../../src/ir/errors.ts";
import { EndpointHealth } from "../../src/routing/health.ts";
import { isEndpointFault, isRetryable } from "../../src/routing/retryable.ts";
import { MemoryRoutingState } from "../../src/routing/state.ts";
import { Clock } from "./clock.ts";
import { CountingState } from "./counting-state.ts";

const SETTINGS = { failureThreshold: 3, cooldownMs: 1000, statsTtlMs: 10_000 };
const upstream = (status: number, retryAfter?: number) =>
  new GatewayError("api_error", `upstream ${status}`, { status, retryAfter });

function setup() {
  const clock = new Clock();
  const health = new EndpointHealth(new MemoryRoutingState({ now: clock.now }), SETTINGS, { now: clock.now });
  return { clock, health };
}

describe("retryable failures", () => {
  test("no answer, 408, 429, 5xx and endpoint-specific 401/403/404 are retried; the request's own 4xx are not", () => {
    for (const status of [401, 403, 404, 408, 429, 500, 502, 503, 504, 529])
      assert.ok(isRetryable(upstream(status)), `${status}`);
    for (const status of [400, 413, 422, 499]) assert.ok(!isRetryable(upstream(status)), `${status}`);
    assert.ok(!isRetryable(new Error("not a gateway error")));
  });

  test("a 429 is retried elsewhere but does not feed the breaker", () => {
    assert.ok(!isEndpointFault(upstream(429)));
    assert.ok(isEndpointFault(upstream(503)));
  });
});

describe("EndpointHealth breaker", () => {
  test("opens after the threshold of consecutive faults, for the cool-down", async () => {
    const { clock, health } = setup();
    for (let i = 0; i < 2; i++) await health.failed("e", upstream(502));
    assert.deepEqual(await health.availability("e"), { state: "closed" });
    await health.failed("e", upstream(502));
    assert.deepEqual(await health.availability("e"), { state: "blocked", reason: "breaker", forMs: 1000 });
    clock.advance(600);
    assert.deepEqual(await health.availability("e"), { state: "blocked", reason: "breaker", forMs: 400 });
  });

  test("a success in between resets the count", async () => {
    const { health } = setup();
    await health.failed("e", upstream(500));
    await health.failed("e", upstream(500));
    await health.succeeded("e");
    await health.failed("e", upstream(500));
    await health.failed("e", upstream(500));
    assert.deepEqual(await health.availability("e"), { state: "closed" });
  });

  test("after the cool-down one probe goes through; its success closes the breaker", async () => {
    const { clock, health } = setup();
    for (let i = 0; i < 3; i++) await health.failed("e", upstream(500));
    clock.advance(1000);
    assert.deepEqual(await health.availability("e"), { state: "half-open" });
    assert.equal(await health.claimProbe("e"), true);
    assert.equal(await health.claimProbe("e"), false, "one probe at a time");
    assert.equal((await health.availability("e")).state, "blocked");
    await health.succeeded("e");
    assert.deepEqual(await health.availability("e"), { state: "closed" });
  });

  test("a failed probe opens the breaker for another cool-down", async () => {
    const { clock, health } = setup();
    for (let i = 0; i < 3; i++) await health.failed("e", upstream(500));
    clock.advance(1000);
    assert.equal(await health.claimProbe("e"), true);
    await health.failed("e", upstream(504));
    assert.deepEqual(await health.availability("e"), { state: "blocked", reason: "breaker", forMs: 1000 });
    clock.advance(1000);
    assert.deepEqual(await health.availability("e"), { state: "half-open" }, "the old probe mark is gone");
  });

  test("the request's own errors and rate limits never open it", async () => {
    const { health } = setup();
    for (let i = 0; i < 5; i++) {
      await health.failed("e", upstream(400));
      await health.failed("e", upstream(429));
    }
    assert.deepEqual(await health.availability("e"), { state: "closed" });
    const stats = await health.stats("e");
    assert.equal(stats.errors, 5, "429s are counted as errors");
    assert.equal(stats.consecutiveFailures, 0);
  });
});

describe("EndpointHealth retry-after", () => {
  test("keeps the endpoint aside for the seconds asked, capped at ten minutes", async () => {
    const { clock, health } = setup();
    await health.failed("e", upstream(429, 2));
    assert.deepEqual(await health.availability("e"), {
      state: "blocked",
      reason: "retry-after",
      forMs: 2000,
    });
    clock.advance(2000);
    assert.deepEqual(await health.availability("e"), { state: "closed" });
    await health.failed("e", upstream(503, 86_400));
    assert.deepEqual(await health.availability("e"), {
      state: "blocked",
      reason: "retry-after",
      forMs: 600_000,
    });
  });
});

describe("EndpointHealth latency", () => {
  test("a moving average weighted towards the latest samples", async () => {
    const { health } = setup();
    await health.recordLatency("e", { ttftMs: 100 });
    assert.equal((await health.stats("e")).ttftMs, 100);
    await health.recordLatency("e", { ttftMs: 200, tokensPerSecond: 50 });
    const stats = await health.stats("e");
    assert.equal(stats.ttftMs, 130);
    assert.equal(stats.tokensPerSecond, 50);
    assert.equal(stats.durationMs, undefined);
  });

  test("samples older than stats_ttl_ms no longer count, and a new one starts afresh", async () => {
    const { clock, health } = setup();
    await health.recordLatency("e", { ttftMs: 100, durationMs: 400 });
    clock.advance(10_001);
    const stats = await health.stats("e");
    assert.equal(stats.ttftMs, undefined);
    assert.equal(stats.durationMs, undefined);
    await health.recordLatency("e", { ttftMs: 40 });
    assert.equal((await health.stats("e")).ttftMs, 40);
  });

  test("nonsense samples are ignored", async () => {
    const { health } = setup();
    await health.recordLatency("e", { ttftMs: Number.NaN, durationMs: -1 });
    assert.deepEqual(await health.stats("e"), {
      ok: 0,
      errors: 0,
      consecutiveFailures: 0,
      ttftMs: undefined,
      durationMs: undefined,
      tokensPerSecond: undefined,
    });
  });
});

describe("EndpointHealth success", () => {
  function counted() {
    const clock = new Clock();
    const memory = new MemoryRoutingState({ now: clock.now });
    const state = new CountingState(memory);
    return { clock, memory, state, health: new EndpointHealth(state, SETTINGS, { now: clock.now }) };
  }

  test("folds its timings into the statistics the plan read, without reading them again", async () => {
    const { state, health } = counted();
    await health.recordLatency("e", { ttftMs: 100 });
    const { hash } = await health.read("e");
    state.take();
    await health.succeeded("e", { ttftMs: 200 }, { statsAtPlan: hash });
    assert.deepEqual(state.take(), ["addToHash stats:e", "setInHash stats:e"]);
    assert.equal((await health.stats("e")).ttftMs, 130);
  });

  test("without what the plan read, the statistics are read again", async () => {
    const { state, health } = counted();
    await health.recordLatency("e", { ttftMs: 100 });
    state.take();
    await health.succeeded("e", { ttftMs: 200 });
    assert.deepEqual(state.take(), ["addToHash stats:e", "readHash stats:e", "setInHash stats:e"]);
    assert.equal((await health.stats("e")).ttftMs, 130);
  });

  test("with nothing to reset and no valid timing, it only counts", async () => {
    const { state, health } = counted();
    await health.succeeded("e", { ttftMs: Number.NaN });
    await health.succeeded("e");
    assert.deepEqual(state.take(), ["addToHash stats:e", "addToHash stats:e"]);
    assert.equal((await health.stats("e")).ok, 2);
  });

  test("a probe claimed just as another success closed the breaker is freed by its own success", async () => {
    const { clock, memory, health } = counted();
    for (let i = 0; i < 3; i++) await health.failed("e", upstream(500));
    clock.advance(1000);
    assert.deepEqual(await health.availability("e"), { state: "half-open" });
    await health.succeeded("e"); // another request, planned earlier, closes the breaker
    assert.equal(await health.claimProbe("e"), true, "this request read half-open before that");
    await health.succeeded("e", { ttftMs: 10 }, { probe: true });
    assert.equal(await memory.markedFor("probe:e"), 0);
  });
});
