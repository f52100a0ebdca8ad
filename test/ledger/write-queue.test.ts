import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { emptyUsage } from "../../src/ir/usage.ts";
import type { GenerationWrite } from "../../src/ledger/write-queue.ts";
import { generationIdOf, WriteQueue } from "../../src/ledger/write-queue.ts";

const start = (id: string): GenerationWrite => ({
  kind: "start",
  start: { id, accountId: "a", keyId: "k", api: "messages", model: "m", streamed: true, createdAt: 1 },
});
const finish = (id: string): GenerationWrite => ({
  kind: "finish",
  end: {
    id,
    status: "completed",
    usage: emptyUsage(),
    requestRetryTimes: 0,
    finalRetry: true,
    completedAt: 2,
  },
});

/** Records every batch it is given; each write succeeds unless `fail` says otherwise. */
function recorder(fail: (w: GenerationWrite) => Error | undefined = () => undefined) {
  const batches: string[][] = [];
  const apply = async (writes: GenerationWrite[]) => {
    batches.push(writes.map((w) => `${w.kind}:${generationIdOf(w)}`));
    await new Promise((resolve) => setTimeout(resolve, 1));
    return writes.map(fail);
  };
  return { batches, apply };
}

describe("generation write queue", () => {
  test("writes made together go in one batch, in the order they were made", async () => {
    const { batches, apply } = recorder();
    const queue = new WriteQueue(apply, { delayMs: 2 });
    await Promise.all([queue.enqueue(start("g1")), queue.enqueue(finish("g1")), queue.enqueue(start("g2"))]);
    assert.deepEqual(batches, [["start:g1", "finish:g1", "start:g2"]]);
    assert.equal(queue.batchesWritten, 1);
  });

  test("a full batch is written without waiting, and later writes wait for the batch in flight", async () => {
    const { batches, apply } = recorder();
    const queue = new WriteQueue(apply, { delayMs: 10_000, maxBatch: 3 });
    const writes = ["a", "b", "c", "d", "e"].map((id) => queue.enqueue(start(id)));
    await Promise.all(writes.slice(0, 3));
    assert.deepEqual(batches[0], ["start:a", "start:b", "start:c"]);
    await queue.flush();
    await Promise.all(writes);
    assert.deepEqual(batches, [
      ["start:a", "start:b", "start:c"],
      ["start:d", "start:e"],
    ]);
  });

  test("hasPendingWrite is true until the write commits", async () => {
    const { apply } = recorder();
    const queue = new WriteQueue(apply);
    const written = queue.enqueue(start("g1"));
    void queue.enqueue(finish("g1"));
    assert.equal(queue.hasPendingWrite("g1"), true);
    assert.equal(queue.hasPendingWrite("g2"), false);
    await written;
    await queue.flush();
    assert.equal(queue.hasPendingWrite("g1"), false);
  });

  test("a write that fails alone rejects alone and is reported", async () => {
    const reported: Error[] = [];
    const { apply } = recorder((w) => (generationIdOf(w) === "bad" ? new Error("bad write") : undefined));
    const queue = new WriteQueue(apply, { onError: (e) => reported.push(e) });
    const good = queue.enqueue(start("good"));
    const bad = queue.enqueue(start("bad"));
    await good;
    await assert.rejects(bad, /bad write/);
    assert.deepEqual(
      reported.map((e) => e.message),
      ["bad write"],
    );
  });

  test("a failed transaction rejects every write in it, once reported, and never crashes the caller", async () => {
    const reported: Error[] = [];
    let unhandled = 0;
    const onUnhandled = () => unhandled++;
    process.on("unhandledRejection", onUnhandled);
    try {
      const queue = new WriteQueue(
        async () => {
          throw new Error("disk full");
        },
        { onError: (e) => reported.push(e) },
      );
      const awaited = queue.enqueue(start("g1"));
      void queue.enqueue(finish("g1")); // the hot path does not await
      await assert.rejects(awaited, /could not write 2 generation records: disk full/);
      await queue.flush();
      await new Promise((resolve) => setImmediate(resolve));
      assert.equal(reported.length, 1);
      assert.equal(queue.batchesWritten, 0);
      assert.equal(queue.hasPendingWrite("g1"), false);
    } finally {
      process.off("unhandledRejection", onUnhandled);
    }
    assert.equal(unhandled, 0);
  });

  test("close flushes, then refuses new writes", async () => {
    const { batches, apply } = recorder();
    const queue = new WriteQueue(apply, { delayMs: 10_000 });
    const queued = queue.enqueue(start("g1"));
    await queue.close();
    await queued;
    assert.deepEqual(batches, [["start:g1"]]);
    await assert.rejects(queue.enqueue(start("g2")), /closed/);
  });

  test("flush waits for what was queued before it, not for traffic that keeps coming", {
    timeout: 5000,
  }, async () => {
    const { batches, apply } = recorder();
    // Every batch ends with new writes already queued: the writer never goes idle while this runs.
    const queue = new WriteQueue(apply, { delayMs: 1 });
    let producing = true;
    let n = 0;
    const producer = (async () => {
      while (producing) {
        void queue.enqueue(start(`load-${n++}`));
        await new Promise((resolve) => setImmediate(resolve));
      }
    })();
    try {
      await new Promise((resolve) => setTimeout(resolve, 10));
      let mineWritten = false;
      void queue.enqueue(start("mine")).then(() => {
        mineWritten = true;
      });
      await queue.flush();
      assert.equal(producing, true, "the flush returned while writes kept coming");
      assert.equal(mineWritten, true);
      assert.ok(batches.flat().includes("start:mine"));
    } finally {
      producing = false;
      await producer;
      await queue.close();
    }
  });

  test("a throwing onError does not stop the writer", async () => {
    const { apply } = recorder(() => new Error("refused"));
    const queue = new WriteQueue(apply, {
      onError: () => {
        throw new Error("reporter broke");
      },
    });
    await assert.rejects(queue.enqueue(start("g1")), /refused/);
    await assert.rejects(queue.enqueue(start("g2")), /refused/);
  });

  test("flush with nothing queued returns at once", async () => {
    const { batches, apply } = recorder();
    const queue = new WriteQueue(apply);
    await queue.flush();
    assert.deepEqual(batches, []);
  });
});
