// A streamed background run's event log (src/gateway/run-events.ts) against a store that records
// what it is given: the limits (past them only the last event is kept), batches written in order on
// a timer and at a flush, a failed batch tried again whole; and a reader of the stored log that
// shows the last event only once the response is stored ended, and ends a failed run with
// `response.failed`.

import assert from "node:assert/strict";
import { test } from "node:test";
import { Run } from "../../src/gateway/background.ts";
import { eventsIn, followStored, RunEventLog, TAIL_POLL_MS } from "../../src/gateway/run-events.ts";
import { ContentSeal } from "../../src/ledger/content-seal.ts";
import type { ResponseStore, StoredEventBatch } from "../../src/ledger/responses-types.ts";

const quiet = { warn() {}, error() {} } as never;

function event(sequence: number, type = "response.output_text.delta"): string {
  return `event: ${type}\ndata: {"type":"${type}","sequence_number":${sequence}}\n\n`;
}

/** A store holding one response's status and event batches. */
function memoryStore(seal = new ContentSeal()) {
  const batches: StoredEventBatch[] = [];
  let status = "in_progress";
  let failing = false;
  const store = {
    async appendEvents(_id: string, _account: string, batch: StoredEventBatch) {
      if (failing) throw new Error("store away");
      if (!batches.some((b) => b.first === batch.first)) batches.push(batch);
    },
    async eventsAfter(_id: string, _account: string, after: number) {
      return batches.filter((b) => b.last > after);
    },
    async getResponse(id: string) {
      return { id, accountId: "a", createdAt: 0, model: "m", status, content: "", itemIds: [] };
    },
  } as unknown as ResponseStore;
  const sequences = () =>
    batches.map((b) => (JSON.parse(seal.open(b.content)) as Array<[number, string]>).map(([s]) => s));
  return {
    to: { store, seal, log: quiet },
    batches,
    sequences,
    setStatus: (s: string) => (status = s),
    fail: (on: boolean) => (failing = on),
  };
}

test("past the limits only the last event is kept, by count and by bytes", () => {
  const byCount = new RunEventLog(memoryStore().to, "r", "a", { events: 3, bytes: 1 << 20 });
  const kept = byCount.take(
    eventsIn([0, 1, 2, 3, 4].map((n) => event(n)).join("") + event(5, "response.completed")),
  );
  assert.deepEqual(
    kept.map((e) => e.sequence),
    [0, 1, 2, 5],
  );
  const size = Buffer.byteLength(event(10));
  const byBytes = new RunEventLog(memoryStore().to, "r", "a", { events: 100, bytes: 2 * size + 1 });
  const texts = [event(10), event(11), event(12), event(13, "response.incomplete")];
  assert.deepEqual(
    byBytes.take(eventsIn(texts.join(""))).map((e) => e.sequence),
    [10, 11, 13],
  );
});

test("batches go in order, sealed, on a timer and at a flush; a failed one is tried again whole", async () => {
  const seal = new ContentSeal([Buffer.alloc(32, 7).toString("base64")]);
  const mem = memoryStore(seal);
  const log = new RunEventLog(mem.to, "r", "a");
  log.take(eventsIn(event(0) + event(1)));
  await new Promise((resolve) => setTimeout(resolve, 300));
  assert.deepEqual(mem.sequences(), [[0, 1]], "written on the timer");
  assert.doesNotMatch(mem.batches[0]!.content, /output_text/);

  mem.fail(true);
  log.take(eventsIn(event(2)));
  assert.equal(await log.flush(), false);
  log.take(eventsIn(event(3)));
  mem.fail(false);
  assert.equal(await log.flush(), true);
  assert.deepEqual(mem.sequences(), [[0, 1], [2], [3]]);
  assert.deepEqual(
    mem.batches.map((b) => [b.first, b.last]),
    [
      [0, 1],
      [2, 2],
      [3, 3],
    ],
  );
});

/** A reader of the stored log after `after`: what it wrote, and whether it ended. */
function reader(mem: ReturnType<typeof memoryStore>, after: number, current = async () => ({ id: "r" })) {
  const seen: string[] = [];
  let ended = false;
  const done = followStored(
    mem.to,
    { id: "r", accountId: "a", after },
    { write: (text) => seen.push(text), end: () => (ended = true), onClose() {} },
    current,
  );
  return { seen, ended: () => ended, done };
}

test("a reader shows the last event only once the response is stored ended", async () => {
  const mem = memoryStore();
  const log = new RunEventLog(mem.to, "r", "a");
  log.take(eventsIn(event(0) + event(1) + event(2) + event(3, "response.completed")));
  await log.flush();
  const r = reader(mem, 0);
  await new Promise((resolve) => setTimeout(resolve, TAIL_POLL_MS / 2));
  assert.deepEqual(r.seen, [event(1), event(2)]);
  assert.equal(r.ended(), false, "its response is not stored completed yet");
  mem.setStatus("completed");
  await r.done;
  assert.deepEqual(r.seen, [event(1), event(2), event(3, "response.completed")]);
  assert.ok(r.ended());
});

test("a run failed without its last event ends the reader with response.failed after the last one", async () => {
  const mem = memoryStore();
  const log = new RunEventLog(mem.to, "r", "a");
  log.take(eventsIn(event(0) + event(1)));
  await log.flush();
  mem.setStatus("failed");
  const r = reader(mem, -1, async () => ({ id: "r", status: "failed" }));
  await r.done;
  assert.equal(r.seen.length, 3);
  const failed = JSON.parse(r.seen[2]!.split("data: ")[1]!);
  assert.deepEqual(failed, {
    type: "response.failed",
    sequence_number: 2,
    response: { id: "r", status: "failed" },
  });
  assert.ok(r.ended());

  // A cancelled one just ends.
  mem.setStatus("cancelled");
  const c = reader(mem, 1);
  await c.done;
  assert.deepEqual(c.seen, []);
  assert.ok(c.ended());
});

// OpenAI writes an `event:` line before each event, but the type in the data is what names it
// (openai-responses/decode-stream.ts): a relayed upstream that writes data lines only, or spaces
// after its colons (Python's json.dumps), streams the same run.
test("events are read by their data: without an event line, with spaces after the colons", () => {
  const dataOnly = (sequence: number, type: string) =>
    `data: {"type": "${type}", "sequence_number": ${sequence}}\n\n`;
  const events = eventsIn(dataOnly(0, "response.output_text.delta") + dataOnly(1, "response.completed"));
  assert.deepEqual(
    events.map((e) => [e.sequence, e.last ?? false]),
    [
      [0, false],
      [1, true],
    ],
  );
  // A delta whose text spells a last event is not one: its quotes are escaped.
  const text =
    'data: {"type":"response.output_text.delta","sequence_number":2,"delta":"\\"type\\":\\"response.completed\\""}\n\n';
  assert.equal(eventsIn(text)[0]!.last, undefined);
});

test("a run whose last event came without an event line is not stored failed at its end", () => {
  const failed: unknown[] = [];
  const runs = { failed: (_run: unknown, body: unknown) => failed.push(body), ended() {} } as never;
  const log = new RunEventLog(memoryStore().to, "r", "a");
  const run = new Run(runs, log, {} as never, { id: "r" }, "a");
  run.write('data: {"type":"response.created","sequence_number":0}\n\n');
  run.write('data: {"type":"response.completed","sequence_number":1,"response":{"id":"r"}}\n\n');
  run.end();
  assert.deepEqual(failed, []);
  assert.equal(run.events.length, 2);
});
