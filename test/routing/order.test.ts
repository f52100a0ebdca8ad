// Strategies (one model's endpoints), factors (which model first) and the routing choice (which
// settings apply).

import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { routingChoice } from "../../src/routing/choice.ts";
import { blendedPrice, orderModels } from "../../src/routing/factors.ts";
import type { EndpointStats } from "../../src/routing/health.ts";
import { orderEndpoints, rotate } from "../../src/routing/strategies.ts";
import { catalogModel } from "./clock.ts";

const none: EndpointStats = { ok: 0, errors: 0, consecutiveFailures: 0 };
const statsOf = (table: Record<string, Partial<EndpointStats>>) => (e: string) => ({ ...none, ...table[e] });

describe("strategies", () => {
  test("priority keeps the listed order", () => {
    assert.deepEqual(
      orderEndpoints(["a", "b", "c"], "priority", { turn: 7, stats: statsOf({ a: { ttftMs: 900 } }) }),
      ["a", "b", "c"],
    );
  });

  test("round_robin rotates the start by turn", () => {
    assert.deepEqual(rotate(["a", "b", "c"], 1), ["a", "b", "c"]);
    assert.deepEqual(rotate(["a", "b", "c"], 2), ["b", "c", "a"]);
    assert.deepEqual(rotate(["a", "b", "c"], 6), ["c", "a", "b"]);
    assert.deepEqual(rotate(["a"], 5), ["a"]);
  });

  test("round_robin spreads 1000 requests over 3 endpoints within ±5 %", () => {
    const first: Record<string, number> = { a: 0, b: 0, c: 0 };
    for (let turn = 1; turn <= 1000; turn++)
      first[orderEndpoints(["a", "b", "c"], "round_robin", { turn, stats: statsOf({}) })[0]]++;
    for (const n of Object.values(first))
      assert.ok(Math.abs(n - 1000 / 3) <= (1000 / 3) * 0.05, JSON.stringify(first));
  });

  test("least_latency: unmeasured endpoints first (listed order), then by time to first token", () => {
    const stats = statsOf({ a: { ttftMs: 300 }, b: { ttftMs: 40 }, d: { durationMs: 100 } });
    assert.deepEqual(orderEndpoints(["a", "b", "c", "d"], "least_latency", { turn: 1, stats }), [
      "c",
      "b",
      "d",
      "a",
    ]);
  });

  test("priority with primary_factor speed: highest measured throughput first", () => {
    const stats = statsOf({ a: { tokensPerSecond: 20 }, b: { tokensPerSecond: 90 } });
    assert.deepEqual(orderEndpoints(["a", "b", "c"], "priority", { factor: "speed", turn: 1, stats }), [
      "c",
      "b",
      "a",
    ]);
    assert.deepEqual(orderEndpoints(["a", "b"], "priority", { factor: "cost", turn: 1, stats }), ["a", "b"]);
  });
});

describe("factors", () => {
  const cheap = catalogModel("p/cheap", ["x"], { prompt: 0.1, completion: 0.4, qualityRank: 1 });
  const mid = catalogModel("p/mid", ["x"], { prompt: 1, completion: 2 });
  const good = catalogModel("p/good", ["x"], { prompt: 3, completion: 15, qualityRank: 9 });
  const throughputOf = (m: { id: string }) => ({ "p/mid": 80, "p/good": 30 })[m.id];

  test("blended price is the base prompt + completion price per million", () => {
    assert.equal(blendedPrice(good), 18);
    assert.equal(blendedPrice({ ...good, pricings: {} }), undefined);
  });

  test("cost: cheapest first; quality: best ranked first; speed: fastest measured first", () => {
    const ids = (ms: { id: string }[]) => ms.map((m) => m.id);
    assert.deepEqual(ids(orderModels([mid, good, cheap], "cost", { throughputOf })), [
      "p/cheap",
      "p/mid",
      "p/good",
    ]);
    // mid has no rank: after those that have one.
    assert.deepEqual(ids(orderModels([mid, cheap, good], "quality", { throughputOf })), [
      "p/good",
      "p/cheap",
      "p/mid",
    ]);
    assert.deepEqual(ids(orderModels([cheap, good, mid], "speed", { throughputOf })), [
      "p/mid",
      "p/good",
      "p/cheap",
    ]);
    assert.deepEqual(ids(orderModels([mid, good, cheap], undefined, { throughputOf })), [
      "p/mid",
      "p/good",
      "p/cheap",
    ]);
  });

  test("the preferred model stays first whatever the factor", () => {
    const ordered = orderModels([mid, good, cheap], "cost", { preference: "p/good", throughputOf });
    assert.deepEqual(
      ordered.map((m) => m.id),
      ["p/good", "p/cheap", "p/mid"],
    );
  });
});

describe("routing choice", () => {
  const model = catalogModel("p/m", ["a"], {
    routing: { type: "least_latency", fallback: false, providers: ["a"] },
  });

  test("each field: the request's, else the model's, else the configuration's, else the default", () => {
    const choice = routingChoice({ type: "round_robin" }, model, { primary_factor: "cost", fallback: "b" });
    assert.equal(choice.type, "round_robin");
    assert.equal(choice.fallback, "false", "a boolean default reads as its string");
    assert.equal(choice.primaryFactor, "cost");
    assert.deepEqual(choice.providers, ["a"]);
    assert.equal(choice.fallbackFromRequest, false);
    assert.equal(choice.providersFromRequest, false);
    const bare = routingChoice(undefined, catalogModel("p/x", ["a"]), {});
    assert.equal(bare.type, "priority");
    assert.equal(bare.fallback, "true");
    assert.deepEqual(bare.availableModels, []);
  });

  test("request fields are marked as the caller's", () => {
    const choice = routingChoice(
      { fallback: "a", providers: ["a"], availableModels: ["p/y"], preference: "p/y" },
      model,
      {},
    );
    assert.equal(choice.fallbackFromRequest, true);
    assert.equal(choice.providersFromRequest, true);
    assert.deepEqual(choice.availableModels, ["p/y"]);
    assert.equal(choice.preference, "p/y");
  });
});
