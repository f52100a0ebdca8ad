// Stored responses and conversations, one contract on both stores (src/ledger/responses-types.ts,
// src/ledger/conversations-types.ts): read-your-writes, isolation by account, the item index behind
// item_reference, order of appended items, deletion, retention batches, stored bytes, the
// deployment's secrets; and the seal that encrypts their content at rest (src/ledger/content-seal.ts).

import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { after, describe, test } from "node:test";
import pg from "pg";
import { newGenerationId } from "../../src/gateway/ids.ts";
import { Retention } from "../../src/gateway/retention.ts";
import { ContentSeal, newSealKey } from "../../src/ledger/content-seal.ts";
import type { ItemPage } from "../../src/ledger/conversations-types.ts";
import { PostgresStore } from "../../src/ledger/postgres-store.ts";
import { withDefaultUser } from "../../src/ledger/postgres-url.ts";
import type { StoredResponseRow } from "../../src/ledger/responses-types.ts";
import { SqliteStore } from "../../src/ledger/sqlite-store.ts";
import type { Store } from "../../src/ledger/types.ts";
import { dropSchema, PG_URL, postgresUnreachable, uniqueSchema } from "../support/postgres.ts";

function row(accountId: string, overrides: Partial<StoredResponseRow> = {}): StoredResponseRow {
  const id = overrides.id ?? newGenerationId();
  return {
    id,
    accountId,
    createdAt: Date.now(),
    model: "local/echo-1",
    status: "completed",
    content: JSON.stringify({ input: [], response: { id } }),
    itemIds: [`msg_${id}_0`, `rs_${id}_1`],
    ...overrides,
  };
}

