// Many stateless gateway processes on one PostgreSQL ledger: a generation made through one
// process is looked up through another, and bootstrap keys installed by both do not collide.

import assert from "node:assert/strict";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import Anthropic from "@anthropic-ai/sdk";
import { baseConfig, PAYG_KEY, type RunningGateway, startGateways } from "../support/gateway.ts";
import { lookupSettled } from "../support/lookup.ts";
import { dropSchema, PG_URL, requirePostgres, uniqueSchema } from "../support/postgres.ts";

test("two processes share one PostgreSQL ledger", async (t) => {
  if (!(await requirePostgres(t))) return;
  const schema = uniqueSchema("switchyard_e2e");
  const dir = mkdtempSync(join(tmpdir(), "switchyard-scale-"));
  const config = baseConfig(dir, { storage: { url: `${PG_URL}?schema=${schema}` } });
  const gateways: RunningGateway[] = [];
  try {
    gateways.push(...(await startGateways(config, 2)));
    const [a, b] = gateways;
    const client = new Anthropic({ apiKey: PAYG_KEY, baseURL: a.url, maxRetries: 0 });
    const msg = await client.messages.create({
      model: "local/echo-1",
      max_tokens: 50,
      messages: [{ role: "user", content: "made on A" }],
    });
    const seenFromB = await lookupSettled(b.url, msg.id, PAYG_KEY);
    assert.equal(seenFromB.generationId, msg.id);
    assert.equal(seenFromB.api, "messages");
    assert.equal(seenFromB.nativeTokens.completion_tokens, msg.usage.output_tokens);
    assert.ok(seenFromB.usage > 0);
  } finally {
    await Promise.all(gateways.map((g) => g.stop()));
    await dropSchema(schema);
  }
});
