// The admin API (/api/v1/admin/): admin keys and API keys kept apart, generations listed and fetched
// with their exact cost, usage from the rollups, keys made and revoked and used with the OpenAI SDK,
// accounts credited exactly, bad parameters named, retention deleting old rows but not their usage.

import assert from "node:assert/strict";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import OpenAI from "openai";
import { SqliteStore } from "../../src/ledger/sqlite-store.ts";
import { baseConfig, PAYG_KEY, type RunningGateway, spawnGateway, startGateway } from "../support/gateway.ts";
import { usd } from "../support/money.ts";

const ADMIN_KEY = "sk-admin-test-0123456789abcdef";

let gw: RunningGateway;

before(async () => {
  const dir = mkdtempSync(join(tmpdir(), "switchyard-admin-"));
  gw = await startGateway(baseConfig(dir, { admin: { keys: [ADMIN_KEY] } }), { dir });
});
after(() => gw?.stop());

async function admin(path: string, init: RequestInit & { key?: string } = {}) {
  const res = await fetch(`${gw.url}/api/v1/admin${path}`, {
    ...init,
    headers: {
      authorization: `Bearer ${init.key ?? ADMIN_KEY}`,
      ...(init.body ? { "content-type": "application/json" } : {}),
    },
  });
  return { status: res.status, body: (await res.json()) as any };
}

const openai = (key: string) => new OpenAI({ apiKey: key, baseURL: `${gw.url}/v1`, maxRetries: 0 });

async function echoPrices() {
  const model = (await (await fetch(`${gw.url}/v1/models/local/echo-1`)).json()) as any;
  return {
    prompt: String(model.pricings.prompt[0].value),
    completion: String(model.pricings.completion[0].value),
  };
}

async function costOf(usage: { prompt_tokens: number; completion_tokens: number }) {
  const prices = await echoPrices();
  return usd.add(
    usd.perMillion(usage.prompt_tokens, prices.prompt),
    usd.perMillion(usage.completion_tokens, prices.completion),
  );
}

describe("admin credentials", () => {
  test("an admin key cannot call inference; an API key cannot call the admin API; no key is a 401", async () => {
    await assert.rejects(
      openai(ADMIN_KEY).chat.completions.create({
        model: "local/echo-1",
        messages: [{ role: "user", content: "hi" }],
      }),
      (err: any) => err.status === 403 && /admin key/.test(err.message),
    );
    const byApiKey = await admin("/keys", { key: PAYG_KEY });
    assert.equal(byApiKey.status, 403);
    assert.match(byApiKey.body.error.message, /API key cannot call the admin API/);
    assert.equal((await admin("/keys", { key: "sk-not-a-key-at-all-000" })).status, 401);
    const none = await fetch(`${gw.url}/api/v1/admin/keys`);
    assert.equal(none.status, 401);
    assert.equal(typeof ((await none.json()) as any).error.message, "string");
  });

  test("the embedded default prints an admin key that opens the admin API and not inference", async () => {
    const dir = mkdtempSync(join(tmpdir(), "switchyard-default-admin-"));
    const embedded = await spawnGateway(["serve", "--port", "0"], dir, "");
    try {
      const key = (await embedded.waitForOutput(/Admin key[^:]*: (\S+)/))[1];
      const res = await fetch(`${embedded.url}/api/v1/admin/accounts`, {
        headers: { authorization: `Bearer ${key}` },
      });
      assert.equal(res.status, 200);
      assert.ok(((await res.json()) as any).data.some((a: any) => a.id === "demo"));
      const chat = await fetch(`${embedded.url}/v1/chat/completions`, {
        method: "POST",
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
        body: JSON.stringify({ model: "local/echo-1", messages: [{ role: "user", content: "hi" }] }),
      });
      assert.equal(chat.status, 403);
    } finally {
      await embedded.stop();
    }
  });
});

describe("dashboard session", () => {
  test("a login sets an HttpOnly session that opens the admin API; tampered, cross-site or wrong, it does not", async () => {
    const wrong = await fetch(`${gw.url}/dashboard/login`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ key: PAYG_KEY }),
    });
    assert.equal(wrong.status, 401);
    assert.equal(wrong.headers.get("set-cookie"), null);
    const login = await fetch(`${gw.url}/dashboard/login`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ key: ADMIN_KEY }),
    });
    assert.equal(login.status, 204);
    const setCookie = login.headers.get("set-cookie")!;
    assert.match(setCookie, /HttpOnly/);
    assert.match(setCookie, /SameSite=Strict/);
    const cookie = setCookie.split(";")[0];
    const withCookie = (init: RequestInit = {}, value = cookie) =>
      fetch(`${gw.url}/api/v1/admin/accounts`, {
        ...init,
        headers: { cookie: value, ...(init.headers ?? {}) },
      });
    assert.equal((await withCookie()).status, 200);
    assert.equal((await withCookie({}, `${cookie.slice(0, -2)}xx`)).status, 401);
    const crossSite = await fetch(`${gw.url}/api/v1/admin/accounts/acme/credit`, {
      method: "POST",
      headers: { cookie, origin: "http://evil.example", "content-type": "application/json" },
      body: JSON.stringify({ amount: "1" }),
    });
    assert.equal(crossSite.status, 403);
  });
});

