// A store made by an earlier version, upgraded in place: the tables and rows the code at 7bc46c9
// left (test/fixtures/ledger-upgrade, its migrated schema as each database described it) are opened
// by today's code, migrated again, and everything kept reads back and takes what today's code adds
// (a run's events, the deployment's secret, pages of items, the sweep's index) — one account's only.

import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { after, test } from "node:test";
import pg from "pg";
import { PostgresStore } from "../../src/ledger/postgres-store.ts";
import { withDefaultUser } from "../../src/ledger/postgres-url.ts";
import { SqliteStore } from "../../src/ledger/sqlite-store.ts";
import type { Store } from "../../src/ledger/types.ts";
import { dropSchema, PG_URL, requirePostgres, uniqueSchema } from "../support/postgres.ts";

const fixture = (name: string) =>
  readFileSync(new URL(`../fixtures/ledger-upgrade/${name}`, import.meta.url), "utf8");

/** Rows as that version wrote them, in its columns. */
function oldRows(t: (table: string) => string): string {
  return `
INSERT INTO ${t("accounts")} (id, balance, created_at) VALUES ('acct-a', '10.123456789', 1), ('acct-b', '0.1', 1);
INSERT INTO ${t("keys")} (id, hash, prefix, kind, account_id, created_at, limits)
  VALUES ('key-a', 'hash-a', 'sk-a', 'payg', 'acct-a', 1, '{"rpm":5}');
INSERT INTO ${t("stored_responses")} (id, account_id, created_at, model, status, previous_response_id, content, owner)
  VALUES ('gen-old-1', 'acct-a', 5, 'local/echo-1', 'completed', NULL, 'kept text', NULL),
         ('gen-old-2', 'acct-a', 6, 'local/echo-1', 'in_progress', 'gen-old-1', 'run', 'worker-dead');
INSERT INTO ${t("stored_response_items")} (account_id, id, response_id) VALUES ('acct-a', 'msg_old', 'gen-old-1');
INSERT INTO ${t("conversations")} (id, account_id, created_at, metadata) VALUES ('conv_old', 'acct-a', 7, '{}');
INSERT INTO ${t("conversation_items")} (conversation_id, seq, account_id, id, content)
  VALUES ('conv_old', 0, 'acct-a', 'i0', 'zero'), ('conv_old', 1, 'acct-a', 'i1', 'one'), ('conv_old', 2, 'acct-a', 'i2', 'two');
`;
}

async function readsBackAndTakesToday(store: Store): Promise<void> {
  assert.equal((await store.accounts.getAccount("acct-a"))?.balance, "10.123456789");
  assert.deepEqual(
    (await store.keys.listKeys("acct-a")).map((k) => [k.id, k.limits]),
    [["key-a", { rpm: 5 }]],
  );
  assert.equal((await store.responses.getResponse("gen-old-1", "acct-a"))?.content, "kept text");
  assert.deepEqual(
    (await store.responses.getChain("gen-old-2", "acct-a", 10)).map((r) => r.id),
    ["gen-old-2", "gen-old-1"],
  );
  assert.equal(await store.responses.responseOfItem("msg_old", "acct-a"), "gen-old-1");

  await store.responses.appendEvents("gen-old-2", "acct-a", { first: 0, last: 4, content: "[events]" });
  await store.responses.appendEvents("gen-old-2", "acct-b", { first: 5, last: 6, content: "[not B's]" });
  assert.deepEqual(await store.responses.eventsAfter("gen-old-2", "acct-a", -1), [
    { first: 0, last: 4, content: "[events]" },
  ]);
  assert.deepEqual(await store.responses.eventsAfter("gen-old-2", "acct-b", -1), []);
  assert.equal(
    await store.responses.storedBytes("acct-a"),
    "kept text".length + "run".length + "[events]".length,
  );
  assert.equal(await store.responses.secret("compaction", "first"), "first");
  assert.equal(await store.responses.secret("compaction", "second"), "first");

  const page = await store.conversations.pageItems("conv_old", "acct-a", {
    after: "i0",
    limit: 1,
    order: "asc",
  });
  assert.deepEqual(page, { items: [{ id: "i1", content: "one" }], hasMore: true });
  assert.equal(
    await store.conversations.pageItems("conv_old", "acct-b", { limit: 5, order: "asc" }),
    undefined,
  );
  assert.equal((await store.conversations.getItem("conv_old", "i2", "acct-a"))?.content, "two");

  assert.equal(await store.responses.failRunsOf(["worker-dead"]), 1);
  assert.equal((await store.responses.getResponse("gen-old-2", "acct-a"))?.status, "failed");
  assert.equal(await store.responses.deleteResponses("gen-zzz", 10), 2);
  assert.equal(await store.responses.storedBytes("acct-a"), 0, "the events went with their response");
}

test("a SQLite file migrated by the code at 7bc46c9 upgrades in place", async () => {
  const dir = mkdtempSync(join(tmpdir(), "switchyard-upgrade-"));
  try {
    const file = join(dir, "old.db");
    const old = new DatabaseSync(file);
    old.exec(fixture("sqlite-7bc46c9.sql"));
    old.exec(oldRows((table) => table));
    old.close();
    for (let opening = 0; opening < 2; opening++) {
      const store = new SqliteStore(file);
      await store.migrate();
      if (opening === 0) await readsBackAndTakesToday(store);
      await store.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

const schema = uniqueSchema("switchyard_upgrade");
after(() => dropSchema(schema));

test("a PostgreSQL schema migrated by the code at 7bc46c9 upgrades in place", async (t) => {
  if (!(await requirePostgres(t))) return;
  const client = new pg.Client({ connectionString: withDefaultUser(PG_URL) });
  await client.connect();
  try {
    await client.query(fixture("postgres-7bc46c9.sql").replaceAll("__SCHEMA__", `"${schema}"`));
    await client.query(oldRows((table) => `"${schema}".${table}`));
  } finally {
    await client.end();
  }
  for (let opening = 0; opening < 2; opening++) {
    const store = new PostgresStore(PG_URL, { schema });
    await store.migrate();
    if (opening === 0) await readsBackAndTakesToday(store);
    await store.close();
  }
});
