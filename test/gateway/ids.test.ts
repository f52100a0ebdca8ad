// Generation ids: `gen-`, nine base-36 clock digits, sixteen random base64url characters; drawn from
// a pool of random bytes written out once per refill, so each id's part must still be its own.

import assert from "node:assert/strict";
import { test } from "node:test";
import { generationIdTime, newGenerationId } from "../../src/gateway/ids.ts";

test("ids across several refills of the random pool are well formed, distinct and carry their own clock", () => {
  const ids = new Set<string>();
  const randomParts = new Set<string>();
  for (let i = 0; i < 1000; i++) {
    const ms = 1_700_000_000_000 + Math.floor(i / 3); // three ids a millisecond, then the next
    const id = newGenerationId(ms);
    assert.match(id, /^gen-[0-9a-z]{9}[A-Za-z0-9_-]{16}$/);
    assert.equal(generationIdTime(id), ms);
    ids.add(id);
    randomParts.add(id.slice(13));
  }
  assert.equal(ids.size, 1000);
  assert.equal(randomParts.size, 1000, "no random part repeats, at a refill or elsewhere");
  // Ids sort by time: an id made later sorts above one made earlier.
  const early = newGenerationId(1_700_000_000_000);
  const later = newGenerationId(1_700_000_000_001);
  assert.ok(early < later);
});
