// A gateway carries the client libraries of what it is configured with only: the PostgreSQL driver
// with a PostgreSQL store, ioredis with `redis`. On SQLite without Redis neither is loaded (their
// modules would stay in every process's heap for nothing).

import assert from "node:assert/strict";
import { createRequire } from "node:module";
import { sep } from "node:path";
import { test } from "node:test";

const loaded = (pkg: string) =>
  Object.keys(createRequire(import.meta.url).cache).some((path) =>
    path.includes(`${sep}node_modules${sep}${pkg}${sep}`),
  );

test("the serve path loads neither pg nor ioredis until a store or state needs them", async () => {
  await import("../../src/cli/serve.ts");
  await import("../../src/server/app.ts");
  const { openStore } = await import("../../src/ledger/open-store.ts");
  const sqlite = openStore("sqlite::memory:");
  await sqlite.migrate();
  await sqlite.close();
  assert.equal(loaded("pg"), false, "pg is loaded without a PostgreSQL store");
  assert.equal(loaded("ioredis"), false, "ioredis is loaded without Redis");

  // Made, not connected: the driver is loaded with the store.
  const postgres = openStore("postgres://127.0.0.1:9/none");
  assert.equal(loaded("pg"), true);
  await postgres.close();
});