describe("generations and usage", () => {
  test("a generation made with the SDK is listed, filtered, paged and fetched with its exact cost", async () => {
    const first = await openai(PAYG_KEY).chat.completions.create({
      model: "local/echo-1",
      messages: [{ role: "user", content: "first of two" }],
    });
    const second = await openai(PAYG_KEY).chat.completions.create({
      model: "local/echo-1",
      messages: [{ role: "user", content: "the second one, a little longer" }],
    });
    const page1 = await admin("/generations?account=acme&model=local/echo-1&limit=1");
    assert.equal(page1.status, 200);
    assert.deepEqual(
      page1.body.data.map((g: any) => g.generationId),
      [second.id],
    );
    assert.ok(page1.body.nextCursor);
    const page2 = await admin(`/generations?account=acme&limit=1&cursor=${page1.body.nextCursor}`);
    assert.deepEqual(
      page2.body.data.map((g: any) => g.generationId),
      [first.id],
    );
    assert.equal((await admin("/generations?account=other")).body.data.length, 0);
    assert.equal((await admin("/generations?account=acme&status=failed")).body.data.length, 0);
    const future = new Date(Date.now() + 3_600_000).toISOString();
    assert.equal((await admin(`/generations?account=acme&from=${future}`)).body.data.length, 0);

    const one = await admin(`/generations/${second.id}`);
    assert.equal(one.status, 200);
    assert.equal(one.body.cost, await costOf(second.usage!));
    assert.equal(one.body.accountId, "acme");
    assert.equal(one.body.attempts, 1);
    assert.equal(one.body.provider, "local");
    assert.equal(one.body.tokens.promptTokens, second.usage!.prompt_tokens);
    assert.deepEqual(one.body.ratingResponses.ratingDetails.map((d: any) => d.feeItemCode).sort(), [
      "completion",
      "prompt",
    ]);
    const missing = await admin("/generations/gen-000000000AAAAAAAAAAAAAAAA");
    assert.equal(missing.status, 404);
    assert.equal(missing.body.error.param, "id");
  });

  test("usage by model and by key: requests, tokens and the exact sum of the costs, from the rollups", async () => {
    const key = await admin("/keys", {
      method: "POST",
      body: JSON.stringify({ account: "usage-acct", credits: "1" }),
    });
    const client = openai(key.body.key);
    const calls = [];
    for (const text of ["one", "two two", "three three three"])
      calls.push(
        await client.chat.completions.create({
          model: "local/echo-1",
          messages: [{ role: "user", content: text }],
        }),
      );
    let expected = "0";
    for (const c of calls) expected = usd.add(expected, await costOf(c.usage!));

    const byModel = await admin("/usage?account=usage-acct&group_by=model");
    assert.equal(byModel.status, 200);
    assert.equal(byModel.body.data.length, 1);
    const [row] = byModel.body.data;
    assert.equal(row.group, "local/echo-1");
    assert.equal(row.requests, 3);
    assert.equal(row.errors, 0);
    assert.equal(row.cost, expected);
    assert.equal(
      row.tokens.prompt,
      calls.reduce((n, c) => n + c.usage!.prompt_tokens, 0),
    );
    assert.equal(
      row.tokens.completion,
      calls.reduce((n, c) => n + c.usage!.completion_tokens, 0),
    );
    assert.equal(typeof row.latencyMs.p50, "number");
    assert.equal(typeof row.ttftMs.p95, "number");
    const byKey = await admin("/usage?account=usage-acct&group_by=key");
    assert.deepEqual(
      byKey.body.data.map((g: any) => [g.group, g.cost]),
      [[key.body.id, expected]],
    );
    const overview = await admin("/overview?account=usage-acct");
    assert.equal(overview.body.days.length, 30);
    assert.equal(overview.body.total.requests, 3);
    assert.equal(overview.body.days.at(-1).cost, expected);
    const keys = await admin("/keys?account=usage-acct");
    assert.equal(keys.body.data[0].spend.today, expected);
    assert.equal(keys.body.data[0].spend.total, expected);
  });

  test("bad parameters are 400s naming the parameter, in the chat shape", async () => {
    for (const [path, param] of [
      ["/usage?group_by=week", "group_by"],
      ["/usage?from=yesterday", "from"],
      ["/generations?limit=0", "limit"],
      ["/generations?status=done", "status"],
      ["/generations?cursor=abc", "cursor"],
    ]) {
      const res = await admin(path);
      assert.equal(res.status, 400, path);
      assert.equal(res.body.error.param, param, path);
      assert.equal(res.body.error.type, "invalid_request_error", path);
    }
  });
});