function contract(name: string, open: () => Promise<Store>): void {
  describe(`stored responses on ${name}`, () => {
    test("a chain is read newest first in one query: the account's rows only, to a gap or the limit", async () => {
      const store = await open();
      try {
        const account = `acct-${randomBytes(4).toString("hex")}`;
        const first = row(account);
        const second = row(account, { previousResponseId: first.id });
        const third = row(account, { previousResponseId: second.id });
        const strangers = row("acct-other", { previousResponseId: third.id });
        for (const r of [first, second, third, strangers]) await store.responses.saveResponse(r);
        const ids = async (id: string, accountId: string, limit = 100) =>
          (await store.responses.getChain(id, accountId, limit)).map((r) => r.id);
        assert.deepEqual(await ids(third.id, account), [third.id, second.id, first.id]);
        assert.deepEqual(await ids(third.id, account, 2), [third.id, second.id]);
        assert.deepEqual(await ids(third.id, "acct-other"), []);
        // Another account's response naming ours as its previous one reaches none of ours.
        assert.deepEqual(await ids(strangers.id, "acct-other"), [strangers.id]);
        await store.responses.deleteResponse(second.id, account);
        assert.deepEqual(await ids(third.id, account), [third.id]);
      } finally {
        await store.close();
      }
    });

    test("a secret: whichever process keeps its own first, every process reads that one, and it stays", async () => {
      const [a, b] = [await open(), await open()];
      try {
        const name = `test-${randomBytes(4).toString("hex")}`;
        const [x, y] = await Promise.all([
          a.responses.secret(name, "from-a"),
          b.responses.secret(name, "from-b"),
        ]);
        assert.equal(x, y);
        assert.ok(x === "from-a" || x === "from-b", x);
        assert.equal(await b.responses.secret(name, "later"), x);
        assert.equal(await a.responses.secret(`${name}-other`, "other"), "other");
      } finally {
        await a.close();
        await b.close();
      }
    });

    test("a run's status moves only from the statuses given; runs of a process gone are failed", async () => {
      const store = await open();
      try {
        const account = `acct-${randomBytes(4).toString("hex")}`;
        const queued = row(account, { status: "queued", owner: store.owner });
        const orphan = row(account, { status: "in_progress", owner: "owner-long-gone" });
        for (const r of [queued, orphan]) await store.responses.saveResponse(r);
        assert.equal(await store.responses.setStatus(queued.id, account, "in_progress", ["queued"]), true);
        assert.equal(await store.responses.setStatus(queued.id, account, "in_progress", ["queued"]), false);
        assert.equal(
          await store.responses.setStatus(queued.id, "acct-other", "cancelled", ["in_progress"]),
          false,
        );
        await store.renewLease();
        await store.responses.markAbandonedRuns(60_000);
        const status = async (id: string) => (await store.responses.getResponse(id, account))?.status;
        assert.equal(await status(orphan.id), "failed");
        // A shared store keeps a live process's runs; a file of one serve has none alive at its start.
        assert.equal(await status(queued.id), store.sharedByGateways ? "in_progress" : "failed");
        assert.equal((await store.responses.getResponse(queued.id, account))?.owner, store.owner);
        // A process known dead (a worker that exited): its runs, and only its, are failed at once.
        const dead = row(account, { status: "in_progress", owner: "worker-dead" });
        const alive = row(account, { status: "in_progress", owner: "worker-alive" });
        for (const r of [dead, alive]) await store.responses.saveResponse(r);
        assert.equal(await store.responses.failRunsOf(["worker-dead"]), 1);
        assert.equal(await status(dead.id), "failed");
        assert.equal(await status(alive.id), "in_progress");
        assert.equal(await store.responses.failRunsOf([]), 0);
      } finally {
        await store.close();
      }
    });

    test("a saved response reads back at once, from another store on the same data too", async () => {
      const store = await open();
      const saved = row("acct-a", { previousResponseId: "gen-earlier", content: "it\u00e9s \\u0000" });
      await store.responses.saveResponse(saved);
      const other = await open();
      try {
        assert.deepEqual(await other.responses.getResponse(saved.id, "acct-a"), { ...saved, itemIds: [] });
      } finally {
        await other.close();
        await store.close();
      }
    });

    test("another account's id is unknown: no read, no item, no delete", async () => {
      const store = await open();
      try {
        const saved = row("acct-a");
        await store.responses.saveResponse(saved);
        assert.equal(await store.responses.getResponse(saved.id, "acct-b"), undefined);
        assert.equal(await store.responses.responseOfItem(saved.itemIds[0]!, "acct-b"), undefined);
        assert.equal(await store.responses.deleteResponse(saved.id, "acct-b"), false);
        assert.equal(await store.responses.responseOfItem(saved.itemIds[1]!, "acct-a"), saved.id);
      } finally {
        await store.close();
      }
    });

    test("a deleted response and its items are gone; saving again replaces", async () => {
      const store = await open();
      try {
        const saved = row("acct-a");
        await store.responses.saveResponse(saved);
        await store.responses.saveResponse({ ...saved, status: "failed", content: "second" });
        assert.equal((await store.responses.getResponse(saved.id, "acct-a"))?.content, "second");
        assert.equal(await store.responses.deleteResponse(saved.id, "acct-a"), true);
        assert.equal(await store.responses.getResponse(saved.id, "acct-a"), undefined);
        assert.equal(await store.responses.responseOfItem(saved.itemIds[0]!, "acct-a"), undefined);
        assert.equal(await store.responses.deleteResponse(saved.id, "acct-a"), false);
      } finally {
        await store.close();
      }
    });

    test("a run's events: read after a sequence, from another store at once; gone with their response", async () => {
      const store = await open();
      const other = await open();
      try {
        const account = `acct-${randomBytes(4).toString("hex")}`;
        const saved = row(account, { status: "in_progress" });
        await store.responses.saveResponse(saved);
        const batch = (first: number, last: number) => ({ first, last, content: `[${first}..${last}]` });
        for (const b of [batch(0, 2), batch(3, 3), batch(4, 9)])
          await store.responses.appendEvents(saved.id, account, b);
        // A flush tried again after a failure that did commit is no second copy.
        await store.responses.appendEvents(saved.id, account, batch(3, 3));
        const firsts = async (after: number, accountId = account) =>
          (await other.responses.eventsAfter(saved.id, accountId, after)).map((b) => [b.first, b.last]);
        assert.deepEqual(await firsts(-1), [
          [0, 2],
          [3, 3],
          [4, 9],
        ]);
        assert.deepEqual(await firsts(2), [
          [3, 3],
          [4, 9],
        ]);
        assert.deepEqual(await firsts(5), [[4, 9]]);
        assert.deepEqual(await firsts(9), []);
        assert.deepEqual(await firsts(-1, "acct-other"), []);
        const bytes = Buffer.byteLength(saved.content) + "[0..2][3..3][4..9]".length;
        assert.equal(await store.responses.storedBytes(account), bytes);
        assert.equal((await store.responses.storedBytesByAccount()).get(account), bytes);

        assert.equal(await store.responses.deleteResponse(saved.id, account), true);
        assert.deepEqual(await firsts(-1), []);
        // A run deleted while it runs writes nothing more.
        await store.responses.appendEvents(saved.id, account, batch(10, 11));
        assert.deepEqual(await firsts(-1), []);
        assert.equal(await store.responses.storedBytes(account), 0);
      } finally {
        await other.close();
        await store.close();
      }
    });

    test("retention deletes the oldest in batches of at most the limit, by id", async () => {
      const store = await open();
      try {
        const account = `acct-${randomBytes(4).toString("hex")}`;
        const old = [1, 2, 3].map((i) => row(account, { id: newGenerationId(Date.UTC(2001, 0, i)) }));
        const fresh = row(account);
        for (const r of [...old, fresh]) await store.responses.saveResponse(r);
        await store.responses.appendEvents(old[2]!.id, account, { first: 0, last: 0, content: "[]" });
        const bound = newGenerationId(Date.UTC(2001, 0, 10)).slice(0, 13);
        assert.equal(await store.responses.deleteResponses(bound, 2), 2);
        assert.equal(await store.responses.deleteResponses(bound, 2), 1);
        assert.equal(await store.responses.deleteResponses(bound, 2), 0);
        assert.equal(await store.responses.getResponse(old[2]!.id, account), undefined);
        assert.equal(await store.responses.responseOfItem(old[2]!.itemIds[0]!, account), undefined);
        assert.deepEqual(await store.responses.eventsAfter(old[2]!.id, account, -1), []);
        assert.ok(await store.responses.getResponse(fresh.id, account));
        assert.equal(await store.responses.storedBytes(account), Buffer.byteLength(fresh.content));
        const byAccount = await store.responses.storedBytesByAccount();
        assert.equal(byAccount.get(account), Buffer.byteLength(fresh.content));
      } finally {
        await store.close();
      }
    });
  });
}

