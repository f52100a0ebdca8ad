import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { GatewayError } from "../../src/ir/errors.ts";
import { type RoutingChoice, routingChoice } from "../../src/routing/choice.ts";
import type { Availability } from "../../src/routing/health.ts";
import { type Candidate, candidatesOf, type PlanFacts, planAttempts } from "../../src/routing/plan.ts";
import { catalogModel } from "./clock.ts";

const model = catalogModel("p/m", ["a", "b", "c"]);
const other = catalogModel("q/n", ["d"]);
const [a, b, c] = candidatesOf(model);

function facts(availability: Record<string, Availability> = {}): PlanFacts {
  return {
    stats: () => ({ ok: 0, errors: 0, consecutiveFailures: 0 }),
    availability: (key) => availability[key] ?? { state: "closed" },
    turn: 1,
  };
}
const choice = (fields: Partial<RoutingChoice>): RoutingChoice => ({
  ...routingChoice(undefined, model, {}),
  ...fields,
});
const providers = (attempts: Candidate[]) => attempts.map((x) => x.endpoint.provider);

describe("planAttempts: fallback", () => {
  test('"true" keeps every endpoint, models in the order given', () => {
    const plan = planAttempts([[a, b, c], candidatesOf(other)], choice({ fallback: "true" }), facts());
    assert.deepEqual(providers(plan), ["a", "b", "c", "d"]);
    assert.equal(plan[3].model.id, "q/n");
  });

  test('"false" keeps the first', () => {
    assert.deepEqual(providers(planAttempts([[a, b, c]], choice({ fallback: "false" }), facts())), ["a"]);
  });

  test("a provider name: the first other endpoint, then that provider's", () => {
    assert.deepEqual(providers(planAttempts([[a, b, c]], choice({ fallback: "c" }), facts())), ["a", "c"]);
    assert.deepEqual(providers(planAttempts([[a, b, c]], choice({ fallback: "a" }), facts())), ["b", "a"]);
  });

  test("a named provider outside `providers` is still the one switched to", () => {
    const plan = planAttempts([[b]], choice({ fallback: "a", providers: ["b"] }), facts(), [a, c]);
    assert.deepEqual(providers(plan), ["b", "a"]);
  });

  test("a named provider that serves nothing: the caller's 400, or the primary alone for a default", () => {
    assert.throws(
      () => planAttempts([[a, b]], choice({ fallback: "zz", fallbackFromRequest: true }), facts()),
      (err: GatewayError) => err.status === 400 && err.param === "provider.routing.fallback",
    );
    assert.deepEqual(providers(planAttempts([[a, b]], choice({ fallback: "zz" }), facts())), ["a"]);
  });

  test("round_robin rotates each model's endpoints by the turn", () => {
    const plan = planAttempts([[a, b, c]], choice({ type: "round_robin" }), { ...facts(), turn: 2 });
    assert.deepEqual(providers(plan), ["b", "c", "a"]);
  });
});

describe("planAttempts: health", () => {
  const blocked = (forMs: number): Availability => ({ state: "blocked", reason: "breaker", forMs });

  test("blocked endpoints are left out; a half-open one (whose probe this request holds) is kept and marked", () => {
    const plan = planAttempts(
      [[a, b, c]],
      choice({}),
      facts({ [a.key]: blocked(500), [b.key]: { state: "half-open" } }),
    );
    assert.deepEqual(providers(plan), ["b", "c"]);
    assert.deepEqual(
      plan.map((x) => x.probe),
      [true, false],
    );
  });

  test("the skip happens before fallback false picks the first", () => {
    assert.deepEqual(
      providers(planAttempts([[a, b, c]], choice({ fallback: "false" }), facts({ [a.key]: blocked(500) }))),
      ["b"],
    );
  });

  test("when every endpoint is blocked, all are kept, the one free soonest first", () => {
    const plan = planAttempts(
      [[a, b, c]],
      choice({}),
      facts({
        [a.key]: blocked(900),
        [b.key]: blocked(100),
        [c.key]: { state: "blocked", reason: "retry-after", forMs: 500 },
      }),
    );
    assert.deepEqual(providers(plan), ["b", "c", "a"]);
  });
});

describe("planAttempts: what the plan read", () => {
  test("each attempt carries its endpoint's statistics hash, for the success to start from", () => {
    const hashes: Record<string, Record<string, number>> = { [a.key]: { ok: 3 }, [b.key]: { ok: 4 } };
    const plan = planAttempts([[a, b]], choice({}), { ...facts(), statsHash: (key) => hashes[key] });
    assert.deepEqual(
      plan.map((x) => x.statsAtPlan),
      [{ ok: 3 }, { ok: 4 }],
    );
  });
});
