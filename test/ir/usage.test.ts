// An upstream's usage counts as the ledger takes them: whole numbers from 0 to MAX_WIRE_COUNT
// (test/e2e/upstream-usage-counts.test.ts shows what counts past that did to a ledger).

import assert from "node:assert/strict";
import { test } from "node:test";
import { countFromWire, MAX_WIRE_COUNT } from "../../src/ir/usage.ts";

test("a count from the wire is a whole number from 0 to the most", () => {
  const cases: Array<[unknown, number]> = [
    [12, 12],
    [0, 0],
    [-5, 0],
    [1.5, 2],
    [0.4, 0],
    [1e300, MAX_WIRE_COUNT],
    [Number.POSITIVE_INFINITY, MAX_WIRE_COUNT],
    [Number.NaN, 0],
    ["12", 0],
    [null, 0],
    [undefined, 0],
    [{}, 0],
  ];
  for (const [wire, count] of cases) assert.equal(countFromWire(wire), count, String(wire));
});
