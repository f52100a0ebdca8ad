import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { GatewayError } from "../../src/ir/errors.ts";
import { type AttemptReport, runAttempts } from "../../src/routing/attempts.ts";
import { EndpointHealth, ProbeClaim } from "../../src/routing/health.ts";
import { candidatesOf, type PlannedAttempt } from "../../src/routing/plan.ts";
import { DEFAULT_HEALTH } from "../../src/routing/settings.ts";
import { MemoryRoutingState } from "../../src/routing/state.ts";
import { catalogModel } from "./clock.ts";

const model = catalogModel("p/m", ["a", "b", "c"]);
/** The plan, holding the probes named (claimed beforehand by the test, as the router would). */
const plan = (probes: string[] = [], health?: EndpointHealth): PlannedAttempt[] =>
  candidatesOf(model).map((c) => {
    const probe = probes.includes(c.endpoint.provider);
    return { ...c, probe, claim: probe && health ? new ProbeClaim(health, c.key) : undefined };
  });
const failing = (status: number) => new GatewayError("api_error", `upstream ${status}`, { status });

function setup() {
  const health = new EndpointHealth(new MemoryRoutingState(), { ...DEFAULT_HEALTH, failureThreshold: 1 });
  const reports: AttemptReport[] = [];
  const tried: string[] = [];
  const client = new AbortController();
  return {
    health,
    reports,
    tried,
    client,
    opts: { signal: client.signal, onAttempt: (r: AttemptReport) => reports.push(r) },
  };
}

describe("runAttempts", () => {
  test("a retryable failure moves to the next endpoint; the answer says who answered", async () => {
    const { health, reports, tried, opts } = setup();
    const answered = await runAttempts(plan(), health, opts, async (attempt) => {
      tried.push(attempt.endpoint.provider);
      if (attempt.endpoint.provider === "a") throw failing(503);
      return "ok";
    });
    assert.equal(answered.value, "ok");
    assert.equal(answered.attempt.endpoint.provider, "b");
    assert.deepEqual(tried, ["a", "b"]);
    assert.deepEqual(
      reports.map((r) => [r.attempts, r.attempt.endpoint.provider, r.final]),
      [
        [1, "a", false],
        [2, "b", false],
      ],
    );
    assert.equal((await health.availability("a|m")).state, "blocked", "the failure was recorded");
  });

  test("a call that throws before it returns a promise fails its attempt like a rejection", async () => {
    const { health, tried, opts } = setup();
    const answered = await runAttempts(plan(), health, opts, (attempt) => {
      tried.push(attempt.endpoint.provider);
      if (attempt.endpoint.provider === "a") throw failing(503); // thrown, not a rejected promise
      return Promise.resolve("ok");
    });
    assert.equal(answered.attempt.endpoint.provider, "b");
    assert.deepEqual(tried, ["a", "b"]);
    assert.equal((await health.availability("a|m")).state, "blocked", "the failure was recorded");
  });

  test("the last planned endpoint is the final one; when all fail, the last error is thrown", async () => {
    const { health, reports, opts } = setup();
    await assert.rejects(
      runAttempts(plan(), health, opts, async (attempt) => {
        throw failing(attempt.endpoint.provider === "c" ? 504 : 500);
      }),
      (err: GatewayError) => err.status === 504,
    );
    assert.deepEqual(
      reports.map((r) => r.final),
      [false, false, true],
    );
  });

  test("a failure the request caused ends the run at once", async () => {
    const { health, tried, opts } = setup();
    await assert.rejects(
      runAttempts(plan(), health, opts, async (attempt) => {
        tried.push(attempt.endpoint.provider);
        throw failing(400);
      }),
      (err: GatewayError) => err.status === 400,
    );
    assert.deepEqual(tried, ["a"]);
    assert.equal((await health.availability("a|m")).state, "closed", "the endpoint is not blamed");
  });

  test("a client that goes away ends the run, and the endpoint is not blamed", async () => {
    const { health, tried, client, opts } = setup();
    await assert.rejects(
      runAttempts(plan(), health, opts, async (attempt, signal) => {
        tried.push(attempt.endpoint.provider);
        client.abort();
        assert.ok(signal.aborted, "the attempt's signal follows the client's");
        throw failing(502);
      }),
    );
    assert.deepEqual(tried, ["a"]);
    assert.equal((await health.stats("a|m")).errors, 0);
  });

  test("firstByteMs: a slow attempt is aborted, reported as a 504, and the next one tried", async () => {
    const { health, tried, opts } = setup();
    const signals: AbortSignal[] = [];
    const started = performance.now();
    const answered = await runAttempts(
      plan(),
      health,
      { ...opts, firstByteMs: () => 50 },
      (attempt, signal) => {
        tried.push(attempt.endpoint.provider);
        signals.push(signal);
        if (attempt.endpoint.provider === "b") return Promise.resolve("fast");
        // Never answers by itself: only the abort ends it.
        return new Promise((_, reject) => signal.addEventListener("abort", () => reject(signal.reason)));
      },
    );
    assert.equal(answered.value, "fast");
    assert.deepEqual(tried, ["a", "b"]);
    assert.ok(signals[0].aborted, "the slow attempt was aborted");
    assert.ok(!signals[1].aborted);
    assert.ok(performance.now() - started < 1000);
    assert.equal((await health.stats("a|m")).errors, 1);
  });

  test("a failed attempt's signal is aborted, releasing its connection", async () => {
    const { health, opts } = setup();
    let first: AbortSignal | undefined;
    await runAttempts(plan(), health, opts, async (attempt, signal) => {
      if (attempt.endpoint.provider !== "a") return "ok";
      first = signal;
      throw failing(500);
    });
    assert.ok(first?.aborted);
  });

  test("probes held for endpoints never tried are given back", async () => {
    const { health, opts } = setup();
    for (const key of ["b|m", "c|m"]) assert.equal(await health.claimProbe(key), true);
    await runAttempts(plan(["b", "c"], health), health, opts, async () => "a answers");
    assert.equal(await health.claimProbe("b|m"), true, "b's probe is free again");
    assert.equal(await health.claimProbe("c|m"), true, "c's probe is free again");
  });

  test("a client that leaves gives back the probe of the endpoint it was trying", async () => {
    const { health, client, opts } = setup();
    assert.equal(await health.claimProbe("a|m"), true);
    await assert.rejects(
      runAttempts(plan(["a"], health), health, opts, async () => {
        client.abort();
        throw new Error("aborted");
      }),
    );
    assert.equal(await health.claimProbe("a|m"), true);
  });

  test("a probe is given back once: a second release cannot free the probe another request claimed since", async () => {
    const { health } = setup();
    assert.equal(await health.claimProbe("a|m"), true);
    const claim = new ProbeClaim(health, "a|m");
    await claim.release();
    assert.equal(await health.claimProbe("a|m"), true, "another request claims it");
    await claim.release();
    assert.equal(await health.claimProbe("a|m"), false, "still held by the other request");
  });

  test("a spent probe (its attempt failed) is not given back by a later release", async () => {
    const { health, opts } = setup();
    assert.equal(await health.claimProbe("a|m"), true);
    const attempts = plan(["a"], health);
    await assert.rejects(
      runAttempts(attempts, health, opts, async () => {
        throw failing(400);
      }),
    );
    assert.equal(await health.claimProbe("a|m"), false, "a's probe stays until its outcome clears it");
    await attempts[0].claim?.release();
    assert.equal(await health.claimProbe("a|m"), false);
  });
});
