// Budgets and credit are hard limits across processes (issue 31 §1, measured as the issue did): 400
// chat requests at concurrency 50, each with max_tokens, against a key with a $0.0005 daily budget
// and an account with $0.0005 of credit, through two gateway processes on PostgreSQL + Redis and
// through `serve --workers 2` on SQLite. The key's spend stays within its budget and the balance
// never goes below zero; the refused get their protocol's quota error naming what is left. And a
// stream cancelled mid-way gives its hold back, the admin API showing reserved vs settled spend.

import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import OpenAI from "openai";
import { parseDecimal } from "../../../src/billing/money.ts";
import { fakeModel } from "../../support/config.ts";
import { type RunningGateway, startGateway, startGateways } from "../../support/gateway.ts";
import { dropSchema, PG_URL, requirePostgres, uniqueSchema } from "../../support/postgres.ts";
import { REDIS_URL, requireRedis } from "../../support/redis.ts";

const ADMIN_KEY = "sk-admin-spend-0123456789abcdef";
const BUDGET_KEY = "sk-test-spend-budget-0123456789";
const CREDIT_KEY = "sk-test-spend-credit-0123456789";
const SLOW_KEY = "sk-test-spend-slow-0123456789";

function config(storage: Record<string, unknown>): Record<string, unknown> {
  return {
    ...storage,
    billing: { settle_delay_ms: 0 },
    admin: { keys: [ADMIN_KEY] },
    providers: [{ id: "slow", protocol: "local", chunk_delay_ms: 50 }],
    models: [fakeModel("slow/echo-1", ["slow"], { upstream: "echo-1", prompt: 1000, completion: 1000 })],
    keys: [
      { key: BUDGET_KEY, account: "budgeted", credits: 100, budget: { usd: 0.0005, period: "day" } },
      { key: CREDIT_KEY, account: "small", credits: 0.0005 },
      { key: SLOW_KEY, account: "streams", credits: 1, budget: { usd: 1, period: "day" } },
    ],
  };
}

async function admin(gw: RunningGateway, path: string): Promise<any> {
  const res = await fetch(`${gw.url}/api/v1/admin${path}`, {
    headers: { authorization: `Bearer ${ADMIN_KEY}` },
  });
  assert.equal(res.status, 200, await res.clone().text());
  return res.json();
}

/** `total` requests at `concurrency`, spread over the gateways; how many were served and refused. */
async function flood(gateways: RunningGateway[], key: string, total = 400, concurrency = 50) {
  const clients = gateways.map((gw) => new OpenAI({ apiKey: key, baseURL: `${gw.url}/v1`, maxRetries: 0 }));
  let next = 0;
  let served = 0;
  const refusals: Array<InstanceType<typeof OpenAI.APIError>> = [];
  const worker = async (w: number) => {
    while (next < total) {
      const i = next++;
      try {
        await clients[(w + i) % clients.length].chat.completions.create({
          model: "local/echo-1",
          max_tokens: 16,
          messages: [{ role: "user", content: `request ${i}: say something back to me, please` }],
        });
        served++;
      } catch (err) {
        if (!(err instanceof OpenAI.APIError)) throw err;
        refusals.push(err);
      }
    }
  };
  await Promise.all(Array.from({ length: concurrency }, (_, w) => worker(w)));
  return { served, refusals };
}

