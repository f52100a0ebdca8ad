// The store going away is survived: a gateway on a PostgreSQL cluster and a Redis of the test's own
// serves a steady stream of requests while PostgreSQL is restarted (fast shutdown, down for a few
// seconds) and Redis is stopped and started. Every answer is a 2xx or a clean 503 in the caller's
// protocol, nothing hangs, the process lives, it serves again without a restart, and every
// generation a client was answered for is in the ledger, debited exactly once.
// See docs/operations.md, "When the store or Redis goes away".

import assert from "node:assert/strict";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { test } from "node:test";
import { Redis } from "ioredis";
import { addDecimals, canonicalDecimal, negateDecimal } from "../../src/billing/money.ts";
import { type Columns, generationColumnList, generationFromColumns } from "../../src/ledger/columns.ts";
import type { GenerationRow } from "../../src/ledger/types.ts";
import { OTHER_KEY, PAYG_KEY, type RunningGateway, runCli, startGateway } from "../support/gateway.ts";
import { requirePrivatePostgres, startPrivatePostgres } from "../support/private-postgres.ts";
import { requirePrivateRedis, startPrivateRedis } from "../support/private-redis.ts";

type Face = "chat" | "messages" | "gemini";

interface Outcome {
  face: Face;
  status: number;
  /** The generation id of a 2xx. */
  id?: string;
  /** What was wrong with the answer, if anything (a 500, a shape, a timeout, a broken stream). */
  problem?: string;
  sentAt: number;
  ms?: number;
}

/** No answer may take longer than this, outage or not. */
const ANSWER_BOUND_MS = 10_000;
const CREDITS = "100";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function requestFor(face: Face, url: string, n: number, key: string): { url: string; init: RequestInit } {
  const text = `request ${n} during the outage drill`;
  if (face === "chat")
    return {
      url: `${url}/v1/chat/completions`,
      init: {
        method: "POST",
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
        body: JSON.stringify({ model: "local/echo-1", messages: [{ role: "user", content: text }] }),
      },
    };
  if (face === "messages")
    return {
      url: `${url}/v1/messages`,
      init: {
        method: "POST",
        headers: {
          "x-api-key": key,
          "anthropic-version": "2023-06-01",
          "content-type": "application/json",
        },
        body: JSON.stringify({
          model: "local/echo-1",
          max_tokens: 64,
          stream: true,
          messages: [{ role: "user", content: text }],
        }),
      },
    };
  return {
    url: `${url}/v1beta/models/local/echo-1:generateContent`,
    init: {
      method: "POST",
      headers: { "x-goog-api-key": key, "content-type": "application/json" },
      body: JSON.stringify({ contents: [{ role: "user", parts: [{ text }] }] }),
    },
  };
}

/** Why a 503 body is not the caller's protocol's own error shape, or undefined when it is. */
function badServiceUnavailable(face: Face, body: any): string | undefined {
  if (face === "chat")
    return body?.error?.type === "overloaded_error" && typeof body.error.message === "string"
      ? undefined
      : "not a chat error body";
  if (face === "messages")
    return body?.type === "error" &&
      body.error?.type === "overloaded_error" &&
      typeof body.error.message === "string"
      ? undefined
      : "not a messages error body";
  return body?.error?.code === 503 &&
    body.error.status === "UNAVAILABLE" &&
    typeof body.error.message === "string"
    ? undefined
    : "not a content-generation error body";
}

async function send(face: Face, url: string, n: number, key = PAYG_KEY): Promise<Outcome> {
  const sentAt = Date.now();
  const { url: target, init } = requestFor(face, url, n, key);
  try {
    const res = await fetch(target, { ...init, signal: AbortSignal.timeout(ANSWER_BOUND_MS) });
    const text = await res.text();
    const outcome: Outcome = { face, status: res.status, sentAt, ms: Date.now() - sentAt };
    if (res.status === 200) {
      outcome.id = res.headers.get("x-generation-id") ?? undefined;
      if (!outcome.id) outcome.problem = "a 2xx without x-generation-id";
      // A served stream ends as the protocol ends it, not with an error event.
      if (face === "messages" && (!text.includes("event: message_stop") || text.includes("event: error")))
        outcome.problem = `a broken stream: ${text.slice(-300)}`;
    } else if (res.status === 503) {
      let body: unknown;
      try {
        body = JSON.parse(text);
      } catch {
        body = undefined;
      }
      const wrong = badServiceUnavailable(face, body);
      if (wrong) outcome.problem = `${wrong}: ${text.slice(0, 300)}`;
    } else {
      outcome.problem = `HTTP ${res.status}: ${text.slice(0, 300)}`;
    }
    return outcome;
  } catch (err) {
    return {
      face,
      status: 0,
      sentAt,
      problem: `no answer within ${ANSWER_BOUND_MS} ms: ${(err as Error).message}`,
    };
  }
}

