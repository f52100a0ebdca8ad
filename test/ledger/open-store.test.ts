import assert from "node:assert/strict";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, test } from "node:test";
import { openStore } from "../../src/ledger/open-store.ts";
import { PostgresStore } from "../../src/ledger/postgres-store.ts";
import { withDefaultUser } from "../../src/ledger/postgres-url.ts";
import { SqliteStore } from "../../src/ledger/sqlite-store.ts";

const dir = mkdtempSync(join(tmpdir(), "switchyard-open-store-"));
after(() => rmSync(dir, { recursive: true, force: true }));

describe("openStore", () => {
  test("sqlite::memory: is an in-memory SQLite store", async () => {
    const store = openStore("sqlite::memory:");
    assert.ok(store instanceof SqliteStore);
    await store.migrate();
    assert.equal(await store.ping(), true);
    await store.close();
  });

  test("sqlite:PATH opens that file, creating its directory; sqlite:///abs is an absolute path", async () => {
    for (const url of [`sqlite:${join(dir, "rel", "x.db")}`, `sqlite://${join(dir, "abs", "y.db")}`]) {
      const store = openStore(url);
      assert.ok(store instanceof SqliteStore);
      await store.migrate();
      await store.close();
    }
    assert.ok(existsSync(join(dir, "rel", "x.db")));
    assert.ok(existsSync(join(dir, "abs", "y.db")));
  });

  test("postgres:// and postgresql:// are PostgreSQL stores", async () => {
    for (const url of ["postgres://127.0.0.1:5432/test", "postgresql://127.0.0.1:5432/test"]) {
      const store = openStore(url);
      assert.ok(store instanceof PostgresStore);
      await store.close();
    }
  });

  test("anything else names storage.url and the accepted forms, without echoing secrets", () => {
    for (const url of ["mysql://user:s3cret@db/x", "./file.db", "", "sqlite:"]) {
      assert.throws(
        () => openStore(url),
        (e: unknown) => {
          assert.ok(e instanceof Error);
          assert.match(e.message, /storage\.url/);
          assert.match(e.message, /sqlite:\.\/path\/file\.db/);
          assert.match(e.message, /postgres:\/\//);
          assert.doesNotMatch(e.message, /s3cret/);
          return true;
        },
        url,
      );
    }
  });
});

describe("withDefaultUser", () => {
  test("fills the OS user into a URL without one when the environment names none", () => {
    const filled = withDefaultUser("postgres://127.0.0.1:5432/test", {});
    assert.match(filled, /^postgres:\/\/[^@/]+@127\.0\.0\.1:5432\/test$/);
  });

  test("leaves a URL alone when it has a user or the environment names one", () => {
    assert.equal(withDefaultUser("postgres://bob:pw@h/db", {}), "postgres://bob:pw@h/db");
    assert.equal(withDefaultUser("postgres://h/db", { PGUSER: "alice" }), "postgres://h/db");
  });
});
