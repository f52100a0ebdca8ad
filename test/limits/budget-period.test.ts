// A budget's period: UTC days and months, and `total`; and the CLI's `--budget USD/PERIOD`.

import assert from "node:assert/strict";
import { test } from "node:test";
import { parseBudget, periodOf } from "../../src/limits/budget.ts";

test("periods are UTC calendar days and months; total has no end", () => {
  const now = Date.UTC(2026, 11, 31, 23, 59, 59, 999); // the last millisecond of 2026
  assert.deepEqual(periodOf("day", now), { start: Date.UTC(2026, 11, 31), end: Date.UTC(2027, 0, 1) });
  assert.deepEqual(periodOf("month", now), { start: Date.UTC(2026, 11, 1), end: Date.UTC(2027, 0, 1) });
  assert.deepEqual(periodOf("month", Date.UTC(2028, 1, 29, 12)), {
    start: Date.UTC(2028, 1, 1),
    end: Date.UTC(2028, 2, 1),
  });
  assert.deepEqual(periodOf("total", now), { start: 0 });
});

test("--budget USD/PERIOD", () => {
  assert.deepEqual(parseBudget("5/day"), { usd: "5", period: "day" });
  assert.deepEqual(parseBudget("$12.50/month"), { usd: "12.50", period: "month" });
  assert.deepEqual(parseBudget("100/total"), { usd: "100", period: "total" });
  for (const bad of ["5", "5/week", "-1/day", "1e3/day", "/day"])
    assert.throws(() => parseBudget(bad), /--budget/);
});
