import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { emptyUsage } from "../../src/ir/usage.ts";
import { generationAlreadyStarted, StoreUnavailable } from "../../src/ledger/ledger-errors.ts";
import type { GenerationWrite } from "../../src/ledger/write-queue.ts";
import { generationIdOf, NOT_REACHED, WriteQueue } from "../../src/ledger/write-queue.ts";

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

  test("a failed transaction rejects every write in it, each reported, and never crashes the caller", async () => {
    const reported: Error[] = [];
    let unhandled = 0;
    const onUnhandled = () => unhandled++;
    process.on("unhandledRejection", onUnhandled);
    try {
      const queue = new WriteQueue(
        async () => {
          throw new Error("schema is broken");
        },
        { onError: (e) => reported.push(e) },
      );
      const awaited = queue.enqueue(start("g1"));
      void queue.enqueue(finish("g1")); // the hot path does not await
      await assert.rejects(awaited, /could not write generation g1: schema is broken/);
      await queue.flush();
      await new Promise((resolve) => setImmediate(resolve));
      // Tried as a batch, then one write at a time (so that one bad write could fail alone).
      assert.equal(reported.length, 2);
      assert.equal(queue.batchesWritten, 0);
      assert.equal(queue.hasPendingWrite("g1"), false);
      assert.equal(queue.backlog, 0);
    } finally {
      process.off("unhandledRejection", onUnhandled);
    }
    assert.equal(unhandled, 0);
  });

  test("a batch refused for one bad write is written again one at a time: only the bad write fails", async () => {
    const reported: Error[] = [];
    const batches: string[][] = [];
    const queue = new WriteQueue(
      async (writes) => {
        batches.push(writes.map(generationIdOf));
        // As PostgreSQL does: one value it refuses aborts the whole transaction.
        if (writes.some((w) => generationIdOf(w) === "poison")) throw new Error("invalid input syntax");
        return writes.map(() => undefined);
      },
      { onError: (e) => reported.push(e) },
    );
    const results = await Promise.allSettled(["a", "poison", "b"].map((id) => queue.enqueue(start(id))));
    assert.deepEqual(
      results.map((r) => r.status),
      ["fulfilled", "rejected", "fulfilled"],
    );
    assert.deepEqual(batches, [["a", "poison", "b"], ["a"], ["poison"], ["b"]]);
    assert.deepEqual(
      reported.map((e) => e.message),
      ["could not write generation poison: invalid input syntax"],
    );
  });

  test("writes a transaction did not reach are handed back in a turn of their own, before later writes", async () => {
    const batches: string[][] = [];
    let turnEnded = true;
    let flushedInFlight: Promise<number> | undefined;
    const queue: WriteQueue = new WriteQueue(
      async (writes, mayLeave) => {
        assert.equal(mayLeave, true);
        // Each call comes in a turn of its own: I/O (here, an immediate) ran since the last one.
        assert.equal(turnEnded, true, "the writer did not give the event loop a turn");
        turnEnded = false;
        setImmediate(() => {
          turnEnded = true;
        });
        batches.push(writes.map(generationIdOf));
        // A flush while the first transaction is in flight (nothing queued) waits for all it holds.
        flushedInFlight ??= queue.flush().then(() => batches.length);
        // Only the first write fits in this transaction's turn.
        return writes.map((_, i) => (i === 0 ? undefined : NOT_REACHED));
      },
      { delayMs: 1 },
    );
    const first = ["a", "b", "c"].map((id) => queue.enqueue(start(id)));
    assert.equal(queue.hasPendingWrite("c"), true);
    await Promise.all(first);
    // flush waited for the writes handed back, not only for the transaction that left them.
    assert.equal(await flushedInFlight, 3);
    assert.deepEqual(batches, [["a", "b", "c"], ["b", "c"], ["c"]]);
    assert.equal(queue.hasPendingWrite("c"), false);
    assert.equal(queue.backlog, 0);
    await queue.enqueue(start("d"));
    assert.deepEqual(batches.at(-1), ["d"]);
  });

  test("a writer behind its queue writes whole batches, leaving nothing for later", async () => {
    const calls: Array<[string[], boolean]> = [];
    let release = () => {};
    const queue = new WriteQueue(
      async (writes, mayLeave) => {
        calls.push([writes.map(generationIdOf), mayLeave]);
        if (calls.length === 1) await new Promise<void>((resolve) => (release = resolve));
        return writes.map((_, i) => (i > 0 && mayLeave ? NOT_REACHED : undefined));
      },
      { delayMs: 1, maxBatch: 2 },
    );
    const first = queue.enqueue(start("x"));
    void queue.flush();
    // Three writes come while x commits: more than a batch waits.
    const rest = ["a", "b", "c"].map((id) => queue.enqueue(start(id)));
    release();
    await Promise.all([first, ...rest]);
    // a and b with c waiting behind them: whole. Then c alone, the writer caught up.
    assert.deepEqual(calls, [
      [["x"], true],
      [["a", "b"], false],
      [["c"], true],
    ]);
  });

  test("a full batch is written whole, as heavy load makes them: no more transactions than batches", async () => {
    const calls: boolean[] = [];
    const queue = new WriteQueue(
      async (writes, mayLeave) => {
        calls.push(mayLeave);
        return writes.map(() => undefined);
      },
      { delayMs: 1, maxBatch: 2 },
    );
    await Promise.all(["a", "b"].map((id) => queue.enqueue(start(id))));
    await queue.enqueue(start("c"));
    assert.deepEqual(calls, [false, true]);
  });

  test("a writer with a full batch waiting does not wait for its turn", async () => {
    let immediateRan = false;
    setImmediate(() => {
      immediateRan = true;
    });
    const calls: Array<[string[], boolean]> = [];
    const queue = new WriteQueue(
      async (writes, mayLeave) => {
        calls.push([writes.map(generationIdOf), immediateRan]);
        return writes.map((_, i) => (i > 0 && mayLeave && calls.length === 1 ? NOT_REACHED : undefined));
      },
      { delayMs: 1, maxBatch: 4 },
    );
    const first = ["a", "b", "c"].map((id) => queue.enqueue(start(id)));
    void queue.flush();
    // While b and c wait for the writer's next turn, work that never yields to the loop (as promise
    // chains alone) fills a batch: the writer goes on at once.
    const more = ["d", "e", "f", "g"].map((id) => queue.enqueue(start(id)));
    await Promise.all([...first, ...more]);
    assert.deepEqual(calls, [
      [["a", "b", "c"], false],
      [["b", "c", "d", "e"], false],
      [["f", "g"], false],
    ]);
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
    timeout: 20_000,
  }, async (t) => {
    const { batches, apply } = recorder();
    // Every batch ends with new writes already queued: the writer never goes idle while this runs.
    const queue = new WriteQueue(apply, { delayMs: 1 });
    let producing = true;
    let n = 0;
    const producer = (async () => {
      // The test's signal ends the load if the test times out, so a failure cannot hang the run.
      while (producing && !t.signal.aborted) {
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

/** A store that can be taken away and brought back: while away every batch fails as unavailable. */
function flakyStore() {
  const batches: string[][] = [];
  const written: string[] = [];
  let away = false;
  let tries = 0;
  const apply = async (writes: GenerationWrite[]) => {
    tries++;
    batches.push(writes.map((w) => `${w.kind}:${generationIdOf(w)}`));
    await new Promise((resolve) => setTimeout(resolve, 1));
    if (away) throw new StoreUnavailable(new Error("connect ECONNREFUSED"));
    written.push(...writes.map((w) => `${w.kind}:${generationIdOf(w)}`));
    return writes.map(() => undefined);
  };
  return {
    apply,
    batches,
    written,
    get tries() {
      return tries;
    },
    set away(value: boolean) {
      away = value;
    },
  };
}

const quick = { delayMs: 1, retryDelayMs: 5, maxRetryDelayMs: 20 };

describe("generation write queue while the store is away", () => {
  test("a batch is kept and tried again; writes made meanwhile wait behind it and land in order", async () => {
    const store = flakyStore();
    const reported: Error[] = [];
    const notices: string[] = [];
    const queue = new WriteQueue(store.apply, {
      ...quick,
      onError: (e) => reported.push(e),
      onRecovered: (m) => notices.push(m),
    });
    store.away = true;
    const first = [queue.enqueue(start("g1")), queue.enqueue(start("g2"))];
    await new Promise((resolve) => setTimeout(resolve, 30));
    assert.equal(queue.waitingForStore, true);
    const later = [queue.enqueue(finish("g1")), queue.enqueue(finish("g2"))];
    assert.equal(queue.backlog, 4);
    await new Promise((resolve) => setTimeout(resolve, 30));
    assert.ok(store.tries >= 3, `tried ${store.tries} times`);
    assert.deepEqual(store.written, []);
    store.away = false;
    await Promise.all([...first, ...later]);
    assert.deepEqual(store.written, ["start:g1", "start:g2", "finish:g1", "finish:g2"]);
    assert.equal(queue.waitingForStore, false);
    assert.equal(queue.backlog, 0);
    // One report when the store went away (not one per try), one notice when it came back.
    assert.equal(reported.length, 1);
    assert.match(reported[0]!.message, /store is unavailable; 2 generation write\(s\) are kept in memory/);
    assert.equal(notices.length, 1);
    assert.match(notices[0]!, /store is back after \d+ ms/);
  });

  test("a retried batch whose first COMMIT landed finds its own writes there: not a failure", async () => {
    let tries = 0;
    const queue = new WriteQueue(
      async (writes) => {
        tries++;
        // The first try commits, then the connection breaks before the answer arrives.
        if (tries === 1) throw new StoreUnavailable(new Error("Connection terminated unexpectedly"));
        return writes.map((w) => generationAlreadyStarted(generationIdOf(w)));
      },
      { ...quick, onError: () => {} },
    );
    await queue.enqueue(start("g1"));
    assert.equal(tries, 2);
  });

  test("full once maxBacklog writes wait, refusing new generations until they drain", async () => {
    const store = flakyStore();
    const queue = new WriteQueue(store.apply, {
      ...quick,
      maxBacklog: 3,
      onError: () => {},
      onRecovered: () => {},
    });
    store.away = true;
    const writes = ["a", "b"].map((id) => queue.enqueue(start(id)));
    assert.equal(queue.full, false);
    writes.push(queue.enqueue(start("c")));
    assert.equal(queue.full, true);
    store.away = false;
    await Promise.all(writes);
    assert.equal(queue.full, false);
  });

  test("a read of a generation whose write waits for the store is told so at once, not held", async () => {
    const store = flakyStore();
    const queue = new WriteQueue(store.apply, { ...quick, onError: () => {}, onRecovered: () => {} });
    store.away = true;
    const written = queue.enqueue(start("g1"));
    await new Promise((resolve) => setTimeout(resolve, 20));
    const began = performance.now();
    await assert.rejects(queue.awaitWritesFor("g1"), StoreUnavailable);
    assert.ok(performance.now() - began < 50);
    await queue.awaitWritesFor("other"); // nothing pending for it: nothing to wait for
    store.away = false;
    await written;
    await queue.awaitWritesFor("g1");
  });

  test("close while the store stays away gives up after its grace and names the generations lost", async () => {
    const store = flakyStore();
    const reported: Error[] = [];
    const queue = new WriteQueue(store.apply, {
      ...quick,
      closeGraceMs: 60,
      onError: (e) => reported.push(e),
    });
    store.away = true;
    const writes = [queue.enqueue(start("g1")), queue.enqueue(start("g2"))];
    await new Promise((resolve) => setTimeout(resolve, 5));
    // Queued behind the batch in flight, in a batch of its own: failed without another try.
    const behind = queue.enqueue(start("g3"));
    const began = performance.now();
    await queue.close();
    assert.ok(performance.now() - began < 1000);
    for (const w of writes) await assert.rejects(w, /shutdown grace.*lost: g1, g2/);
    await assert.rejects(behind, /lost: g3/);
    assert.deepEqual(
      reported.slice(-2).map((e) => e.message.replace(/.*lost: /, "")),
      ["g1, g2)", "g3)"],
    );
    assert.ok(!store.batches.some((b) => b.includes("start:g3")), "tried again after giving up");
  });
});
