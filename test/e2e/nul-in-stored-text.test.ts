// Regression: a NUL character (U+0000, `%00` in a URL) in a text the ledger is asked for made
// PostgreSQL answer "invalid byte sequence for encoding UTF8: 0x00", and the gateway a 500: a
// generation lookup of `gen-%00` (found by the endpoint fuzz on a PostgreSQL ledger, seed 1535546815),
// and the admin API's filters, path ids and a new key's name likewise. Such a text is a 400 naming the
// field, on either store (src/ledger/columns.ts, storableText).

import assert from "node:assert/strict";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { baseConfig, PAYG_KEY, startGateway } from "../support/gateway.ts";
import { dropSchema, PG_URL, requirePostgres, uniqueSchema } from "../support/postgres.ts";

const ADMIN_KEY = "sk-admin-nul-0123456789abcdef";

const REQUESTS: Array<{ what: string; path: string; key: string; field: string; body?: object }> = [
  { what: "a lookup's id", path: "/api/v1/management/generation?id=gen-%00", key: PAYG_KEY, field: "id" },
  {
    what: "a lookup's generate_id",
    path: "/api/v1/generation?generate_id=x%00y",
    key: PAYG_KEY,
    field: "id",
  },
  { what: "an admin filter", path: "/api/v1/admin/generations?model=a%00b", key: ADMIN_KEY, field: "model" },
  { what: "an admin path id", path: "/api/v1/admin/generations/gen-%00", key: ADMIN_KEY, field: "id" },
  { what: "an admin usage filter", path: "/api/v1/admin/usage?key=%00", key: ADMIN_KEY, field: "key" },
  {
    what: "a new key's name",
    path: "/api/v1/admin/keys",
    key: ADMIN_KEY,
    field: "name",
    body: { account: "acme", name: "ci\u0000key" },
  },
];

for (const store of ["sqlite", "postgres"] as const)
  test(`a NUL character in a text the ledger is asked for is a 400 naming it (${store})`, async (t) => {
    if (store === "postgres" && !(await requirePostgres(t))) return;
    const schema = uniqueSchema("switchyard_nul");
    const dir = mkdtempSync(join(tmpdir(), "switchyard-nul-"));
    const gw = await startGateway(
      baseConfig(dir, {
        admin: { keys: [ADMIN_KEY] },
        ...(store === "postgres" ? { storage: { url: `${PG_URL}?schema=${schema}` } } : {}),
      }),
      { dir },
    );
    try {
      for (const r of REQUESTS)
        await t.test(r.what, async () => {
          const res = await fetch(`${gw.url}${r.path}`, {
            method: r.body ? "POST" : "GET",
            headers: {
              authorization: `Bearer ${r.key}`,
              ...(r.body ? { "content-type": "application/json" } : {}),
            },
            body: r.body ? JSON.stringify(r.body) : undefined,
          });
          const body = (await res.json()) as any;
          assert.equal(res.status, 400, JSON.stringify(body));
          assert.equal(body.error.param, r.field, JSON.stringify(body));
        });
      // The ledger still answers.
      const ok = await fetch(`${gw.url}/api/v1/admin/generations`, {
        headers: { authorization: `Bearer ${ADMIN_KEY}` },
      });
      assert.equal(ok.status, 200);
    } finally {
      await gw.stop();
      if (store === "postgres") await dropSchema(schema);
    }
  });