/** `lanes` clients, each sending its next request as soon as the last is answered, until stopped. */
function steadyTraffic(url: string, lanes: number) {
  const outcomes: Outcome[] = [];
  const faces: Face[] = ["chat", "messages", "chat", "messages", "gemini"];
  let running = true;
  let n = 0;
  const lane = async () => {
    while (running) {
      const i = n++;
      outcomes.push(await send(faces[i % faces.length]!, url, i));
    }
  };
  const done = Promise.all(Array.from({ length: lanes }, lane));
  return {
    outcomes,
    async stop() {
      running = false;
      await done;
    },
  };
}

async function readyzStatus(url: string): Promise<number> {
  try {
    return (await fetch(`${url}/readyz`, { signal: AbortSignal.timeout(ANSWER_BOUND_MS) })).status;
  } catch {
    return 0;
  }
}

async function until(what: string, check: () => Promise<boolean>, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(100);
  }
}

/**
 * Every generation a client was answered for is in the ledger, completed and settled, nothing else
 * is, and the account was debited exactly once for each: its balance is the credits less the sum
 * of the settled ratings. Waits (bounded) for the writes that waited out the outage to land.
 */
async function everyAnsweredGenerationRecorded(
  served: string[],
  readLedger: () => Promise<GenerationRow[]>,
  readBalance: () => Promise<string>,
  gateway: RunningGateway,
): Promise<void> {
  assert.ok(served.length > 0);
  const answered = new Set(served);
  let ledger: GenerationRow[] = [];
  await until("every answered generation to be written and settled", async () => {
    ledger = await readLedger();
    const recorded = ledger.filter((g) => answered.has(g.id));
    return recorded.length === served.length && recorded.every((g) => g.settledAt !== undefined);
  }).catch((err) => {
    const found = new Set(ledger.map((g) => g.id));
    const missing = served.filter((id) => !found.has(id));
    throw new Error(
      `${err.message}: ${missing.length} of ${served.length} missing, e.g. ${missing.slice(0, 3)}\n` +
        gateway.output().slice(-3000),
    );
  });
  for (const g of ledger) assert.equal(g.status, "completed", g.id);
  assert.equal(ledger.length, served.length, "rows in the ledger for requests no client was answered for");
  const charged = ledger.reduce((sum, g) => addDecimals(sum, g.rating!.usage), "0");
  assert.notEqual(charged, "0");
  assert.equal(canonicalDecimal(await readBalance()), addDecimals(CREDITS, negateDecimal(charged)));
}

