// Stored responses across gateway processes on one PostgreSQL store, encrypted at rest: a response
// made through one process is continued and read through another at once (read-your-writes, no
// "a few seconds later"), and what the table holds is not the conversation's text.

import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import OpenAI from "openai";
import pg from "pg";
import { withDefaultUser } from "../../../src/ledger/postgres-url.ts";
import { baseConfig, PAYG_KEY, type RunningGateway, startGateways } from "../../support/gateway.ts";
import { dropSchema, PG_URL, requirePostgres, uniqueSchema } from "../../support/postgres.ts";

test("a continuation through a second process on PostgreSQL works at once; content is sealed", async (t) => {
  if (!(await requirePostgres(t))) return;
  const schema = uniqueSchema("switchyard_responses_e2e");
  const dir = mkdtempSync(join(tmpdir(), "switchyard-responses-pg-"));
  const key = randomBytes(32).toString("base64");
  const config = baseConfig(dir, { storage: { url: `${PG_URL}?schema=${schema}`, encryption_key: key } });
  const gateways: RunningGateway[] = [];
  try {
    gateways.push(...(await startGateways(config, 2)));
    const [a, b] = gateways.map(
      (gw) => new OpenAI({ apiKey: PAYG_KEY, baseURL: `${gw.url}/v1`, maxRetries: 0 }),
    );
    for (let turn = 0; turn < 5; turn++) {
      const first = await a!.responses.create({ model: "local/echo-1", input: `secret plan ${turn}` });
      const second = await b!.responses.create({
        model: "local/echo-1",
        previous_response_id: first.id,
        input: "and next?",
      });
      assert.equal(second.previous_response_id, first.id);
      assert.equal((await b!.responses.retrieve(first.id)).output_text, first.output_text);
      assert.equal((await a!.responses.retrieve(second.id)).output_text, "You said: and next?");
    }
    const client = new pg.Client({ connectionString: withDefaultUser(PG_URL) });
    await client.connect();
    try {
      const rows = await client.query(`SELECT content FROM "${schema}".stored_responses`);
      assert.equal(rows.rowCount, 10);
      for (const { content } of rows.rows) assert.doesNotMatch(content, /secret plan|You said/);
    } finally {
      await client.end();
    }
    assert.doesNotMatch(gateways[0]!.output(), /kept in clear/);
    // PostgreSQL's text holds no NUL: an id with one is a 400 naming it, never the database's error.
    const nul = await a!.responses
      .create({ model: "local/echo-1", previous_response_id: "gen-\u0000x", input: "x" })
      .catch((e: unknown) => e);
    assert.ok(nul instanceof OpenAI.BadRequestError);
    assert.equal(nul.param, "previous_response_id");
    const res = await fetch(`${gateways[1]!.url}/v1/conversations/conv_%00/items`, {
      headers: { authorization: `Bearer ${PAYG_KEY}` },
    });
    assert.equal(res.status, 400);
    assert.equal(((await res.json()) as any).error.param, "conversation_id");
    // A page's `after` is looked up in the store too (its items are paged there).
    const conversation = await a!.conversations.create({ items: [{ role: "user", content: "hi" }] });
    const page = await fetch(`${gateways[1]!.url}/v1/conversations/${conversation.id}/items?after=msg_%00`, {
      headers: { authorization: `Bearer ${PAYG_KEY}` },
    });
    assert.equal(page.status, 400);
    assert.equal(((await page.json()) as any).error.param, "after");
  } finally {
    await Promise.all(gateways.map((g) => g.stop()));
    await dropSchema(schema);
  }
});
