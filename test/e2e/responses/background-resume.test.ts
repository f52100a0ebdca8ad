// Streamed background responses resumed through a gateway process that does not run them, on one
// PostgreSQL store with content encrypted at rest (docs/responses.md §9), through the openai SDK: a
// run made by process A, its upstream slow, is resumed through process B after event N while it
// runs and after it ended, with exactly the later events and their sequence numbers; the events
// the store holds are sealed; and when A stops while B follows, B's stream ends with the run failed.
// On SQLite with `--workers 2`, the same from the other worker, and a killed worker's run failed by
// its primary at once, so the reader on the other worker ends.

import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { after, before, describe, test } from "node:test";
import OpenAI from "openai";
import pg from "pg";
import { Agent } from "undici";
import { ownerPid } from "../../../src/ledger/owner.ts";
import { withDefaultUser } from "../../../src/ledger/postgres-url.ts";
import { type FakeUpstream, startFakeUpstream } from "../../fakes/index.ts";
import type { Reply } from "../../fakes/reply.ts";
import { fakeModel, fakeProvider } from "../../support/config.ts";
import {
  baseConfig,
  PAYG_KEY,
  type RunningGateway,
  startGateway,
  startGateways,
} from "../../support/gateway.ts";
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
// The two stores' suites share nothing (their own gateways, store and fakes) and mostly wait on slow
// streams: they run side by side. Within each, its tests run one after the other (concurrency 1:
// otherwise they would inherit the outer setting, and A would stop in the middle of another test).
describe("background runs resumed elsewhere", { concurrency: true }, () => {
  describe("a streamed background run resumed through another process (PostgreSQL)", {
    skip: unreachable,
    concurrency: 1,
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
              await b.responses.retrieve(idOf(events), {
                stream: true,
                starting_after: event.sequence_number,
              }),
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

  describe("a streamed background run resumed through another worker (SQLite, --workers 2)", {
    concurrency: 1,
  }, () => {
    const dir = mkdtempSync(join(tmpdir(), "switchyard-bg-workers-"));
    let gw: RunningGateway;
    /** 30 words at 100 ms each: a run of about 3 s. */
    const prompt = Array.from({ length: 30 }, (_, i) => `w${i}`).join(" ");

    before(async () => {
      gw = await startGateway(baseConfig(dir, { providers: [{ id: "local", chunk_delay_ms: 100 }] }), {
        dir,
        args: ["--workers", "2"],
      });
    });
    after(() => gw?.stop());

    /** A client on connections of its own: the primary hands each new connection to the next worker. */
    const client = () =>
      new OpenAI({
        apiKey: PAYG_KEY,
        baseURL: `${gw.url}/v1`,
        maxRetries: 0,
        fetchOptions: { dispatcher: new Agent() } as object,
      });

    /** The pid of the worker running a background response (its stored owner). */
    function runner(id: string): number | undefined {
      const db = new DatabaseSync(join(dir, "switchyard.db"), { readOnly: true });
      try {
        const row = db.prepare("SELECT owner FROM stored_responses WHERE id = ?").get(id);
        return row?.owner ? ownerPid(String(row.owner)) : undefined;
      } finally {
        db.close();
      }
    }

    /** A run started, read to its first text delta; two readers after that event, each on a new connection. */
    async function startFollowed() {
      const stream = (await client().responses.create({
        model: "local/echo-1",
        input: prompt,
        background: true,
        stream: true,
      })) as AsyncIterable<Event>;
      const iterator = stream[Symbol.asyncIterator]();
      const events: Event[] = [];
      for (let r = await iterator.next(); !r.done; r = await iterator.next()) {
        events.push(r.value);
        if (r.value.type === "response.output_text.delta") break;
      }
      const n = events.at(-1)!.sequence_number;
      // Two new connections one after the other go to the two workers: one reader is on a worker
      // that does not run the response, whichever runs it.
      const readers: Array<Promise<{ events: Event[] } | Error>> = [];
      for (let i = 0; i < 2; i++) {
        const resumed = await client().responses.retrieve(idOf(events), { stream: true, starting_after: n });
        readers.push(collect(resumed).catch((e: Error) => e));
      }
      const rest = (async () => {
        for (let r = await iterator.next(); !r.done; r = await iterator.next()) events.push(r.value);
        return events;
      })().catch((e: Error) => e);
      return { id: idOf(events), n, readers, rest };
    }

    test("both readers, one on each worker, get exactly the later events, while it runs and after", async () => {
      const { id, n, readers, rest } = await startFollowed();
      const events = await rest;
      assert.ok(Array.isArray(events), String(events));
      assert.equal(events.at(-1)?.type, "response.completed");
      for (const reader of await Promise.all(readers)) {
        assert.ok(!(reader instanceof Error), String(reader));
        assert.deepEqual(reader.events, events.slice(n + 1));
      }
      for (let i = 0; i < 2; i++) {
        const later = await collect(
          await client().responses.retrieve(id, { stream: true, starting_after: 3 }),
        );
        assert.deepEqual(later.events, events.slice(4));
      }
    });

    test("the worker running it is killed: its primary fails the run, the reader on the other worker ends", async () => {
      const { id, readers } = await startFollowed();
      const victim = runner(id);
      assert.ok(victim, "the run names its worker");
      process.kill(victim, "SIGKILL");
      await gw.waitForOutput(
        new RegExp(
          `\\(pid ${victim}\\) was killed by SIGKILL.*1 background response\\(s\\) it was running failed`,
        ),
      );
      const ends = await Promise.all(readers);
      // One reader on each worker: the killed one's lost its connection, the other's ended with the failure.
      const followed = ends.filter((end): end is { events: Event[] } => !(end instanceof Error));
      const failed = followed.filter((end) => end.events.at(-1)?.type === "response.failed");
      assert.equal(
        failed.length,
        1,
        JSON.stringify(ends.map((e) => (e instanceof Error ? e.message : e.events.at(-1)?.type))),
      );
      const last = failed[0]!.events.at(-1) as OpenAI.Responses.ResponseFailedEvent;
      assert.equal(last.response.status, "failed");
      assert.equal(last.response.error?.code, "server_error");
      assert.equal((await client().responses.retrieve(id)).status, "failed");
    });
  });
});
