// The lookup reads a just-made generation again while another process may still be batching it,
// and answers any other miss at once.

import assert from "node:assert/strict";
import { test } from "node:test";
import { generationIdTime, newGenerationId } from "../../src/gateway/ids.ts";
import { lookupGeneration } from "../../src/gateway/lookup.ts";

const caller = { accountId: "acct-1", kind: "payg" };
const auth = { authenticate: async () => caller } as any;
const headers = { authorization: "Bearer sk-test" };

function storeFindingAfter(misses: number, sharedByProcesses = true) {
  let reads = 0;
  return {
    sharedByProcesses,
    get reads() {
      return reads;
    },
    getGeneration: async (id: string) => {
      reads++;
      if (reads <= misses) return undefined;
      const row = { id, api: "messages", model: "m", createdAt: 0, streamed: false, status: "completed" };
      return { ...row, requestRetryTimes: 0, finalRetry: true };
    },
  };
}

test("generationIdTime reads the clock digits back and rejects other strings", () => {
  assert.equal(generationIdTime(newGenerationId(1_700_000_000_123)), 1_700_000_000_123);
  assert.equal(generationIdTime("gen-nope"), undefined);
  assert.equal(generationIdTime("chatcmpl-123"), undefined);
});

test("a just-made id that misses is read again until another process's batch lands", async () => {
  const store = storeFindingAfter(3);
  const id = newGenerationId();
  const record = await lookupGeneration({ auth, store: store as any }, headers, { id });
  assert.equal(record.generationId, id);
  assert.equal(store.reads, 4);
});

test("an old id and a future-dated id miss at once", async () => {
  for (const id of [newGenerationId(Date.now() - 60_000), newGenerationId(Date.now() + 3_600_000)]) {
    const store = storeFindingAfter(Number.POSITIVE_INFINITY);
    const started = Date.now();
    await assert.rejects(lookupGeneration({ auth, store: store as any }, headers, { id }), /No generation/);
    assert.equal(store.reads, 1);
    assert.ok(Date.now() - started < 100);
  }
});

test("a store of one process is read once: its own pending writes were flushed for the lookup", async () => {
  const store = storeFindingAfter(Number.POSITIVE_INFINITY, false);
  await assert.rejects(
    lookupGeneration({ auth, store: store as any }, headers, { id: newGenerationId() }),
    /No generation/,
  );
  assert.equal(store.reads, 1);
});
