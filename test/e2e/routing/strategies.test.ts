// Endpoint selection end to end: three fake providers serve one model. Round-robin from the
// configuration's default spreads requests evenly; a model's own default (priority) overrides it;
// least_latency from the request moves traffic to the fastest fake; priority + fallback tries the
// endpoints in exactly the catalog order; `providers`, a named fallback and model-level fallback
// (`model_routing_config`) shape the order; bad routing fields are 4xx naming the field.

import assert from "node:assert/strict";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, beforeEach, describe, test } from "node:test";
import { DEFAULT_TEXT, type FakeUpstream, type Reply, startFakeUpstream } from "../../fakes/index.ts";
import { baseConfig, PAYG_KEY, type RunningGateway, startGateway } from "../../support/gateway.ts";
import { lookupSettled } from "../../support/lookup.ts";
import { type ChatResult, chat, fakeProvider, model, record } from "./support.ts";

let gw: RunningGateway;
let fakes: Record<"a" | "b" | "c", FakeUpstream>;
const LIMIT = { timeout: 10_000 };

before(async () => {
  const [a, b, c] = await Promise.all([
    startFakeUpstream("openai"),
    startFakeUpstream("openai"),
    startFakeUpstream("openai"),
  ]);
  fakes = { a, b, c };
  const all = ["a", "b", "c"];
  const dir = mkdtempSync(join(tmpdir(), "switchyard-strategies-"));
  gw = await startGateway(
    baseConfig(dir, {
      providers: all.map((id) => fakeProvider(id, fakes[id as "a"])),
      // The configuration's default for every model without its own.
      routing: { type: "round_robin" },
      models: [
        model("cfg/rr", all),
        model("req/ll", all),
        model("mdl/prio", all, { routing: { type: "priority" } }),
        model("mdl/sub", all, { routing: { type: "priority" } }),
        model("mf/main", ["a"], { prompt: 1, completion: 2, quality_rank: 5 }),
        model("mf/cheap", ["b"], { prompt: 0.5, completion: 1, quality_rank: 1 }),
        model("mf/good", ["c"], { prompt: 5, completion: 10, quality_rank: 10 }),
      ],
    }),
  );
});
after(async () => {
  await gw?.stop();
  await Promise.all(Object.values(fakes ?? {}).map((f) => f.close()));
});
// Scripts left by a failed test must not answer the next one.
beforeEach(() => {
  for (const f of Object.values(fakes)) f.reset();
});

/** Which fake served each request of a model, in arrival order across the fakes. */
function servedBy(upstream: string): string[] {
  return Object.entries(fakes)
    .flatMap(([name, f]) => f.requests.filter((r) => r.body?.model === upstream).map((r) => ({ name, r })))
    .sort((x, y) => x.r.seq - y.r.seq)
    .map((x) => x.name);
}

function count(names: string[]) {
  return {
    a: names.filter((n) => n === "a").length,
    b: names.filter((n) => n === "b").length,
    c: names.filter((n) => n === "c").length,
  };
}

describe("strategies", () => {
  test(
    "round_robin (configuration default) spreads requests evenly over three endpoints",
    LIMIT,
    async () => {
      for (let batch = 0; batch < 3; batch++) {
        const results = await Promise.all(Array.from({ length: 10 }, () => chat(gw, { model: "cfg/rr" })));
        for (const r of results) assert.equal(r.status, 200);
      }
      assert.deepEqual(count(servedBy("rr")), { a: 10, b: 10, c: 10 });
      // Sequential requests start on successive endpoints.
      const next = [];
      for (let i = 0; i < 3; i++)
        next.push((await chat(gw, { model: "cfg/rr" })).headers.get("x-switchyard-provider"));
      assert.deepEqual([...next].sort(), ["a", "b", "c"]);
    },
  );

  test("a model's own default (priority) overrides the configuration's round_robin", LIMIT, async () => {
    for (let i = 0; i < 3; i++) await chat(gw, { model: "mdl/prio" });
    assert.deepEqual(servedBy("prio"), ["a", "a", "a"]);
  });

  test("least_latency measures each endpoint once, then follows the fastest", LIMIT, async () => {
    const reply = (delay: number): Reply => ({
      blocks: [{ type: "text", text: DEFAULT_TEXT }],
      chunks: 1,
      chunkDelayMs: delay,
    });
    fakes.a.script(...Array(3).fill(reply(120)));
    fakes.b.script(...Array(3).fill(reply(60)));
    // c's one slow answer lifts its moving average (weight 0.3) to about 180 ms: far past b's 60, even
    // when a loaded host adds to b's one measurement.
    fakes.c.script(...Array(11).fill(reply(5)), reply(600));
    const send = () =>
      chat(gw, { model: "req/ll", stream: true, provider: { routing: { type: "least_latency" } } });
    for (let i = 0; i < 13; i++) assert.equal((await send()).status, 200);
    // Unmeasured endpoints first (in listed order), then the fastest only.
    assert.deepEqual(servedBy("ll"), ["a", "b", "c", ...Array(10).fill("c")]);
    // c turns slow once: its recent time to first token now exceeds b's, and traffic moves to b.
    await send();
    assert.equal((await send()).headers.get("x-switchyard-provider"), "b");
    assert.deepEqual(servedBy("ll").slice(13), ["c", "b"]);
  });
});

