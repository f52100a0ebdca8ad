// Streamed background responses resumed through a gateway process that does not run them, on one
// PostgreSQL store with content encrypted at rest (docs/responses.md §9), through the openai SDK: a
// run made by process A, its upstream slow, is resumed through process B after event N while it
// runs and after it ended, with exactly the later events and their sequence numbers; the events
// the store holds are sealed; and when A stops while B follows, B's stream ends with the run failed.

import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import OpenAI from "openai";
import pg from "pg";
import { withDefaultUser } from "../../../src/ledger/postgres-url.ts";
import { type FakeUpstream, startFakeUpstream } from "../../fakes/index.ts";
import type { Reply } from "../../fakes/reply.ts";
import { fakeModel, fakeProvider } from "../../support/config.ts";
import { baseConfig, PAYG_KEY, type RunningGateway, startGateways } from "../../support/gateway.ts";
import { dropSchema, PG_URL, postgresUnreachable, uniqueSchema } from "../../support/postgres.ts";

type Event = OpenAI.Responses.ResponseStreamEvent;

const SLOW: Reply = {
  blocks: [{ type: "text", text: "Slowly, word by word, all the way to the end." }],
  chunks: 10,
};

/** Every event of a stream, and whether `running()` still held when the first one came. */
async function collect(
  stream: AsyncIterable<Event>,
  running: () => boolean = () => false,
): Promise<{ events: Event[]; firstWhileRunning: boolean }> {
  const events: Event[] = [];
  let firstWhileRunning = false;
  for await (const event of stream) {
    if (events.length === 0) firstWhileRunning = running();
    events.push(event);
  }
  return { events, firstWhileRunning };
}

const idOf = (events: Event[]) => (events[0] as OpenAI.Responses.ResponseCreatedEvent).response.id;

const unreachable = await postgresUnreachable();
describe("a streamed background run resumed through another process (PostgreSQL)", {
  skip: unreachable,
}, () => {
  const schema = uniqueSchema("switchyard_bg_resume");
  let anthropic: FakeUpstream;
  let gateways: RunningGateway[] = [];
  let a: OpenAI;
  let b: OpenAI;

  before(async () => {
    anthropic = await startFakeUpstream("anthropic");
    const dir = mkdtempSync(join(tmpdir(), "switchyard-bg-resume-"));
    const config = baseConfig(dir, {
      storage: { url: `${PG_URL}?schema=${schema}`, encryption_key: randomBytes(32).toString("base64") },
      providers: [fakeProvider("fa", anthropic)],
      models: [fakeModel("fa/claude", ["fa"], { upstream: "claude-sonnet-4-5" })],
    });
    gateways = await startGateways(config, 2);
    [a, b] = gateways.map((gw) => new OpenAI({ apiKey: PAYG_KEY, baseURL: `${gw.url}/v1`, maxRetries: 0 }));
  });
  after(async () => {
    await Promise.all(gateways.map((gw) => gw.stop()));
    await anthropic?.close();
    await dropSchema(schema);
  });

  test("through B after event N while A runs it, and after it ended: exactly the later events", async () => {
    anthropic.script({ ...SLOW, chunkDelayMs: 250 });
    const stream = await a.responses.create({
      model: "fa/claude",
      input: "Tell me slowly",
      background: true,
      stream: true,
    });
    const events: Event[] = [];
    let aRunning = true;
    let midway: Promise<{ events: Event[]; firstWhileRunning: boolean }> | undefined;
    let n = -1;
    for await (const event of stream) {
      events.push(event);
      if (event.type === "response.output_text.delta" && !midway) {
        n = event.sequence_number;
        midway = collect(
          await b.responses.retrieve(idOf(events), { stream: true, starting_after: n }),
          () => aRunning,
        );
      }
    }
    aRunning = false;
    assert.equal(events.at(-1)?.type, "response.completed");
    assert.deepEqual(
      events.map((e) => e.sequence_number),
      events.map((_, i) => i),
    );
    const resumed = await midway!;
    assert.ok(resumed.firstWhileRunning, "B's reader had events while A still ran the response");
    assert.deepEqual(resumed.events, events.slice(n + 1));
    assert.ok(resumed.events.filter((e) => e.type === "response.output_text.delta").length > 1);

    // After the end: from the store, through either process, from any point.
    const id = idOf(events);
    for (const [client, after] of [
      [b, 2],
      [a, 5],
      [b, undefined],
    ] as const) {
      const later = await collect(
        await client.responses.retrieve(id, { stream: true, starting_after: after }),
      );
      assert.deepEqual(later.events, events.slice((after ?? -1) + 1), `starting_after ${after}`);
    }
    assert.equal(
      (await b.responses.retrieve(id)).output_text,
      "Slowly, word by word, all the way to the end.",
    );

    // Written in batches, sealed.
    const db = new pg.Client({ connectionString: withDefaultUser(PG_URL) });
    await db.connect();
    try {
      const rows = await db.query(
        `SELECT content FROM "${schema}".stored_response_events WHERE response_id = $1`,
        [id],
      );
      assert.ok(rows.rowCount! > 1 && rows.rowCount! < events.length, `${rows.rowCount} batches`);
      for (const { content } of rows.rows) assert.doesNotMatch(content, /Slowly|output_text|sequence/);
    } finally {
      await db.end();
    }

    // Deleted, its events go with it: a resume is a 404.
    await b.responses.delete(id);
    await assert.rejects(a.responses.retrieve(id, { stream: true }), OpenAI.NotFoundError);
  });

  test("a background response created without stream has no events: a resume is a 400 naming stream", async () => {
    const queued = await a.responses.create({ model: "local/echo-1", input: "quiet", background: true });
    const err = await b.responses.retrieve(queued.id, { stream: true }).catch((e: unknown) => e);
    assert.ok(err instanceof OpenAI.BadRequestError);
    assert.equal(err.param, "stream");
  });

  test("A stops while B follows its run: B's stream ends with the run failed", async () => {
    anthropic.script({ ...SLOW, chunks: 40, chunkDelayMs: 250 });
    const stream = await a.responses.create({
      model: "fa/claude",
      input: "Never mind the end",
      background: true,
      stream: true,
    });
    const events: Event[] = [];
    let following: Promise<{ events: Event[] }> | undefined;
    const started = (async () => {
      for await (const event of stream) {
        events.push(event);
        if (event.type === "response.output_text.delta" && !following) {
          following = collect(
            await b.responses.retrieve(idOf(events), { stream: true, starting_after: event.sequence_number }),
          );
          return;
        }
      }
    })();
    await started;
    await new Promise((resolve) => setTimeout(resolve, 600));
    await gateways[0]!.stop("SIGTERM");
    const followed = (await following!).events;
    const last = followed.at(-1) as OpenAI.Responses.ResponseFailedEvent;
    assert.equal(last.type, "response.failed");
    assert.equal(last.response.status, "failed");
    assert.match(last.response.error?.message ?? "", /stopped before it ended/);
    // Its sequence number follows the events before it, which all came in order.
    const from = followed[0]!.sequence_number;
    assert.deepEqual(
      followed.map((e) => e.sequence_number),
      followed.map((_, i) => from + i),
    );
    assert.equal((await b.responses.retrieve(idOf(events))).status, "failed");
  });
});