function conversationContract(name: string, open: () => Promise<Store>): void {
  describe(`conversations on ${name}`, () => {
    const item = (id: string) => ({ id, content: JSON.stringify({ id, type: "message" }) });
    const conversation = (accountId: string) => ({
      id: `conv_${randomBytes(8).toString("hex")}`,
      accountId,
      createdAt: Date.now(),
      metadata: '{"topic":"t"}',
    });

    test("items stay in order across appends, read from another store at once", async () => {
      const store = await open();
      const other = await open();
      try {
        const conv = conversation("acct-a");
        await store.conversations.createConversation(conv, [item("msg_1"), item("msg_2")]);
        assert.equal(
          await store.conversations.appendItems(conv.id, "acct-a", [item("msg_3"), item("rs_4")]),
          true,
        );
        assert.equal(await other.conversations.appendItems(conv.id, "acct-a", [item("msg_5")]), true);
        const items = await other.conversations.listItems(conv.id, "acct-a");
        assert.deepEqual(
          items?.map((i) => i.id),
          ["msg_1", "msg_2", "msg_3", "rs_4", "msg_5"],
        );
        assert.deepEqual(await other.conversations.getConversation(conv.id, "acct-a"), conv);
        assert.deepEqual(await other.conversations.findItem("rs_4", "acct-a"), item("rs_4"));
      } finally {
        await other.close();
        await store.close();
      }
    });

    test("another account's conversation is unknown to every call", async () => {
      const store = await open();
      try {
        const conv = conversation("acct-a");
        await store.conversations.createConversation(conv, [item("msg_x")]);
        assert.equal(await store.conversations.getConversation(conv.id, "acct-b"), undefined);
        assert.equal(await store.conversations.listItems(conv.id, "acct-b"), undefined);
        assert.equal(await store.conversations.appendItems(conv.id, "acct-b", [item("msg_y")]), false);
        assert.equal(await store.conversations.updateConversation(conv.id, "acct-b", "{}"), false);
        assert.equal(await store.conversations.deleteItem(conv.id, "msg_x", "acct-b"), false);
        assert.equal(await store.conversations.findItem("msg_x", "acct-b"), undefined);
        assert.equal(await store.conversations.deleteConversation(conv.id, "acct-b"), false);
        assert.equal((await store.conversations.listItems(conv.id, "acct-a"))?.length, 1);
      } finally {
        await store.close();
      }
    });

    test("a page reads only its items: after, limit, order; one item by its id", async () => {
      const store = await open();
      try {
        const conv = conversation("acct-a");
        const ids = ["m0", "m1", "m2", "m3", "m4"];
        await store.conversations.createConversation(conv, ids.slice(0, 3).map(item));
        await store.conversations.appendItems(conv.id, "acct-a", ids.slice(3).map(item));
        const page = async (p: ItemPage, accountId = "acct-a") => {
          const rows = await store.conversations.pageItems(conv.id, accountId, p);
          return (
            rows && ("unknownAfter" in rows ? rows : { ids: rows.items.map((i) => i.id), more: rows.hasMore })
          );
        };
        assert.deepEqual(await page({ limit: 2, order: "desc" }), { ids: ["m4", "m3"], more: true });
        assert.deepEqual(await page({ after: "m3", limit: 2, order: "desc" }), {
          ids: ["m2", "m1"],
          more: true,
        });
        assert.deepEqual(await page({ after: "m1", limit: 2, order: "desc" }), { ids: ["m0"], more: false });
        assert.deepEqual(await page({ limit: 5, order: "asc" }), { ids: ids, more: false });
        assert.deepEqual(await page({ after: "m1", limit: 2, order: "asc" }), {
          ids: ["m2", "m3"],
          more: true,
        });
        assert.deepEqual(await page({ after: "m4", limit: 2, order: "asc" }), { ids: [], more: false });
        assert.deepEqual(await page({ after: "nope", limit: 2, order: "asc" }), { unknownAfter: "nope" });
        // The content comes back as stored; another account's conversation is unknown.
        const first = await store.conversations.pageItems(conv.id, "acct-a", { limit: 1, order: "asc" });
        assert.deepEqual(first, { items: [item("m0")], hasMore: true });
        assert.equal(await page({ limit: 2, order: "asc" }, "acct-b"), undefined);
        assert.deepEqual(await store.conversations.getItem(conv.id, "m2", "acct-a"), item("m2"));
        assert.equal(await store.conversations.getItem(conv.id, "m2", "acct-b"), undefined);
        assert.equal(await store.conversations.getItem(conv.id, "nope", "acct-a"), undefined);
        // An item of another of the account's conversations is not this one's.
        const other = conversation("acct-a");
        await store.conversations.createConversation(other, [item("o1")]);
        assert.equal(await store.conversations.getItem(conv.id, "o1", "acct-a"), undefined);
        assert.deepEqual(await page({ after: "o1", limit: 2, order: "asc" }), { unknownAfter: "o1" });
      } finally {
        await store.close();
      }
    });

    test("update, delete an item, delete the conversation with its items", async () => {
      const store = await open();
      try {
        const conv = conversation("acct-a");
        await store.conversations.createConversation(conv, [item("msg_a"), item("msg_b")]);
        assert.equal(await store.conversations.updateConversation(conv.id, "acct-a", '{"x":"1"}'), true);
        assert.equal((await store.conversations.getConversation(conv.id, "acct-a"))?.metadata, '{"x":"1"}');
        assert.equal(await store.conversations.deleteItem(conv.id, "msg_a", "acct-a"), true);
        assert.deepEqual(
          (await store.conversations.listItems(conv.id, "acct-a"))?.map((i) => i.id),
          ["msg_b"],
        );
        assert.equal(await store.conversations.deleteConversation(conv.id, "acct-a"), true);
        assert.equal(await store.conversations.getConversation(conv.id, "acct-a"), undefined);
        assert.equal(await store.conversations.findItem("msg_b", "acct-a"), undefined);
      } finally {
        await store.close();
      }
    });
  });
}