describe("keys and accounts", () => {
  test("a key made through the API works with the SDK until it is revoked", async () => {
    const made = await admin("/keys", {
      method: "POST",
      body: JSON.stringify({ account: "new-team", name: "ci bot", credits: "5" }),
    });
    assert.equal(made.status, 201);
    assert.match(made.body.key, /^sk-/);
    assert.equal(made.body.name, "ci bot");
    const listed = await admin("/keys?account=new-team");
    assert.equal(listed.body.data.length, 1);
    assert.equal(listed.body.data[0].key, undefined, "the secret is shown once");
    assert.ok(!JSON.stringify(listed.body).includes(made.body.key));

    const client = openai(made.body.key);
    const ok = await client.chat.completions.create({
      model: "local/echo-1",
      messages: [{ role: "user", content: "hi" }],
    });
    assert.equal(ok.choices[0].message.content, "You said: hi");

    const revoked = await admin(`/keys/${made.body.id}`, { method: "DELETE" });
    assert.equal(revoked.status, 200);
    assert.equal(typeof revoked.body.revokedAt, "string");
    await assert.rejects(
      client.chat.completions.create({ model: "local/echo-1", messages: [{ role: "user", content: "hi" }] }),
      (err: any) => err.status === 401,
    );
    assert.equal((await admin("/keys/key_0000000000000000", { method: "DELETE" })).status, 404);
  });

  test("a key made with limits and a budget: listed with them, and held to them", async () => {
    const made = await admin("/keys", {
      method: "POST",
      body: JSON.stringify({
        account: "limited-team",
        credits: "5",
        limits: { rpm: 1, concurrency: 2 },
        budget: { usd: "2.5", period: "month" },
      }),
    });
    assert.equal(made.status, 201, JSON.stringify(made.body));
    assert.deepEqual(
      [made.body.limits, made.body.budget],
      [
        { rpm: 1, concurrency: 2 },
        { usd: "2.5", period: "month" },
      ],
    );
    const listed = (await admin("/keys?account=limited-team")).body.data[0];
    assert.deepEqual(
      [listed.limits, listed.budget],
      [
        { rpm: 1, concurrency: 2 },
        { usd: "2.5", period: "month" },
      ],
    );

    const client = new OpenAI({ apiKey: made.body.key, baseURL: `${gw.url}/v1`, maxRetries: 0 });
    const ask = () =>
      client.chat.completions.create({ model: "local/echo-1", messages: [{ role: "user", content: "hi" }] });
    await ask();
    await assert.rejects(ask(), OpenAI.RateLimitError);
    const plain = (
      await admin("/keys", { method: "POST", body: JSON.stringify({ account: "limited-team" }) })
    ).body;
    assert.deepEqual([plain.limits, plain.budget], [null, null]);
  });

  test("a new key's body is checked field by field", async () => {
    for (const [body, param] of [
      [{}, "account"],
      [{ account: "a b" }, "account"],
      [{ account: "x", kind: "gold" }, "kind"],
      [{ account: "x", credits: "lots" }, "credits"],
      [{ account: "x", colour: "red" }, "colour"],
      [{ account: "x", limits: { rpm: 0 } }, "limits.rpm"],
      [{ account: "x", limits: { rps: 2 } }, "limits.rps"],
      [{ account: "x", budget: { usd: 5 } }, "budget.period"],
      [{ account: "x", budget: { usd: "-1", period: "day" } }, "budget.usd"],
    ] as const) {
      const res = await admin("/keys", { method: "POST", body: JSON.stringify(body) });
      assert.equal(res.status, 400, JSON.stringify(body));
      assert.equal(res.body.error.param, param, JSON.stringify(body));
    }
  });

  test("credits add exactly: 0.1 + 0.2 on a fresh account is 0.3", async () => {
    await admin("/keys", { method: "POST", body: JSON.stringify({ account: "credits-acct" }) });
    await admin("/accounts/credits-acct/credit", { method: "POST", body: JSON.stringify({ amount: "0.1" }) });
    const after = await admin("/accounts/credits-acct/credit", {
      method: "POST",
      body: JSON.stringify({ amount: "0.2" }),
    });
    assert.equal(after.body.balance, "0.3");
    assert.equal((await admin("/accounts/credits-acct")).body.balance, "0.3");
    assert.equal((await admin("/accounts/credits-acct")).body.storedResponseBytes, 0);
    const listed = (await admin("/accounts")).body.data.find((a: { id: string }) => a.id === "credits-acct");
    assert.equal(listed.storedResponseBytes, 0);
    assert.equal(
      (await admin("/accounts/nobody/credit", { method: "POST", body: JSON.stringify({ amount: "1" }) }))
        .status,
      404,
    );
  });

  test("models with prices, providers with breaker state, and an OpenAPI file naming every route", async () => {
    const models = await admin("/models");
    const echo = models.body.data.find((m: any) => m.id === "local/echo-1");
    assert.ok(echo.pricings.prompt.length > 0);
    const providers = await admin("/providers");
    const local = providers.body.data.find((p: any) => p.id === "local");
    assert.ok(local.endpoints.some((e: any) => e.model === "local/echo-1" && e.breaker === "closed"));
    assert.ok(!JSON.stringify(providers.body).includes("api_key"));

    const doc = (await (await fetch(`${gw.url}/api/v1/admin/openapi.json`)).json()) as any;
    assert.equal(doc.openapi, "3.1.0");
    assert.deepEqual(Object.keys(doc.paths).sort(), [
      "/accounts",
      "/accounts/{id}",
      "/accounts/{id}/credit",
      "/generations",
      "/generations/{id}",
      "/keys",
      "/keys/{id}",
      "/models",
      "/overview",
      "/providers",
      "/usage",
    ]);
  });
});