test("PostgreSQL restarted and Redis stopped under load: clean 503s or served, nothing acknowledged lost", {
  timeout: 90_000,
}, async (t) => {
  if (!requirePrivatePostgres(t) || !requirePrivateRedis(t)) return;
  const [db, redis] = await Promise.all([startPrivatePostgres(), startPrivateRedis()]);
  let gateway: RunningGateway | undefined;
  let traffic: ReturnType<typeof steadyTraffic> | undefined;
  try {
    const dir = mkdtempSync(join(tmpdir(), "switchyard-outage-"));
    gateway = await startGateway(
      {
        storage: { url: db.url },
        redis: { url: redis.url },
        billing: { settle_delay_ms: 0 },
        keys: [
          { key: PAYG_KEY, account: "acme", credits: Number(CREDITS) },
          { key: OTHER_KEY, account: "other", credits: 100 },
        ],
      },
      { dir },
    );
    const { url } = gateway;
    traffic = steadyTraffic(url, 4);
    const readyDuringOutage: number[] = [];
    // Asked while PostgreSQL is down: a key this process never verified, and a lookup.
    const unverifiable: Outcome[] = [];
    const lookups: Array<{ status: number; body: any }> = [];

    await sleep(800);
    await db.stop();
    const downAt = Date.now();
    for (let i = 0; i < 6; i++) {
      readyDuringOutage.push(await readyzStatus(url));
      unverifiable.push(await send((["chat", "messages", "gemini"] as const)[i % 3]!, url, -i, OTHER_KEY));
      const servedId = traffic.outcomes.findLast((o) => o.id)?.id ?? "gen-none";
      const lookup = await fetch(`${url}/api/v1/management/generation?id=${servedId}`, {
        headers: { authorization: `Bearer ${PAYG_KEY}` },
        signal: AbortSignal.timeout(ANSWER_BOUND_MS),
      });
      lookups.push({ status: lookup.status, body: await lookup.json() });
      await sleep(300);
    }
    await db.start();
    const upAt = Date.now();
    await sleep(1000);
    await redis.stop();
    await sleep(2000);
    await redis.start();
    await sleep(1000);
    await traffic.stop();

    assert.equal(gateway.process.exitCode, null, `the gateway exited:\n${gateway.output().slice(-2000)}`);
    const problems = traffic.outcomes.filter((o) => o.problem);
    assert.deepEqual(
      problems.slice(0, 10).map((o) => `${o.face} ${o.status}: ${o.problem}`),
      [],
      `${problems.length} of ${traffic.outcomes.length} answers were neither a 2xx nor a clean 503`,
    );
    const duringOutage = traffic.outcomes.filter((o) => o.sentAt >= downAt && o.sentAt < upAt);
    assert.ok(
      duringOutage.length >= 10,
      `only ${duringOutage.length} requests were sent while PostgreSQL was down`,
    );
    assert.ok(
      readyDuringOutage.includes(503),
      `/readyz never said 503 while PostgreSQL was down: ${readyDuringOutage}`,
    );
    // What cannot be verified or read while the store is down is a clean 503, never a guess.
    for (const o of unverifiable)
      assert.equal(o.status, 503, `${o.face} with a key never verified: ${o.problem}`);
    assert.deepEqual(
      unverifiable.filter((o) => o.problem).map((o) => o.problem),
      [],
    );
    for (const lookup of lookups) {
      assert.equal(lookup.status, 503, JSON.stringify(lookup.body));
      assert.equal(lookup.body.error.type, "overloaded_error");
    }
    // Redis was really in use, went away, and routing carried on on memory.
    assert.match(gateway.output(), /shared routing state unavailable/);

    // Recovered without a restart: ready again, and each protocol is served.
    await until("/readyz to answer 200", async () => (await readyzStatus(url)) === 200);
    for (const [i, face] of (["chat", "messages", "gemini"] as const).entries()) {
      const after = await send(face, url, 10_000 + i);
      assert.equal(after.status, 200, `${face} after recovery: ${after.problem}`);
      traffic.outcomes.push(after);
    }

    const served = traffic.outcomes.filter((o) => o.status === 200).map((o) => o.id!);
    const acme = async () =>
      (await db.query(`SELECT ${generationColumnList} FROM generations WHERE account_id = 'acme'`)).map(
        generationFromColumns,
      );
    const balance = async () =>
      (await db.query("SELECT balance::text AS balance FROM accounts WHERE id = 'acme'"))[0]!
        .balance as string;
    await everyAnsweredGenerationRecorded(served, acme, balance, gateway);
    // Shared routing state is written to the restarted Redis again (it kept nothing across the
    // restart), once the gateway's client has reconnected (it retries up to 2 s apart).
    const shared = new Redis(redis.url);
    try {
      await until("routing state in the restarted Redis", async () => {
        if ((await shared.keys("switchyard:routing:*")).length > 0) return true;
        assert.equal((await send("chat", url, 20_000)).status, 200);
        return false;
      });
    } finally {
      shared.disconnect();
    }

    // The lookup sees them too, through the same process.
    const last = served.at(-1)!;
    const lookedUp = await fetch(`${url}/api/v1/management/generation?id=${last}`, {
      headers: { authorization: `Bearer ${PAYG_KEY}` },
    });
    assert.equal(lookedUp.status, 200);
    t.diagnostic(
      `${traffic.outcomes.length} requests: ${served.length} served, ` +
        `${traffic.outcomes.filter((o) => o.status === 503).length} answered 503; ` +
        `${duringOutage.length} sent while PostgreSQL was down; readyz then: ${readyDuringOutage.join(",")}; ` +
        `slowest answer ${Math.max(...traffic.outcomes.map((o) => o.ms ?? 0))} ms`,
    );
  } finally {
    // Stopped lanes, whatever failed: they would otherwise spin on and keep the file from ending.
    await traffic?.stop();
    await gateway?.stop();
    await Promise.all([db.destroy(), redis.destroy()]);
  }
});