describe("fallback order", () => {
  test("priority + fallback tries the endpoints in catalog order until one answers", LIMIT, async () => {
    fakes.a.script({ status: 500 });
    fakes.b.script({ status: 503 });
    const r = await chat(gw, { model: "mdl/prio", provider: { routing: { fallback: "true" } } });
    assert.equal(r.status, 200);
    assert.equal(r.headers.get("x-switchyard-provider"), "c");
    assert.deepEqual(servedBy("prio"), ["a", "b", "c"]);
    const rec = await record(gw, r.generationId);
    assert.equal(rec.requestRetryTimes, 2);
    assert.equal(rec.finalRetry, true);
    assert.equal(rec.provider, "c");
  });

  test("providers restricts the endpoints and keeps their catalog order", LIMIT, async () => {
    fakes.b.script({ status: 500 });
    const r = await chat(gw, { model: "mdl/sub", provider: { routing: { providers: ["c", "b"] } } });
    assert.equal(r.headers.get("x-switchyard-provider"), "c");
    assert.deepEqual(servedBy("sub"), ["b", "c"]);
  });

  test("a fallback provider named outside providers is still the one switched to", LIMIT, async () => {
    fakes.b.script({ status: 500 });
    const r = await chat(gw, {
      model: "mdl/sub",
      provider: { routing: { providers: ["b"], fallback: "a" } },
    });
    assert.equal(r.headers.get("x-switchyard-provider"), "a");
    assert.deepEqual(servedBy("sub"), ["b", "a"]);
  });

  test("routing fields that name nothing are 4xx errors naming the field", LIMIT, async () => {
    const cases: Array<[Record<string, unknown>, number, string]> = [
      [{ provider: { routing: { providers: ["nowhere"] } } }, 400, "provider.routing.providers"],
      [{ provider: { routing: { fallback: "nowhere" } } }, 400, "provider.routing.fallback"],
      [
        { model_routing_config: { available_models: ["no/such-model"] } },
        404,
        "model_routing_config.available_models[0]",
      ],
      [{ model_routing_config: { preference: "no/such-model" } }, 404, "model_routing_config.preference"],
    ];
    for (const [body, status, param] of cases) {
      const r: ChatResult = await chat(gw, { model: "mdl/prio", ...body });
      assert.equal(r.status, status, JSON.stringify(r.json));
      assert.equal(r.json.error.param, param);
    }
    assert.deepEqual(servedBy("prio"), [], "nothing was sent upstream");
  });
});

describe("model-level fallback (model_routing_config)", () => {
  const routed = (config: Record<string, unknown>, factor?: string) =>
    chat(gw, {
      model: "mf/main",
      model_routing_config: config,
      ...(factor ? { provider: { routing: { primary_factor: factor } } } : {}),
    });

  test("the next available model answers when the requested one fails, priced as itself", LIMIT, async () => {
    fakes.a.script({ status: 500 });
    const r = await routed({ available_models: ["mf/cheap", "mf/good"] });
    assert.equal(r.status, 200);
    assert.equal(r.json.model, "mf/cheap", "the response names the model that answered");
    assert.equal(r.headers.get("x-switchyard-provider"), "b");
    const rec = await lookupSettled(gw.url, r.generationId, PAYG_KEY);
    assert.equal(rec.model, "mf/cheap", "the record names the model that answered and was priced");
    assert.equal(rec.provider, "b");
    assert.equal(rec.requestRetryTimes, 1);
    assert.equal(rec.finalRetry, false, "mf/good was still planned");
    // 10 prompt tokens at 0.5 and 6 completion tokens at 1 per million: mf/cheap's prices.
    assert.equal(Number(rec.usage), 0.000011);
  });

  test("a streamed answer from a fallback model names that model in every chunk", LIMIT, async () => {
    fakes.a.script({ status: 500 });
    const r = await chat(gw, {
      model: "mf/main",
      stream: true,
      model_routing_config: { available_models: ["mf/cheap"] },
    });
    assert.equal(r.status, 200);
    const chunks = (r.frames ?? []).filter((f) => f !== "[DONE]");
    assert.ok(chunks.length > 2, "several chunks");
    assert.deepEqual([...new Set(chunks.map((c) => c.model))], ["mf/cheap"]);
  });

  test("preference goes first", LIMIT, async () => {
    const r = await routed({ available_models: ["mf/cheap"], preference: "mf/good" });
    assert.equal(r.json.model, "mf/good");
    assert.equal(r.headers.get("x-switchyard-provider"), "c");
  });

  test("primary_factor cost puts the cheapest model first, quality the best ranked", LIMIT, async () => {
    const cheapest = await routed({ available_models: ["mf/good", "mf/cheap"] }, "cost");
    assert.equal(cheapest.json.model, "mf/cheap");
    const best = await routed({ available_models: ["mf/cheap", "mf/good"] }, "quality");
    assert.equal(best.json.model, "mf/good");
    const rec = await record(gw, best.generationId);
    assert.equal(rec.requestRetryTimes, 0);
  });

  test("fallback false keeps to the first model", LIMIT, async () => {
    fakes.a.script({ status: 500 });
    const r = await chat(gw, {
      model: "mf/main",
      model_routing_config: { available_models: ["mf/cheap"] },
      provider: { routing: { fallback: "false" } },
    });
    assert.equal(r.status, 500);
    assert.deepEqual(count(servedBy("cheap")), { a: 0, b: 0, c: 0 });
  });
});
