// A crash costs one worker, not the service: `serve --workers 2`, slow streams on both workers, one
// worker SIGKILLed. The other worker's streams complete intact, the primary forks a new worker that
// serves, and the ledger shows the killed worker's in-flight generations interrupted (not one of the
// other worker's) and every other generation completed. On the embedded SQLite store and on
// PostgreSQL + Redis.

import assert from "node:assert/strict";
import { mkdtempSync } from "node:fs";
import { request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { test } from "node:test";
import pg from "pg";
import { withDefaultUser } from "../../src/ledger/postgres-url.ts";
import { baseConfig, PAYG_KEY, type RunningGateway, runCli, startGateway } from "../support/gateway.ts";
import { lookupSettled } from "../support/lookup.ts";
import { dropSchema, PG_URL, requirePostgres, uniqueSchema } from "../support/postgres.ts";
import { childPids } from "../support/processes.ts";
import { REDIS_URL, requireRedis } from "../support/redis.ts";

/** 80 words at 100 ms each: a stream runs for about 8 s. */
const PROMPT = Array.from({ length: 80 }, (_, i) => `w${i}`).join(" ");
const ANSWER = `You said: ${PROMPT}`;

type LedgerRow = { owner: string | null; status: string };
type Ledger = () => Promise<Map<string, LedgerRow>>;

for (const backend of ["sqlite", "postgres"] as const) {
  test(`a SIGKILLed worker costs only its own in-flight generations (${backend})`, async (t) => {
    if (backend === "postgres" && (!(await requirePostgres(t)) || !(await requireRedis(t)))) return;
    const dir = mkdtempSync(join(tmpdir(), "switchyard-workers-"));
    const schema = uniqueSchema("switchyard_workers");
    const sqliteFile = join(dir, "switchyard.db");
    const storage =
      backend === "sqlite"
        ? { storage: { url: `sqlite:${sqliteFile}` } }
        : { storage: { url: `${PG_URL}?schema=${schema}` }, redis: { url: REDIS_URL } };
    const ledger: Ledger = backend === "sqlite" ? sqliteLedger(sqliteFile) : postgresLedger(schema);
    let gw: RunningGateway | undefined;
    try {
      gw = await startGateway(
        baseConfig(dir, { ...storage, providers: [{ id: "local", chunk_delay_ms: 100 }] }),
        { dir, args: ["--workers", "2"] },
      );
      const primary = gw.process.pid!;
      const workers = childPids(primary);
      assert.equal(workers.length, 2, `two workers forked: ${workers}`);

      const quick: string[] = [];
      for (let i = 0; i < 4; i++) quick.push(await complete(gw.url, `before ${i}`));

      // Slow streams, each on a connection of its own, so that the primary spreads them over both.
      const streams = await Promise.all(Array.from({ length: 6 }, () => openStream(gw!.url)));
      const ownerPids = await ownersOf(
        ledger,
        streams.map((s) => s.id),
      );
      const onWorker = (pid: number) => streams.filter((s) => ownerPids.get(s.id) === pid);
      for (const pid of workers) assert.ok(onWorker(pid).length > 0, `worker ${pid} serves a stream`);
      const [victim, survivor] = workers;
      const cut = onWorker(victim);
      const kept = onWorker(survivor);

      process.kill(victim, "SIGKILL");
      const died = await gw.waitForOutput(
        new RegExp(`worker \\d+ \\(pid ${victim}\\) was killed by SIGKILL after \\d+ ms; (\\d+) generation`),
      );
      assert.equal(Number(died[1]), cut.length, "the primary marked exactly the dead worker's streams");

      // Right after the death: the dead worker's generations are interrupted, the other's still run.
      let rows = await ledger();
      for (const s of cut) assert.equal(rows.get(s.id)?.status, "interrupted", `cut stream ${s.id}`);
      for (const s of kept) assert.equal(rows.get(s.id)?.status, "pending", `running stream ${s.id}`);

      for (const s of cut) {
        const end = await s.done;
        assert.equal(end.complete, false, "a stream on the killed worker is cut");
      }
      for (const s of kept) {
        const end = await s.done;
        assert.equal(end.complete, true, `stream ${s.id} ran to its end`);
        assert.equal(end.text, ANSWER, "and arrived intact");
      }

      // A new worker is forked, and serves.
      const reborn = await gw.waitForOutput(/worker 3 \(pid (\d+)\) listening/);
      const newPid = Number(reborn[1]);
      assert.deepEqual(
        childPids(primary),
        [survivor, newPid].sort((a, b) => a - b),
      );
      let servedByNew = false;
      for (let i = 0; i < 10 && !servedByNew; i++) {
        const id = await complete(gw.url, `after ${i}`);
        quick.push(id);
        servedByNew = (await ownersOf(ledger, [id])).get(id) === newPid;
      }
      assert.ok(servedByNew, "the new worker answers requests");

      // The ledger: the cut streams interrupted, everything else completed and billed, nothing else.
      rows = await ledger();
      assert.deepEqual(
        [...rows.keys()].sort(),
        [...quick, ...streams.map((s) => s.id)].sort(),
        "every generation made, and no other",
      );
      for (const s of cut) assert.equal(rows.get(s.id)?.status, "interrupted");
      for (const id of [...quick, ...kept.map((s) => s.id)]) {
        const record = await lookupSettled(gw.url, id, PAYG_KEY);
        assert.equal(record.status, "completed", `generation ${id}`);
        assert.ok(record.usage > 0, `generation ${id} billed`);
      }
    } finally {
      await gw?.stop();
      if (backend === "postgres") await dropSchema(schema);
    }
  });
}

test("--workers takes a number of processes or auto", async () => {
  const dir = mkdtempSync(join(tmpdir(), "switchyard-workers-"));
  for (const bad of ["0", "-1", "two", "1.5"]) {
    const run = await runCli(["serve", "--port", "0", `--workers=${bad}`], dir);
    assert.equal(run.code, 2, bad);
    assert.match(run.stderr, /--workers must be a number of processes \(1 or more\) or auto/);
  }
});

test("a worker that cannot start fails `serve` as the single process would", async () => {
  const dir = mkdtempSync(join(tmpdir(), "switchyard-workers-"));
  const first = await startGateway(baseConfig(dir), { dir });
  try {
    const port = new URL(first.url).port;
    await assert.rejects(
      startGateway(baseConfig(dir), { dir, args: ["--workers", "2", "--port", port] }),
      (error: Error) => {
        assert.match(error.message, /exited with 1/);
        assert.match(error.message, /EADDRINUSE/);
        assert.match(error.message, /worker \d+ could not start/);
        return true;
      },
    );
  } finally {
    await first.stop();
  }
});

test("SIGTERM to the primary lets the workers finish their streams, then exits 0; /metrics shows every worker", async () => {
  const dir = mkdtempSync(join(tmpdir(), "switchyard-workers-"));
  const file = join(dir, "switchyard.db");
  const gw = await startGateway(baseConfig(dir, { providers: [{ id: "local", chunk_delay_ms: 20 }] }), {
    dir,
    args: ["--workers", "2"],
  });
  const workers = childPids(gw.process.pid!);

  // Metrics: a scrape reaching either worker answers both workers' series, labelled.
  for (let i = 0; i < 4; i++) await complete(gw.url, `count me ${i}`);
  const metrics = await (await fetch(`${gw.url}/metrics`)).text();
  const completed = [
    ...metrics.matchAll(
      /switchyard_generations_total\{worker="(\d)",api="chat.completions",status="completed"\} (\d+)/g,
    ),
  ];
  assert.deepEqual(completed.map((m) => m[1]).sort(), ["1", "2"], metrics);
  assert.equal(
    completed.reduce((n, m) => n + Number(m[2]), 0),
    4,
    metrics,
  );
  assert.equal(metrics.match(/# TYPE switchyard_generations_total counter/g)?.length, 1);

  const streams = await Promise.all(Array.from({ length: 4 }, () => openStream(gw.url)));
  const exited = new Promise<number | null>((resolve) => gw.process.once("exit", resolve));
  gw.process.kill("SIGTERM");
  for (const s of streams) {
    const end = await s.done;
    assert.equal(end.complete, true);
    assert.equal(end.text, ANSWER);
  }
  assert.equal(await exited, 0);
  for (const pid of workers) assert.throws(() => process.kill(pid, 0), /ESRCH/, `worker ${pid} is gone`);
  const rows = await sqliteLedger(file)();
  for (const s of streams) assert.equal(rows.get(s.id)?.status, "completed", "its finish was flushed");
});

/** A non-streamed completion on a new connection; its generation id. */
async function complete(url: string, text: string): Promise<string> {
  const res = await post(url, { model: "local/echo-1", messages: [{ role: "user", content: text }] });
  const body = await new Promise<string>((resolve, reject) => {
    let data = "";
    res.on("data", (d) => {
      data += d;
    });
    res.on("end", () => resolve(data));
    res.on("error", reject);
  });
  assert.equal(res.statusCode, 200, body);
  return JSON.parse(body).id;
}

interface OpenStream {
  id: string;
  /** Whether the stream ended with [DONE], and the text it carried. */
  done: Promise<{ complete: boolean; text: string }>;
}

/** A slow streamed completion on a new connection, once its first bytes have arrived. */
async function openStream(url: string): Promise<OpenStream> {
  const res = await post(url, {
    model: "local/echo-1",
    stream: true,
    messages: [{ role: "user", content: PROMPT }],
  });
  assert.equal(res.statusCode, 200);
  const id = String(res.headers["x-generation-id"]);
  let raw = "";
  const firstBytes = new Promise<void>((resolve) => res.once("data", () => resolve()));
  const done = new Promise<{ complete: boolean; text: string }>((resolve) => {
    const finish = () => {
      let text = "";
      let complete = false;
      for (const line of raw.split("\n")) {
        if (!line.startsWith("data: ")) continue;
        if (line === "data: [DONE]") complete = true;
        else {
          try {
            text += JSON.parse(line.slice(6)).choices?.[0]?.delta?.content ?? "";
          } catch {
            // a line cut by the crash
          }
        }
      }
      resolve({ complete, text });
    };
    res.on("data", (d) => {
      raw += d;
    });
    res.once("close", finish);
    res.once("error", () => {});
  });
  await firstBytes;
  return { id, done };
}

/** POSTs a chat completion on a connection of its own (no keep-alive pool), so each may reach another worker. */
function post(url: string, body: unknown): Promise<import("node:http").IncomingMessage> {
  return new Promise((resolve, reject) => {
    const req = request(`${url}/v1/chat/completions`, {
      method: "POST",
      agent: false,
      headers: { authorization: `Bearer ${PAYG_KEY}`, "content-type": "application/json" },
    });
    req.once("response", resolve);
    req.once("error", reject);
    req.end(JSON.stringify(body));
  });
}

/** The pid in each generation's owner id (`host/pid/random`), once its row is written. */
async function ownersOf(ledger: Ledger, ids: string[]): Promise<Map<string, number>> {
  for (let i = 0; ; i++) {
    const rows = await ledger();
    if (ids.every((id) => rows.get(id)?.owner)) {
      return new Map(ids.map((id) => [id, Number(rows.get(id)!.owner!.split("/").at(-2))]));
    }
    if (i > 200) throw new Error(`rows of ${ids} never written`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

function sqliteLedger(file: string): Ledger {
  return async () => {
    const db = new DatabaseSync(file, { readOnly: true });
    try {
      const rows = db.prepare("SELECT id, owner, status FROM generations").all();
      return new Map(
        rows.map((r) => [String(r.id), { owner: r.owner as string | null, status: String(r.status) }]),
      );
    } finally {
      db.close();
    }
  };
}

function postgresLedger(schema: string): Ledger {
  return async () => {
    const client = new pg.Client({ connectionString: withDefaultUser(PG_URL) });
    await client.connect();
    try {
      const result = await client.query(`SELECT id, owner, status FROM "${schema}".generations`);
      return new Map(result.rows.map((r) => [r.id as string, { owner: r.owner, status: r.status }]));
    } finally {
      await client.end();
    }
  };
}