describe("retention", () => {
  test("raw rows older than retention_days go (a 404 to their lookup); their usage stays", async () => {
    const dir = mkdtempSync(join(tmpdir(), "switchyard-retention-"));
    const file = join(dir, "switchyard.db");
    const store = new SqliteStore(file);
    await store.migrate();
    await store.accounts.upsertAccount("acme", { balance: "1" });
    const old = Date.now() - 3 * 86_400_000;
    const id = `gen-${old.toString(36).padStart(9, "0")}AAAAAAAAAAAAAAAA`;
    const start = {
      id,
      accountId: "acme",
      keyId: "key_old",
      api: "chat.completions" as const,
      model: "local/echo-1",
      streamed: false,
      createdAt: old,
    };
    const usage = {
      promptTokens: 10,
      completionTokens: 5,
      cacheReadTokens: 0,
      cacheWrite5mTokens: 0,
      cacheWrite1hTokens: 0,
      reasoningTokens: 0,
      webSearchRequests: 0,
    };
    const rating = {
      usage: "0.25",
      billAmount: "0.25",
      discountAmount: "0",
      originAmount: "0.25",
      priceVersion: "t",
      ratingDetails: [
        {
          feeItemCode: "prompt",
          rate: "0.025",
          originAmount: "0.25",
          discountAmount: "0",
          billAmount: "0.25",
        },
      ],
    };
    await store.recordGeneration(start, {
      id,
      status: "completed",
      provider: "local",
      usage,
      latencyMs: 10,
      generationTimeMs: 5,
      requestRetryTimes: 0,
      finalRetry: true,
      completedAt: old + 15,
      settlement: { rating },
    });
    await store.close();

    const retained = await startGateway(
      {
        ...baseConfig(dir),
        storage: { url: `sqlite:${file}`, retention_days: 1 },
        admin: { keys: [ADMIN_KEY] },
      },
      { dir },
    );
    try {
      const get = (path: string) =>
        fetch(`${retained.url}/api/v1/admin${path}`, { headers: { authorization: `Bearer ${ADMIN_KEY}` } });
      const until = Date.now() + 10_000;
      while ((await get(`/generations/${id}`)).status !== 404) {
        assert.ok(Date.now() < until, "retention did not delete the old row");
        await new Promise((r) => setTimeout(r, 100));
      }
      const day = new Date(old).toISOString().slice(0, 10);
      const usage = (await (await get(`/usage?from=${day}&account=acme&group_by=key`)).json()) as any;
      assert.deepEqual(
        usage.data.map((g: any) => [g.group, g.requests, g.cost]),
        [["key_old", 1, "0.25"]],
      );
    } finally {
      await retained.stop();
    }
  });
});
