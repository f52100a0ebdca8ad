import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { CatalogModel } from "../../src/catalog/types.ts";
import { GatewayError } from "../../src/ir/errors.ts";
import type { Request, RoutingRequest } from "../../src/ir/request.ts";
import { candidatesOf } from "../../src/routing/plan.ts";
import { Router } from "../../src/routing/router.ts";
import { DEFAULT_ROUTING } from "../../src/routing/settings.ts";
import { MemoryRoutingState } from "../../src/routing/state.ts";
import { Clock, catalogModel } from "./clock.ts";
import { CountingState } from "./counting-state.ts";

const models = [
  catalogModel("p/main", ["a", "b", "c"], { prompt: 1, completion: 2, qualityRank: 5 }),
  catalogModel("p/cheap", ["d"], { prompt: 0.1, completion: 0.2, qualityRank: 1 }),
  catalogModel("p/good", ["e"], { prompt: 5, completion: 10, qualityRank: 9 }),
  catalogModel("p/rr", ["a", "b", "c"], { routing: { type: "round_robin" } }),
];
const lookup = {
  resolve(name: string, opts: { param?: string }): CatalogModel {
    const found = models.find((m) => m.id === name);
    if (!found) throw new GatewayError("not_found", `no ${name}`, { param: opts.param ?? "model" });
    return found;
  },
};
const request = (routing?: RoutingRequest) => ({ routing }) as Request;
const main = models[0];
const plan = async (router: Router, routing?: RoutingRequest, model = main) =>
  (await router.plan(request(routing), model)).map((a) => `${a.model.id}@${a.endpoint.provider}`);

