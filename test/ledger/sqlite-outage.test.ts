// The embedded SQLite store when its file cannot take writes: the disk is full, or another process
// holds the write lock past the busy timeout. Writes wait in memory and land once they can; reads
// keep answering; nothing throws out of the store as anything but a StoreUnavailable (503).
// See docs/operations.md, "When the store or Redis goes away".

import assert from "node:assert/strict";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { test } from "node:test";
import { emptyUsage } from "../../src/ir/usage.ts";
import { StoreUnavailable } from "../../src/ledger/ledger-errors.ts";
import { SqliteStore } from "../../src/ledger/sqlite-store.ts";
import type { GenerationEnd, GenerationStart } from "../../src/ledger/types.ts";

const quiet = { onError: () => {}, onRecovered: () => {}, retryDelayMs: 10, maxRetryDelayMs: 50 };
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

let n = 0;
const startOf = (): GenerationStart => ({
  id: `gen-${++n}`,
  accountId: "acct",
  keyId: "key-1",
  api: "messages",
  model: "local/echo-1",
  streamed: true,
  createdAt: Date.now(),
});
const endOf = (id: string): GenerationEnd => ({
  id,
  status: "completed",
  usage: { ...emptyUsage(), promptTokens: 10, completionTokens: 5 },
  errorMessage: "x".repeat(900),
  requestRetryTimes: 0,
  finalRetry: true,
  completedAt: Date.now(),
});

function fileStore(options: ConstructorParameters<typeof SqliteStore>[1] = {}) {
  const path = join(mkdtempSync(join(tmpdir(), "switchyard-sqlite-outage-")), "ledger.db");
  return { path, store: new SqliteStore(path, { ...quiet, ...options }) };
}

test("a full disk: writes wait in memory and land once there is room; reads keep answering", async () => {
  // Turns long enough for the whole batch: no part of it can fit in the pages there are.
  const { store } = fileStore({ batchTurnMs: 1_000 });
  await store.migrate();
  await store.accounts.upsertAccount("acct", { balance: "1" });
  // The store's own connection, made to see a full disk: no page beyond those it has.
  const db = (store as unknown as { db: DatabaseSync }).db;
  const { page_count } = db.prepare("PRAGMA page_count").get() as { page_count: number };
  db.exec(`PRAGMA max_page_count = ${page_count}`);
  try {
    // Enough rows to need new pages.
    const gens = Array.from({ length: 200 }, startOf);
    const writes = gens.map((g) => store.recordGeneration(g, endOf(g.id)));
    await sleep(100);
    assert.equal(store.pendingGenerationWrites, 200);
    assert.equal((await store.accounts.getAccount("acct"))?.balance, "1");
    assert.equal(await store.ping(), true);
    await assert.rejects(store.getGeneration(gens[0]!.id, "acct"), StoreUnavailable);
    db.exec("PRAGMA max_page_count = 1073741823");
    await Promise.all(writes);
    for (const g of gens) assert.equal((await store.getGeneration(g.id, "acct"))?.status, "completed");
  } finally {
    await store.close();
  }
});

test("another process holding the write lock: writes wait off the event loop, reads go on", async () => {
  const { path, store } = fileStore({ busyTimeoutMs: 50 });
  await store.migrate();
  await store.accounts.upsertAccount("acct", { balance: "1" });
  const other = new DatabaseSync(path);
  try {
    other.exec("BEGIN EXCLUSIVE");
    const g = startOf();
    const written = store.recordGeneration(g, endOf(g.id));
    // The event loop is held at most one busy timeout at a time: a timer set now fires on time.
    let longest = 0;
    let last = performance.now();
    const probe = setInterval(() => {
      const at = performance.now();
      longest = Math.max(longest, at - last);
      last = at;
    }, 5);
    await sleep(400);
    clearInterval(probe);
    assert.ok(longest < 200, `the event loop was held ${Math.round(longest)} ms`);
    assert.equal(store.pendingGenerationWrites, 1);
    assert.equal((await store.accounts.getAccount("acct"))?.balance, "1");
    await assert.rejects(store.accounts.creditAccount("acct", "1"), StoreUnavailable);
    other.exec("COMMIT");
    await written;
    assert.equal((await store.getGeneration(g.id, "acct"))?.status, "completed");
  } finally {
    if (other.isTransaction) other.exec("ROLLBACK");
    other.close();
    await store.close();
  }
});

test("a call that fails on the file is a StoreUnavailable in every part: stored responses, conversations and keys too", async () => {
  const { store } = fileStore();
  await store.migrate();
  // Every statement's step fails as a disk that stopped answering does (SQLITE_IOERR_READ).
  const ioError = () => {
    throw Object.assign(new Error("disk I/O error"), { errcode: 266 });
  };
  const keyRow = {
    id: "key-1",
    hash: "h",
    prefix: "sk-",
    kind: "payg",
    accountId: "acct",
    createdAt: 0,
  } as const;
  const prepared = store as unknown as { statement: (sql: string) => unknown };
  prepared.statement = () => ({ get: ioError, all: ioError, run: ioError });
  try {
    const reads: Array<[string, () => Promise<unknown>]> = [
      ["getAccount", () => store.accounts.getAccount("acct")],
      ["listKeys", () => store.keys.listKeys()],
      ["getResponse", () => store.responses.getResponse("gen-1", "acct")],
      ["getChain", () => store.responses.getChain("gen-1", "acct", 10)],
      ["responseOfItem", () => store.responses.responseOfItem("msg_1", "acct")],
      ["storedBytes", () => store.responses.storedBytes("acct")],
      ["storedBytesByAccount", () => store.responses.storedBytesByAccount()],
      ["getConversation", () => store.conversations.getConversation("conv_1", "acct")],
      ["listItems", () => store.conversations.listItems("conv_1", "acct")],
      ["findItem", () => store.conversations.findItem("msg_1", "acct")],
      ["pageItems", () => store.conversations.pageItems("conv_1", "acct", { limit: 2, order: "asc" })],
      ["getItem", () => store.conversations.getItem("conv_1", "msg_1", "acct")],
      // A run's events and the deployment's secret, on the request path too.
      ["eventsAfter", () => store.responses.eventsAfter("gen-1", "acct", -1)],
      [
        "appendEvents",
        () => store.responses.appendEvents("gen-1", "acct", { first: 0, last: 0, content: "[]" }),
      ],
      ["secret", () => store.responses.secret("compaction", "fresh")],
      ["findKeyByHash", () => store.keys.findKeyByHash("h")],
      ["listAccounts", () => store.accounts.listAccounts()],
      // The key writes of the admin API as well.
      ["insertKey", () => store.keys.insertKey(keyRow)],
      ["setKeyLimits", () => store.keys.setKeyLimits("key-1", { rpm: 1 }, undefined)],
    ];
    for (const [name, read] of reads) await assert.rejects(read(), StoreUnavailable, name);
  } finally {
    await store.close();
  }
});
