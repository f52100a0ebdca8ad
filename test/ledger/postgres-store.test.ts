// Runs the store contract on PostgreSQL, in a schema of its own that is dropped at the end.
// PostgreSQL down: CI (CI=true) fails; a developer machine skips with a loud warning.

import assert from "node:assert/strict";
import { after, describe, test } from "node:test";
import pg from "pg";
import { PostgresStore } from "../../src/ledger/postgres-store.ts";
import { withDefaultUser } from "../../src/ledger/postgres-url.ts";
import { dropSchema, PG_URL, postgresUnreachable, uniqueSchema } from "../support/postgres.ts";
import { runStoreContract } from "./store-contract.ts";

const url = PG_URL;
const schema = uniqueSchema("switchyard_test");

const unreachable = await postgresUnreachable();

if (unreachable === undefined) {
  after(() => dropSchema(schema));

  runStoreContract("postgres", async (options) => {
    const store = new PostgresStore(url, { ...options, schema });
    await store.migrate();
    return store;
  });

  describe("postgres store specifics", () => {
    test("tables live in the chosen schema and money is NUMERIC", async () => {
      const client = new pg.Client({ connectionString: withDefaultUser(url) });
      await client.connect();
      try {
        const columns = await client.query(
          `SELECT table_name, data_type FROM information_schema.columns
           WHERE table_schema = $1 AND column_name IN ('balance', 'usage')`,
          [schema],
        );
        assert.deepEqual(columns.rows.map((r) => `${r.table_name}.${r.data_type}`).sort(), [
          "accounts.numeric",
          "generations.jsonb",
        ]);
      } finally {
        await client.end();
      }
    });

    test("two stores migrating at once do not collide", async () => {
      const fresh = `${schema}_m`;
      const stores = [0, 1, 2].map(() => new PostgresStore(url, { schema: fresh }));
      try {
        await Promise.all(stores.map((s) => s.migrate()));
        assert.equal(await stores[0]!.ping(), true);
      } finally {
        await Promise.all(stores.map((s) => s.close()));
        await dropSchema(fresh);
      }
    });

    test("a table made before generations named their owner or session gets the columns", async () => {
      const fresh = `${schema}_o`;
      const store = new PostgresStore(url, { schema: fresh });
      const client = new pg.Client({ connectionString: withDefaultUser(url) });
      await client.connect();
      try {
        await store.migrate();
        await client.query(`ALTER TABLE "${fresh}".generations DROP COLUMN owner, DROP COLUMN session_id`);
        await store.migrate();
        const columns = await client.query(
          `SELECT 1 FROM information_schema.columns
           WHERE table_schema = $1 AND table_name = 'generations' AND column_name IN ('owner', 'session_id')`,
          [fresh],
        );
        assert.equal(columns.rowCount, 2);
      } finally {
        await client.end();
        await store.close();
        await dropSchema(fresh);
      }
    });

    test("a schema name that is not a plain identifier is refused", () => {
      assert.throws(() => new PostgresStore(url, { schema: 'x"; DROP TABLE y; --' }), /plain identifier/);
    });

    test("ping answers false when the server cannot be reached", async () => {
      const store = new PostgresStore("postgres://127.0.0.1:1/none");
      assert.equal(await store.ping(), false);
      await store.close();
    });
  });
} else if (process.env.CI === "true") {
  test("PostgreSQL is reachable for the ledger tests", () => {
    assert.fail(`PostgreSQL at ${url} is unreachable on CI: ${unreachable}`);
  });
} else {
  console.warn(
    `\n!!! SKIPPING the PostgreSQL ledger tests: ${url} is unreachable (${unreachable}).\n` +
      "!!! Start PostgreSQL or set SWITCHYARD_TEST_PG_URL; on CI (CI=true) this is a failure.\n",
  );
  test("PostgreSQL ledger store", { skip: `PostgreSQL unreachable at ${url}` }, () => {});
}
