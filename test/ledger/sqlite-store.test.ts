import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { after, describe, test } from "node:test";
import { fileURLToPath } from "node:url";
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
    await store.upsertAccount("acct", { balance: "0.1" });
    await store.creditAccount("acct", "0.2");
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
    assert.equal(await store.markInterrupted(), 1);
    assert.equal((await store.getGeneration("gen-killed", "a"))?.status, "interrupted");
    await store.close();
  });
});
