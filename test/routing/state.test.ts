import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { MemoryRoutingState } from "../../src/routing/state.ts";
import { Clock } from "./clock.ts";

describe("MemoryRoutingState", () => {
  test("counters start at 1 and count per key", async () => {
    const state = new MemoryRoutingState();
    assert.equal(await state.increment("rr:x"), 1);
    assert.equal(await state.increment("rr:x"), 2);
    assert.equal(await state.increment("rr:y"), 1);
  });

  test("hash fields add up, can be set, and are read as a copy", async () => {
    const state = new MemoryRoutingState();
    assert.deepEqual(await state.readHash("stats:e"), {});
    assert.deepEqual(await state.addToHash("stats:e", { ok: 1, errors: 2 }), { ok: 1, errors: 2 });
    assert.deepEqual(await state.addToHash("stats:e", { ok: 1 }), { ok: 2 });
    await state.setInHash("stats:e", { errors: 0, ttft_ms: 12.5 });
    const read = await state.readHash("stats:e");
    assert.deepEqual(read, { ok: 2, errors: 0, ttft_ms: 12.5 });
    read.ok = 99;
    assert.equal((await state.readHash("stats:e")).ok, 2);
  });

  test("marks expire after their time to live", async () => {
    const clock = new Clock();
    const state = new MemoryRoutingState({ now: clock.now });
    assert.equal(await state.markedFor("open:e"), 0);
    assert.equal(await state.mark("open:e", 500), true);
    assert.equal(await state.markedFor("open:e"), 500);
    clock.advance(499);
    assert.equal(await state.markedFor("open:e"), 1);
    clock.advance(1);
    assert.equal(await state.markedFor("open:e"), 0);
  });

  test("onlyIfAbsent takes a mark only when none is live; unmark frees it", async () => {
    const clock = new Clock();
    const state = new MemoryRoutingState({ now: clock.now });
    assert.equal(await state.mark("probe:e", 100, { onlyIfAbsent: true }), true);
    assert.equal(await state.mark("probe:e", 100, { onlyIfAbsent: true }), false);
    clock.advance(100);
    assert.equal(await state.mark("probe:e", 100, { onlyIfAbsent: true }), true);
    await state.unmark("probe:e");
    assert.equal(await state.mark("probe:e", 100, { onlyIfAbsent: true }), true);
  });
});