describe("Router.plan", () => {
  test("round_robin from the model's default: 1000 plans spread over 3 endpoints within ±5 %", async () => {
    const router = new Router({ models: lookup });
    const first: Record<string, number> = {};
    for (let i = 0; i < 1000; i++) {
      const [top] = await router.plan(request(), models[3]);
      first[top.endpoint.provider] = (first[top.endpoint.provider] ?? 0) + 1;
    }
    assert.deepEqual(Object.keys(first).sort(), ["a", "b", "c"]);
    for (const n of Object.values(first))
      assert.ok(Math.abs(n - 1000 / 3) <= 1000 / 3 / 20, JSON.stringify(first));
  });

  test("the configuration's default applies when neither request nor model says", async () => {
    const settings = { ...DEFAULT_ROUTING, defaults: { fallback: "false" as const } };
    assert.deepEqual(await plan(new Router({ models: lookup, settings })), ["p/main@a"]);
    assert.deepEqual(await plan(new Router({ models: lookup })), ["p/main@a", "p/main@b", "p/main@c"]);
  });

  test("least_latency follows the recorded time to first token", async () => {
    const router = new Router({ models: lookup });
    for (const [provider, ttftMs] of [
      ["a", 300],
      ["b", 20],
      ["c", 90],
    ] as const)
      await router.health.recordLatency(`${provider}|main`, { ttftMs });
    assert.deepEqual(await plan(router, { type: "least_latency" }), ["p/main@b", "p/main@c", "p/main@a"]);
  });

  test("model-level fallback: the requested model, then preference, then available models", async () => {
    const router = new Router({ models: lookup });
    assert.deepEqual(
      await plan(router, { availableModels: ["p/cheap", "p/good"], providers: ["a", "d", "e"] }),
      ["p/main@a", "p/cheap@d", "p/good@e"],
    );
    assert.deepEqual(
      await plan(router, {
        availableModels: ["p/cheap"],
        preference: "p/good",
        fallback: "true",
        providers: ["a", "d", "e"],
      }),
      ["p/good@e", "p/main@a", "p/cheap@d"],
    );
  });

  test("primary_factor orders the models: cost cheapest first, quality best first", async () => {
    const router = new Router({ models: lookup });
    const some = { availableModels: ["p/good", "p/cheap"], providers: ["a", "d", "e"] };
    assert.deepEqual(await plan(router, { ...some, primaryFactor: "cost" }), [
      "p/cheap@d",
      "p/main@a",
      "p/good@e",
    ]);
    assert.deepEqual(await plan(router, { ...some, primaryFactor: "quality" }), [
      "p/good@e",
      "p/main@a",
      "p/cheap@d",
    ]);
  });

  test("an unknown model in model_routing_config is a 404 naming the field", async () => {
    const router = new Router({ models: lookup });
    await assert.rejects(
      router.plan(request({ availableModels: ["p/cheap", "nope/x"] }), main),
      (err: GatewayError) => {
        return err.status === 404 && err.param === "model_routing_config.available_models[1]";
      },
    );
  });

  test("providers that serve nothing: the caller's 400, or a 503 when a default says so", async () => {
    const router = new Router({ models: lookup });
    await assert.rejects(router.plan(request({ providers: ["zz"] }), main), (err: GatewayError) => {
      return err.status === 400 && err.param === "provider.routing.providers";
    });
    const restricted = { ...main, routing: { providers: ["zz"] } };
    await assert.rejects(router.plan(request(), restricted), (err: GatewayError) => err.status === 503);
  });

  test("an endpoint the breaker opened is skipped until its cool-down ends", async () => {
    const clock = new Clock();
    const settings = {
      ...DEFAULT_ROUTING,
      health: { ...DEFAULT_ROUTING.health, failureThreshold: 1, cooldownMs: 100 },
    };
    const router = new Router({ models: lookup, settings, now: clock.now });
    await router.health.failed("a|main", new GatewayError("api_error", "down", { status: 502 }));
    assert.deepEqual(await plan(router), ["p/main@b", "p/main@c"]);
    clock.advance(100);
    const probed = await router.plan(request(), main);
    assert.equal(probed[0].endpoint.provider, "a");
    assert.equal(probed[0].probe, true, "this request holds a's probe");
    assert.deepEqual(await plan(router), ["p/main@b", "p/main@c"], "another request meanwhile skips a");
  });

  test("a plan follows the breaker and retry-after through open, paused, half-open and closed again", async () => {
    const settings = {
      ...DEFAULT_ROUTING,
      health: { ...DEFAULT_ROUTING.health, failureThreshold: 2, cooldownMs: 100 },
    };
    const down = new GatewayError("api_error", "down", { status: 502 });
    const slowDown = new GatewayError("api_error", "later", { status: 429, retryAfter: 0.05 });
    const scenario = async () => {
      const clock = new Clock();
      const state = new MemoryRoutingState({ now: clock.now });
      const router = new Router({ models: lookup, settings, state, now: clock.now });
      const seen: string[][] = [];
      const look = async () => {
        const planned = await router.plan(request(), main);
        seen.push(planned.map((a) => `${a.endpoint.provider}${a.probe ? "(probe)" : ""}`));
        return planned;
      };
      await look();
      await router.health.failed("a|main", down);
      await look(); // one failure: still closed
      await router.health.failed("a|main", down);
      await look(); // open
      await router.health.failed("b|main", slowDown);
      await look(); // b paused too
      clock.advance(60);
      await look(); // b's pause is over
      clock.advance(40);
      const probing = await look(); // a half-open: this request holds its probe
      await look(); // another request meanwhile
      const answered = await router.run(probing, { signal: new AbortController().signal }, async () => "ok");
      await router.finished(answered, { sample: { durationMs: 5 } });
      await look(); // closed again
      return seen;
    };
    assert.deepEqual(await scenario(), [
      ["a", "b", "c"],
      ["a", "b", "c"],
      ["b", "c"],
      ["c"],
      ["b", "c"],
      ["a(probe)", "b", "c"],
      ["b", "c"],
      ["a", "b", "c"],
    ]);
  });

  test("a probe claimed for an endpoint the plan leaves out is given back", async () => {
    const clock = new Clock();
    const settings = {
      ...DEFAULT_ROUTING,
      health: { ...DEFAULT_ROUTING.health, failureThreshold: 1, cooldownMs: 100 },
    };
    const router = new Router({ models: lookup, settings, now: clock.now });
    await router.health.failed("b|main", new GatewayError("api_error", "down", { status: 502 }));
    clock.advance(100);
    assert.deepEqual(await plan(router, { fallback: "false" }), ["p/main@a"]);
    assert.equal(await router.health.claimProbe("b|main"), true, "b's probe was not kept");
  });
});