const dir = mkdtempSync(join(tmpdir(), "switchyard-responses-store-"));
after(() => rmSync(dir, { recursive: true, force: true }));
const openSqlite = async () => {
  const store = new SqliteStore(join(dir, "s.db"), { sharedByProcesses: true });
  await store.migrate();
  return store;
};
contract("sqlite", openSqlite);
conversationContract("sqlite", openSqlite);

/** The statements `work` sends through the store's part (SQLite's cached statements), in order. */
async function sqliteStatements(store: SqliteStore, work: () => Promise<unknown>): Promise<string[]> {
  const seen: string[] = [];
  const prepared = store as unknown as { statement: (sql: string) => unknown };
  const original = prepared.statement;
  prepared.statement = (sql: string) => {
    seen.push(sql);
    return original.call(store, sql);
  };
  try {
    await work();
  } finally {
    prepared.statement = original;
  }
  return seen;
}

test("sqlite: runs still going are found by their own index, not by reading every stored response", async () => {
  const store = await openSqlite();
  const reader = new DatabaseSync(join(dir, "s.db"));
  try {
    const plan = (sql: string) =>
      reader
        .prepare(`EXPLAIN QUERY PLAN ${sql}`)
        .all()
        .map((r) => String(r.detail))
        .join("; ");
    const sent = [
      ...(await sqliteStatements(store, () => store.responses.markAbandonedRuns())),
      ...(await sqliteStatements(store, () => store.responses.failRunsOf(["worker-1"]))),
    ].filter((sql) => sql.includes("stored_responses"));
    assert.equal(sent.length, 2);
    for (const sql of sent) assert.match(plan(sql), /USING INDEX stored_responses_running/, sql);
  } finally {
    reader.close();
    await store.close();
  }
});