/** Once nothing is held any more (every hold settled and its few seconds over), the settled figures. */
async function settled(gw: RunningGateway): Promise<{ keySpend: string; balance: string }> {
  for (let i = 0; ; i++) {
    const key = (await admin(gw, "/keys?account=budgeted")).data[0];
    const account = await admin(gw, "/accounts/small");
    if ([key.spend.reserved, key.spend.settling, account.reserved, account.settling].every((v) => v === "0"))
      return { keySpend: key.spend.today, balance: account.balance };
    assert.ok(i < 300, "holds are given back"); // (30 s: a loaded machine settles slowly)
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function measure(gateways: RunningGateway[]): Promise<void> {
  const [budget, credit] = await Promise.all([flood(gateways, BUDGET_KEY), flood(gateways, CREDIT_KEY)]);
  // Each request costs about $0.000033: some are served, and the rest refused rather than overspent.
  assert.ok(budget.served >= 5 && budget.served < 400, `budget: ${budget.served} served`);
  assert.ok(credit.served >= 5 && credit.served < 400, `credit: ${credit.served} served`);
  for (const err of budget.refusals) {
    assert.equal(err.status, 429, err.message);
    assert.equal(err.code, "insufficient_quota");
    assert.match(err.message, /budget of \$0\.0005 (has \$[\d.]+ left|is spent)/);
  }
  for (const err of credit.refusals) {
    assert.equal(err.status, 402, err.message);
    assert.match(err.message, /has \$[\d.]+ of credit left|no credit left/);
  }
  const { keySpend, balance } = await settled(gateways[0]);
  const spent = parseDecimal(keySpend, "spend");
  assert.ok(spent.lte(parseDecimal("0.0005", "budget")), `spend $${keySpend} within the $0.0005 budget`);
  assert.ok(spent.gt(parseDecimal("0.0003", "x")), `spend $${keySpend}: most of the budget is used`);
  assert.ok(!balance.startsWith("-"), `balance $${balance} is not below zero`);
}

test("two processes on PostgreSQL + Redis, concurrency 50: spend ≤ budget, balance ≥ 0", async (t) => {
  if (!(await requirePostgres(t)) || !(await requireRedis(t))) return;
  const schema = uniqueSchema("switchyard_spend");
  const gateways = await startGateways(
    config({
      storage: { url: `${PG_URL}?schema=${schema}` },
      redis: { url: REDIS_URL, prefix: `switchyard-test-${randomUUID()}:` },
    }),
    2,
  );
  try {
    await measure(gateways);
  } finally {
    await Promise.all(gateways.map((gw) => gw.stop()));
    await dropSchema(schema);
  }
});

test("serve --workers 2 on SQLite, concurrency 50: spend ≤ budget, balance ≥ 0", async () => {
  const dir = mkdtempSync(join(tmpdir(), "switchyard-spend-"));
  const gw = await startGateway(config({ storage: { url: `sqlite:${join(dir, "switchyard.db")}` } }), {
    dir,
    args: ["--workers", "2"],
  });
  try {
    await measure([gw]);
  } finally {
    await gw.stop();
  }
});

test("a stream holds its estimate while it runs, shown by the admin API; cancelled, it settles what it used", async () => {
  const dir = mkdtempSync(join(tmpdir(), "switchyard-spend-"));
  const gw = await startGateway(config({ storage: { url: `sqlite:${join(dir, "switchyard.db")}` } }), {
    dir,
  });
  try {
    const client = new OpenAI({ apiKey: SLOW_KEY, baseURL: `${gw.url}/v1`, maxRetries: 0 });
    const controller = new AbortController();
    const stream = await client.chat.completions.create(
      {
        model: "slow/echo-1",
        max_tokens: 100,
        stream: true,
        messages: [{ role: "user", content: Array.from({ length: 60 }, (_, i) => `word${i}`).join(" ") }],
      },
      { signal: controller.signal },
    );
    const chunks = stream[Symbol.asyncIterator]();
    const first = await chunks.next();
    const id = (first.value as { id: string }).id;
    // 60-word prompt ≈ 110 tokens estimated + 100 of output, at $1000/M: about $0.21 held.
    const account = await admin(gw, "/accounts/streams");
    const key = (await admin(gw, "/keys?account=streams")).data[0];
    assert.equal(account.balance, "1");
    assert.ok(parseDecimal(account.reserved, "reserved").gt(parseDecimal("0.1", "x")), account.reserved);
    assert.equal(key.spend.reserved, account.reserved);
    assert.equal(key.spend.today, "0");
    await chunks.next();
    controller.abort();

    // The hold is given back; what the generation was charged (if anything) is its settled cost.
    let generation: any;
    for (let i = 0; ; i++) {
      generation = await admin(gw, `/generations/${id}`);
      const held = await admin(gw, "/accounts/streams");
      if (generation.status === "cancelled" && held.reserved === "0") break;
      assert.ok(i < 50, `the cancelled stream settles: ${generation.status}, ${held.reserved} held`);
      await new Promise((r) => setTimeout(r, 100));
    }
    const cost = parseDecimal(generation.cost ?? "0", "cost");
    const after = await admin(gw, "/accounts/streams");
    assert.equal(parseDecimal(after.balance, "balance").plus(cost).cmp(parseDecimal("1", "x")), 0);
    const spend = (await admin(gw, "/keys?account=streams")).data[0].spend;
    assert.equal(parseDecimal(spend.today, "spend").cmp(cost), 0);
  } finally {
    await gw.stop();
  }
});
