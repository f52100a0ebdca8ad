// Regression: an upstream's usage counts were taken as they came. A broken upstream's 1e300 or 2^63
// prompt tokens did not fit a PostgreSQL bigint, the ledger's write failed, and the generation was
// lost (its lookup a 404, or a streamed one left without its finish); a fraction (1.5) failed the
// same way. Counts are now whole numbers up to 2^40 (src/ir/usage.ts, countFromWire), recorded and
// looked up alike on both stores, streamed or not.

import assert from "node:assert/strict";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { MAX_WIRE_COUNT } from "../../src/ir/usage.ts";
import { startFakeUpstream } from "../fakes/index.ts";
import { fakeModel, fakeProvider } from "../support/config.ts";
import { baseConfig, SUB_KEY, startGateway } from "../support/gateway.ts";
import { lookupSettled } from "../support/lookup.ts";
import { dropSchema, PG_URL, requirePostgres, uniqueSchema } from "../support/postgres.ts";

/** What the upstream reports → what the ledger records. */
const COUNTS: Array<[reported: number, recorded: number]> = [
  [1.5, 2],
  [1e300, MAX_WIRE_COUNT],
  [2 ** 63, MAX_WIRE_COUNT],
];

for (const store of ["sqlite", "postgres"] as const)
  test(`upstream usage counts past what a ledger holds (${store})`, async (t) => {
    if (store === "postgres" && !(await requirePostgres(t))) return;
    const schema = uniqueSchema("switchyard_counts");
    const fo = await startFakeUpstream("openai");
    const dir = mkdtempSync(join(tmpdir(), "switchyard-counts-"));
    const gw = await startGateway(
      baseConfig(dir, {
        providers: [fakeProvider("fo", fo)],
        models: [fakeModel("fo/m", ["fo"])],
        ...(store === "postgres" ? { storage: { url: `${PG_URL}?schema=${schema}` } } : {}),
      }),
      { dir },
    );
    try {
      for (const [reported, recorded] of COUNTS)
        for (const stream of [false, true])
          await t.test(
            `${reported} prompt tokens${stream ? ", streamed" : ""}: recorded as ${recorded}`,
            async () => {
              fo.script({ usage: { input: reported, output: 3 } });
              // A subscription key: metered, never debited (a capped count still costs a fortune).
              const res = await fetch(`${gw.url}/v1/chat/completions`, {
                method: "POST",
                headers: { authorization: `Bearer ${SUB_KEY}`, "content-type": "application/json" },
                body: JSON.stringify({ model: "fo/m", stream, messages: [{ role: "user", content: "hi" }] }),
              });
              await res.text();
              assert.equal(res.status, 200);
              const record = await waitForFinish(gw.url, res.headers.get("x-generation-id")!);
              assert.equal(record.nativeTokens.prompt_tokens, recorded);
              assert.equal(record.nativeTokens.completion_tokens, 3);
              assert.equal(record.finishReason, "stop");
            },
          );
    } finally {
      await gw.stop();
      await fo.close();
      if (store === "postgres") await dropSchema(schema);
    }
  });

/** The lookup once the generation's finish is written (the ledger writes in batches). */
async function waitForFinish(url: string, id: string): Promise<any> {
  for (let i = 0; ; i++) {
    const record = await lookupSettled(url, id, SUB_KEY).catch((error: Error) => error);
    if (!(record instanceof Error) && record.finishReason !== null) return record;
    if (i >= 100) throw record instanceof Error ? record : new Error(`${id} never finished`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