if ((await postgresUnreachable()) === undefined) {
  const schema = uniqueSchema("switchyard_responses");
  after(() => dropSchema(schema));
  const openPostgres = async () => {
    const store = new PostgresStore(PG_URL, { schema });
    await store.migrate();
    return store;
  };
  contract("postgres", openPostgres);
  conversationContract("postgres", openPostgres);

  test("postgres: runs still going are found by their own index, not by reading every stored response", async () => {
    const store = await openPostgres();
    const explainer = new pg.Client({ connectionString: withDefaultUser(PG_URL) });
    await explainer.connect();
    const access = (
      store.responses as unknown as { db: { query: (sql: string, params?: unknown[]) => unknown } }
    ).db;
    const original = access.query;
    const sent: Array<[string, unknown[] | undefined]> = [];
    access.query = (sql, params) => {
      sent.push([sql, params]);
      return original.call(access, sql, params);
    };
    try {
      await store.responses.markAbandonedRuns(60_000);
      await store.responses.failRunsOf(["worker-1"]);
      access.query = original;
      assert.equal(sent.length, 2);
      // The table is small here: a sequential scan is what the planner takes when nothing else will do.
      await explainer.query("SET enable_seqscan = off");
      for (const [sql, params] of sent) {
        const plan = (await explainer.query(`EXPLAIN ${sql}`, params)).rows
          .map((r) => r["QUERY PLAN"])
          .join("\n");
        assert.match(plan, /stored_responses_running/, plan);
      }
    } finally {
      access.query = original;
      await explainer.end();
      await store.close();
    }
  });

  test("postgres: a batch written while its response is being deleted waits, and writes nothing", async () => {
    const store = await openPostgres();
    const deleter = new pg.Client({ connectionString: withDefaultUser(PG_URL) });
    await deleter.connect();
    try {
      const account = `acct-${randomBytes(4).toString("hex")}`;
      const saved = row(account, { status: "in_progress" });
      await store.responses.saveResponse(saved);
      // deleteResponse's statements, held open: the batch must not land between them and the commit.
      await deleter.query("BEGIN");
      await deleter.query(`DELETE FROM "${schema}".stored_responses WHERE id = $1`, [saved.id]);
      await deleter.query(`DELETE FROM "${schema}".stored_response_events WHERE response_id = $1`, [
        saved.id,
      ]);
      const appended = store.responses.appendEvents(saved.id, account, {
        first: 0,
        last: 1,
        content: "[0..1]",
      });
      await new Promise((resolve) => setTimeout(resolve, 200));
      await deleter.query("COMMIT");
      await appended;
      const left = await deleter.query(
        `SELECT count(*)::int AS n FROM "${schema}".stored_response_events WHERE response_id = $1`,
        [saved.id],
      );
      assert.equal(left.rows[0].n, 0, "an event outlived its response");
      assert.equal(await store.responses.storedBytes(account), 0);
    } finally {
      await deleter.end();
      await store.close();
    }
  });
}