test("the embedded SQLite store locked by another process under load: no crash, nothing acknowledged lost", {
  timeout: 60_000,
}, async (t) => {
  const dir = mkdtempSync(join(tmpdir(), "switchyard-sqlite-outage-"));
  const file = join(dir, "switchyard.db");
  const gateway = await startGateway(
    {
      storage: { url: `sqlite:${file}` },
      billing: { settle_delay_ms: 0 },
      keys: [{ key: PAYG_KEY, account: "acme", credits: Number(CREDITS) }],
    },
    { dir },
  );
  const other = new DatabaseSync(file);
  const traffic = steadyTraffic(gateway.url, 4);
  try {
    await sleep(800);
    // Another process (an operator's sqlite3 shell, a backup) takes the write lock and keeps it
    // well past the gateway's busy timeout.
    other.exec("BEGIN EXCLUSIVE");
    const lockedAt = Date.now();
    await sleep(4_000);
    other.exec("COMMIT");
    const releasedAt = Date.now();
    await sleep(800);
    await traffic.stop();

    assert.equal(gateway.process.exitCode, null, `the gateway exited:\n${gateway.output().slice(-2000)}`);
    const problems = traffic.outcomes.filter((o) => o.problem);
    assert.deepEqual(
      problems.slice(0, 10).map((o) => `${o.face} ${o.status}: ${o.problem}`),
      [],
      `${problems.length} of ${traffic.outcomes.length} answers were neither a 2xx nor a clean 503`,
    );
    const whileLocked = traffic.outcomes.filter((o) => o.sentAt >= lockedAt && o.sentAt < releasedAt);
    assert.ok(
      whileLocked.length >= 10,
      `only ${whileLocked.length} requests were sent while the file was locked`,
    );
    assert.match(gateway.output(), /the store is unavailable/);
    // SQLite waits for a lock synchronously: the gateway must not wait out the whole lock on its
    // event loop (every request would stall with it), only a short busy timeout at a time.
    const slowest = Math.max(...whileLocked.map((o) => o.ms ?? 0));
    assert.ok(slowest < 2_500, `an answer took ${slowest} ms while the file was locked`);

    const served = traffic.outcomes.filter((o) => o.status === 200).map((o) => o.id!);
    const acme = async () =>
      other
        .prepare(`SELECT ${generationColumnList} FROM generations WHERE account_id = 'acme'`)
        .all()
        .map((row) => generationFromColumns(row as Columns));
    const balance = async () =>
      String(
        (other.prepare("SELECT balance FROM accounts WHERE id = 'acme'").get() as { balance: string })
          .balance,
      );
    await everyAnsweredGenerationRecorded(served, acme, balance, gateway);
    t.diagnostic(
      `${traffic.outcomes.length} requests: ${served.length} served, ` +
        `${traffic.outcomes.filter((o) => o.status === 503).length} answered 503; ` +
        `${whileLocked.length} sent while locked; slowest answer ${Math.max(...traffic.outcomes.map((o) => o.ms ?? 0))} ms`,
    );
  } finally {
    // A failed assertion or the test's timeout must not leave the lanes sending: they would spin
    // against a stopped gateway and keep the test file from ever ending.
    await traffic.stop();
    if (other.isTransaction) other.exec("ROLLBACK");
    other.close();
    await gateway.stop();
  }
});

test("serve with its store unreachable exits 1 naming why, not as a usage error", async () => {
  const dir = mkdtempSync(join(tmpdir(), "switchyard-no-store-"));
  const configFile = join(dir, "switchyard.yaml");
  writeFileSync(configFile, "storage:\n  url: postgres://postgres@127.0.0.1:1/none\n");
  const { code, stderr } = await runCli(["serve", "--config", configFile, "--port", "0"], dir);
  assert.equal(code, 1, stderr);
  assert.match(stderr, /^switchyard: the store is unavailable: connect ECONNREFUSED 127\.0\.0\.1:1$/m);
});
