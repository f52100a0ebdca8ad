import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { closeSync, existsSync, mkdtempSync, openSync, readSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { after, describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import { emptyUsage } from "../../src/ir/usage.ts";
import { SqliteStore } from "../../src/ledger/sqlite-store.ts";
import { runStoreContract } from "./store-contract.ts";

const dir = mkdtempSync(join(tmpdir(), "switchyard-ledger-"));
after(() => rmSync(dir, { recursive: true, force: true }));

const contractFile = join(dir, "contract", "ledger.db");
runStoreContract("sqlite", async (options) => {
  const store = new SqliteStore(contractFile, options);
  await store.migrate();
  return store;
});

describe("sqlite store on disk", () => {
  test("creates the parent directories of its file and uses WAL", async () => {
    const file = join(dir, "a", "b", "c.db");
    const store = new SqliteStore(file);
    await store.migrate();
    await store.close();
    assert.ok(existsSync(file));
    const db = new DatabaseSync(file);
    assert.equal(db.prepare("PRAGMA journal_mode").get()?.journal_mode, "wal");
    db.close();
  });

  test("stores balances as exact decimal text", async () => {
    const file = join(dir, "money.db");
    const store = new SqliteStore(file);
    await store.migrate();
    await store.accounts.upsertAccount("acct", { balance: "0.1" });
    await store.accounts.creditAccount("acct", "0.2");
    await store.close();
    const db = new DatabaseSync(file);
    const row = db.prepare("SELECT balance, typeof(balance) AS type FROM accounts WHERE id = 'acct'").get();
    db.close();
    assert.deepEqual({ ...row }, { balance: "0.3", type: "text" });
  });

  test("works in memory", async () => {
    const store = new SqliteStore(":memory:");
    await store.migrate();
    await store.startGeneration({
      id: "gen-mem",
      accountId: "a",
      keyId: "k",
      api: "generateContent",
      model: "google/gemini-2.5-pro",
      streamed: true,
      createdAt: 1,
    });
    assert.equal((await store.getGeneration("gen-mem", "a"))?.api, "generateContent");
    await store.close();
  });

  test("a file made before generations named their owner or session gets the columns; its pending rows are abandoned", async () => {
    const sessionStart = {
      accountId: "a",
      keyId: "k",
      api: "messages" as const,
      model: "m",
      streamed: true,
      createdAt: 3,
      sessionId: "s-1",
    };
    const file = join(dir, "old.db");
    const before = new SqliteStore(file);
    await before.migrate();
    await before.close();
    const db = new DatabaseSync(file);
    db.exec("ALTER TABLE generations DROP COLUMN owner");
    db.exec("ALTER TABLE generations DROP COLUMN session_id");
    db.exec(`INSERT INTO generations (id, account_id, key_id, api, model, streamed, created_at, status)
             VALUES ('gen-old', 'a', 'k', 'messages', 'm', 1, 1, 'pending')`);
    db.close();

    const store = new SqliteStore(file);
    await Promise.all([store.migrate(), new SqliteStore(file).migrate()]);
    await store.startGeneration({
      id: "gen-new",
      accountId: "a",
      keyId: "k",
      api: "messages",
      model: "m",
      streamed: true,
      createdAt: 2,
    });
    await store.renewLease();
    assert.equal(await store.markAbandoned(60_000), 1, "the row with no owner, not the live one");
    assert.equal((await store.getGeneration("gen-old", "a"))?.status, "interrupted");
    assert.equal((await store.getGeneration("gen-new", "a"))?.status, "pending");
    await store.startGeneration({ ...sessionStart, id: "gen-session" });
    assert.equal((await store.getGeneration("gen-session", "a"))?.sessionId, "s-1", "session_id added too");
    await store.close();
  });

  test("two processes writing one file at once lose nothing (WAL, busy timeout)", async () => {
    const file = join(dir, "two-writers.db");
    const setup = new SqliteStore(file);
    await setup.migrate();
    await setup.close();
    const storeModule = fileURLToPath(new URL("../../src/ledger/sqlite-store.ts", import.meta.url));
    const perProcess = 3000;
    // Each writer starts and finishes its generations in small batches as fast as it can, so that
    // their transactions keep meeting on the file's write lock.
    const writer = (name: string) => `
      import { SqliteStore } from ${JSON.stringify(storeModule)};
      let failures = 0;
      const store = new SqliteStore(${JSON.stringify(file)}, { delayMs: 1, maxBatch: 20, onError: () => failures++ });
      for (let i = 0; i < ${perProcess}; i += 50) {
        const writes = [];
        for (let j = i; j < i + 50; j++) {
          const id = "gen-${name}-" + j;
          writes.push(store.startGeneration({ id, accountId: "a", keyId: "k", api: "messages", model: "m", streamed: true, createdAt: j }));
          writes.push(store.finishGeneration({ id, status: "completed", usage: { promptTokens: 1, completionTokens: 1,
            cacheReadTokens: 0, cacheWrite5mTokens: 0, cacheWrite1hTokens: 0, reasoningTokens: 0, webSearchRequests: 0 },
            requestRetryTimes: 0, finalRetry: true, completedAt: j }));
        }
        await Promise.allSettled(writes);
      }
      await store.close();
      console.log(JSON.stringify({ failures }));
    `;
    const run = (name: string) =>
      new Promise<{ failures: number }>((resolve, reject) => {
        const child = spawn(process.execPath, ["--input-type=module", "-e", writer(name)], {
          stdio: ["ignore", "pipe", "inherit"],
        });
        let out = "";
        child.stdout.on("data", (chunk: Buffer) => {
          out += chunk;
        });
        child.on("exit", (code) =>
          code === 0 ? resolve(JSON.parse(out)) : reject(new Error(`writer exited ${code}`)),
        );
      });
    const results = await Promise.all([run("one"), run("two")]);
    assert.deepEqual(results, [{ failures: 0 }, { failures: 0 }]);
    const db = new DatabaseSync(file);
    const counts = db.prepare("SELECT status, count(*) AS n FROM generations GROUP BY status").all();
    db.close();
    assert.deepEqual(
      counts.map((r) => ({ ...r })),
      [{ status: "completed", n: 2 * perProcess }],
    );
  });

  test("an acknowledged start survives SIGKILL of the process that wrote it", async () => {
    const file = join(dir, "killed.db");
    const storeModule = fileURLToPath(new URL("../../src/ledger/sqlite-store.ts", import.meta.url));
    const script = `
      import { SqliteStore } from ${JSON.stringify(storeModule)};
      const store = new SqliteStore(${JSON.stringify(file)});
      await store.migrate();
      await store.startGeneration({ id: "gen-killed", accountId: "a", keyId: "k", api: "messages",
        model: "anthropic/claude-sonnet-4", streamed: true, createdAt: 1 });
      console.log("acknowledged");
      setInterval(() => {}, 1000);
    `;
    const child = spawn(process.execPath, ["--input-type=module", "-e", script], {
      stdio: ["ignore", "pipe", "inherit"],
    });
    await new Promise<void>((resolve, reject) => {
      child.stdout.on("data", (chunk: Buffer) => {
        if (chunk.toString().includes("acknowledged")) resolve();
      });
      child.on("exit", (code) => reject(new Error(`child exited early with ${code}`)));
    });
    const exited = new Promise((resolve) => child.once("exit", resolve));
    child.kill("SIGKILL");
    await exited;

    const store = new SqliteStore(file);
    assert.equal((await store.getGeneration("gen-killed", "a"))?.status, "pending");
    assert.equal(await store.markAbandoned(0), 1);
    assert.equal((await store.getGeneration("gen-killed", "a"))?.status, "interrupted");
    await store.close();
  });
});

/** A generation's start, as the gateway writes it. */
const startOf = (id: string, streamed = false) => ({
  id,
  accountId: "a",
  keyId: "k",
  api: "chat.completions" as const,
  model: "m",
  streamed,
  createdAt: 1,
});

const MiB = 1024 * 1024;

describe("sqlite store: the log's checkpoints", () => {
  const start = (id: string) => startOf(id);

  test("are made by a thread of its own, never at the store's commits (their fsyncs held the event loop)", async () => {
    const store = new SqliteStore(join(dir, "checkpointed.db"), { checkpointIntervalMs: 20 });
    await store.migrate();
    assert.equal(store.autocheckpointPages, 0);
    for (let i = 0; i < 50; i++) await store.startGeneration(start(`gen-c${i}`));
    const deadline = Date.now() + 5000;
    while ((store.checkpointer?.checkpointedFrames ?? 0) === 0 && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 20));
    assert.ok((store.checkpointer?.checkpointedFrames ?? 0) > 0, "the thread checkpointed the log");
    await store.close();
    const db = new DatabaseSync(join(dir, "checkpointed.db"));
    assert.equal(db.prepare("SELECT count(*) AS n FROM generations").get()?.n, 50);
    db.close();
  });

  test("the thread stays small: it does not start Node's TypeScript stripper (20 MiB of an idle gateway)", async () => {
    const store = new SqliteStore(join(dir, "checkpoint-small.db"), { checkpointIntervalMs: 20 });
    await store.migrate();
    const checkpointer = store.checkpointer;
    assert.ok(checkpointer);
    // Once it has checkpointed, its module is loaded (and with a .ts module, the stripper too).
    await store.startGeneration(start("gen-small"));
    const deadline = Date.now() + 5000;
    while (checkpointer.checkpointedFrames === 0 && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 20));
    assert.ok(checkpointer.checkpointedFrames > 0, "the thread checkpointed the log");
    // The stripper's WebAssembly memory is outside the heap: about 12 MiB with it, 3 without.
    const heap = await checkpointer.heapStatistics();
    assert.ok(heap.external_memory < 8 * MiB, `external memory ${heap.external_memory} B`);
    await store.close();
  });

  test("the log starts afresh under steady writes: past its limit, writes are held for one checkpoint", async () => {
    // Regression: a passive checkpoint never caught up with a store that commits while it runs, so
    // the log was never started again and grew without end (200 MiB in 90 s of a gateway's load).
    const file = join(dir, "checkpoint-reset.db");
    const resetFrames = 128; // 2 MiB of 16 KiB pages
    const store = new SqliteStore(file, { checkpointIntervalMs: 250, checkpointResetFrames: resetFrames });
    await store.migrate();
    const walBytes = () => statSync(`${file}-wal`, { throwIfNoEntry: false })?.size ?? 0;
    // The log's header counts its restarts (its "checkpoint sequence number", bytes 12–15): it is
    // written afresh each time the log starts again from its beginning.
    const restarts = () => {
      const header = Buffer.alloc(16);
      let fd: number | undefined;
      try {
        fd = openSync(`${file}-wal`, "r");
        return readSync(fd, header, 0, 16, 0) === 16 ? header.readUInt32BE(12) : 0;
      } catch {
        return 0;
      } finally {
        if (fd !== undefined) closeSync(fd);
      }
    };
    const finish = (id: string) => ({
      id,
      status: "completed" as const,
      usage: { ...emptyUsage(), promptTokens: 10, completionTokens: 20 },
      requestRetryTimes: 0,
      finalRetry: false,
      completedAt: 2,
    });
    // Writes arrive without a break, as a busy gateway's do: the writer commits while each
    // checkpoint runs.
    let written = 0;
    let largest = 0;
    const restartsBefore = restarts();
    const pending: Promise<void>[] = [];
    const until = Date.now() + 3000;
    while (Date.now() < until) {
      for (let i = 0; i < 20; i++) {
        const id = `gen-r${written++}`;
        pending.push(store.recordGeneration({ ...startOf(id), keyId: `k${written % 7}` }, finish(id)));
      }
      largest = Math.max(largest, walBytes());
      await new Promise((r) => setTimeout(r, 1));
    }
    await Promise.all(pending);
    assert.ok((store.checkpointer?.pausesMade ?? 0) > 0, "writes were held for a checkpoint");
    // Without the pause the log never started again (and reached 13–14 MiB here). Counted, not
    // measured in bytes: how far it grows between restarts depends on the machine's speed (on a
    // slow, busy one 8.9 MiB with the pause).
    const restarted = restarts() - restartsBefore;
    assert.ok(restarted >= 2, `the log started again ${restarted} times (largest ${largest} B)`);
    assert.ok(largest < 32 * MiB, `the log reached ${largest} B`);
    // Once started afresh, the file is cut back to the limit.
    await new Promise((r) => setTimeout(r, 600));
    await store.startGeneration(startOf("gen-r-last"));
    assert.ok(walBytes() <= resetFrames * 16384, `the log file is ${walBytes()} B`);
    await store.close();
    const db = new DatabaseSync(file);
    assert.equal(db.prepare("SELECT count(*) AS n FROM generations").get()?.n, written + 1);
    db.close();
  });

  test("are taken back by the store's connection when the thread fails", async () => {
    const store = new SqliteStore(join(dir, "checkpoint-failed.db"));
    await store.migrate();
    await store.checkpointer?.fail();
    assert.equal(store.autocheckpointPages, 1000);
    await store.startGeneration(start("gen-after"));
    assert.equal((await store.getGeneration("gen-after", "a"))?.id, "gen-after");
    await store.close();
  });

  test("an in-memory store has none to make", async () => {
    const store = new SqliteStore(":memory:");
    assert.equal(store.checkpointer, undefined);
    await store.close();
  });
});