describe("retention of stored responses (storage.responses_retention_days)", () => {
  test("a sweep deletes those older than the days, batch by batch, and keeps the rest", async () => {
    const store = await openSqlite();
    try {
      const account = `acct-${randomBytes(4).toString("hex")}`;
      const now = Date.now();
      const old = [41, 40, 31].map((days) => row(account, { id: newGenerationId(now - days * 86_400_000) }));
      const kept = row(account, { id: newGenerationId(now - 29 * 86_400_000) });
      for (const r of [...old, kept]) await store.responses.saveResponse(r);
      const retention = new Retention(store, {
        days: 30,
        batch: 2,
        pauseMs: 0,
        remove: (idBefore, limit) => store.responses.deleteResponses(idBefore, limit),
      });
      assert.equal(await retention.sweep(now), 3);
      assert.ok(await store.responses.getResponse(kept.id, account));
      assert.equal(await store.responses.getResponse(old[2]!.id, account), undefined);
    } finally {
      await store.close();
    }
  });
});

describe("content seal (storage.encryption_key)", () => {
  const key = () => randomBytes(32).toString("base64");

  test("sealed text is not the text, and opens back exactly; each seal differs", () => {
    const seal = new ContentSeal([key()]);
    const text = JSON.stringify({ input: [{ text: "secret ünïcode" }] });
    const sealed = seal.seal(text);
    assert.ok(!sealed.includes("secret"));
    assert.notEqual(seal.seal(text), sealed);
    assert.equal(seal.open(sealed), text);
  });

  test("rotation: a new first key seals, the old one still opens what it sealed", () => {
    const [oldKey, newKey] = [key(), key()];
    const sealedBefore = new ContentSeal([oldKey]).seal("before");
    const rotated = new ContentSeal([newKey, oldKey]);
    assert.equal(rotated.open(sealedBefore), "before");
    assert.throws(() => new ContentSeal([oldKey]).open(rotated.seal("after")), /does not hold/);
  });

  test("without keys text stays in clear; sealed text without its key, or tampered, fails loudly", () => {
    const clear = new ContentSeal();
    assert.equal(clear.seal("plain"), "plain");
    const k = key();
    const sealed = new ContentSeal([k]).seal("plain");
    assert.throws(() => clear.open(sealed), /does not hold/);
    const tampered = `${sealed.slice(0, -4)}AAAA`;
    assert.throws(() => new ContentSeal([k]).open(tampered));
    assert.throws(() => new ContentSeal(["c2hvcnQ="]), /32 bytes/);
  });

  test("openSealed refuses clear text, which open passes on (content kept before a key was set)", () => {
    const seal = new ContentSeal([newSealKey()]);
    assert.equal(seal.open("plain"), "plain");
    assert.throws(() => seal.openSealed("plain"), /not sealed/);
    assert.equal(seal.openSealed(seal.seal("plain")), "plain");
  });
});