describe("Router: state operations per request", () => {
  // With Redis, each operation is a round trip.
  const one = catalogModel("p/one", ["a"]);
  const breakerAt = (failureThreshold: number) => ({
    ...DEFAULT_ROUTING,
    health: { ...DEFAULT_ROUTING.health, failureThreshold, cooldownMs: 100 },
  });
  const answer = async (router: Router) => {
    const planned = await router.plan(request(), one);
    return router.run(planned, { signal: new AbortController().signal }, async () => "ok");
  };
  const down = new GatewayError("api_error", "down", { status: 502 });

  test("a success on a closed endpoint: two reads to plan it, one count and one write to finish it", async () => {
    const state = new CountingState();
    const router = new Router({ models: lookup, state });
    const answered = await answer(router);
    assert.deepEqual(state.take(), ["markedFor cooldown:a|one", "readHash stats:a|one"]);
    await router.finished(answered, { sample: { durationMs: 40 } });
    assert.deepEqual(state.take(), ["addToHash stats:a|one", "setInHash stats:a|one"]);
    await router.finished(await answer(router), { sample: { durationMs: 100 } });
    assert.equal(state.take().length, 4, "the next request costs the same");
    const stats = await router.health.stats("a|one");
    assert.equal(stats.ok, 2);
    assert.equal(stats.durationMs, 40 * 0.7 + 100 * 0.3, "the average started from what the plan read");
  });

  test("a success after a failure resets the count in the same write", async () => {
    const state = new CountingState();
    const router = new Router({ models: lookup, state });
    await router.health.failed("a|one", down);
    const answered = await answer(router);
    state.take();
    await router.finished(answered, { sample: { durationMs: 40 } });
    assert.deepEqual(state.take(), ["addToHash stats:a|one", "setInHash stats:a|one"]);
    assert.equal((await router.health.stats("a|one")).consecutiveFailures, 0);
  });

  test("a success planned while closed still closes a breaker other requests opened meanwhile", async () => {
    const router = new Router({ models: lookup, settings: breakerAt(2) });
    const answered = await answer(router);
    await router.health.failed("a|one", down);
    await router.health.failed("a|one", down);
    assert.equal((await router.health.availability("a|one")).state, "blocked");
    await router.finished(answered, { sample: { durationMs: 40 } });
    assert.deepEqual(await router.health.availability("a|one"), { state: "closed" });
  });

  test("a probe's success closes the breaker and gives the probe back", async () => {
    const clock = new Clock();
    const state = new CountingState(new MemoryRoutingState({ now: clock.now }));
    const router = new Router({ models: lookup, settings: breakerAt(1), state, now: clock.now });
    await router.health.failed("a|one", down);
    clock.advance(100);
    const answered = await answer(router);
    assert.equal(answered.attempt.probe, true);
    state.take();
    await router.finished(answered, { sample: { durationMs: 40 } });
    assert.deepEqual(state.take(), [
      "addToHash stats:a|one",
      "setInHash stats:a|one",
      "unmark open:a|one",
      "unmark probe:a|one",
    ]);
    assert.deepEqual(await router.health.availability("a|one"), { state: "closed" });
    assert.equal(await state.markedFor("probe:a|one"), 0);
  });

  test("the candidates of a model are built once and shared, frozen", async () => {
    const router = new Router({ models: lookup });
    const [first] = await router.plan(request(), one);
    const [second] = await router.plan(request(), one);
    assert.notEqual(first, second, "each request gets its own attempts");
    assert.equal(first.endpoint, second.endpoint);
    assert.ok(Object.isFrozen(candidatesOf(one)));
    assert.equal(candidatesOf(one), candidatesOf(one));
  });
});