describe("sqlite store: a batch's turns on the event loop", () => {
  const start = (id: string) => startOf(id, true);
  const end = (id: string) => ({
    id,
    status: "completed" as const,
    usage: { ...emptyUsage(), promptTokens: 3 },
    requestRetryTimes: 0,
    finalRetry: true,
    completedAt: 2,
  });

  test("a batch that outlasts its turn commits what it reached, and the rest in turns of their own", async () => {
    // A turn of 0 ms reaches one write per transaction.
    const store = new SqliteStore(":memory:", { batchTurnMs: 0, delayMs: 5 });
    await store.migrate();
    const writes = [
      store.recordGeneration(start("gen-t1"), end("gen-t1")),
      store.recordGeneration(start("gen-t2"), end("gen-t2")),
      store.startGeneration(start("gen-t3")),
      store.finishGeneration(end("gen-t3")),
      store.recordGeneration(start("gen-t4"), end("gen-t4")),
    ];
    await Promise.all(writes);
    // A start written whole with its finish (later in the batch) takes the finish with it.
    assert.equal(store.batchesWritten, 4);
    for (const id of ["gen-t1", "gen-t2", "gen-t3", "gen-t4"])
      assert.equal((await store.getGeneration(id, "a"))?.status, "completed", id);
    const [sums] = await store.queries.usage({ fromDay: 0, toDay: 0 }, "account");
    assert.deepEqual([sums?.counters[0], sums?.counters[2]], [4, 12]);
    await store.close();
  });
});
