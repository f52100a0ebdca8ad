// The /metrics text: cumulative histogram buckets with `le` bounds inclusive, +Inf, sum and count
// per label combination, and counters.

import assert from "node:assert/strict";
import { test } from "node:test";
import { countGeneration, observeOverhead, renderMetrics } from "../../src/gateway/metrics.ts";

test("the overhead histogram counts into cumulative buckets; the counter adds up", () => {
  for (const seconds of [0.00005, 0.00006, 0.003, 7]) observeOverhead("test.api", "whole", seconds);
  countGeneration("test.api", "completed");
  countGeneration("test.api", "completed");
  const text = renderMetrics();
  const series = (suffix: string) =>
    new RegExp(
      `switchyard_overhead_seconds_${suffix}\\{(?:le="([^"]+)",)?api="test.api",mode="whole"\\} (\\S+)`,
      "g",
    );
  const buckets = Object.fromEntries([...text.matchAll(series("bucket"))].map((m) => [m[1], Number(m[2])]));
  assert.equal(buckets["0.00005"], 1, "a value equal to a bound is in that bucket");
  assert.equal(buckets["0.0001"], 2);
  assert.equal(buckets["0.0025"], 2);
  assert.equal(buckets["0.005"], 3);
  assert.equal(buckets["0.1"], 3);
  assert.equal(buckets["+Inf"], 4);
  assert.equal(Number([...text.matchAll(series("count"))][0][2]), 4);
  assert.ok(Math.abs(Number([...text.matchAll(series("sum"))][0][2]) - 7.00311) < 1e-9);
  assert.match(text, /# TYPE switchyard_overhead_seconds histogram\n/);
  assert.match(text, /# TYPE switchyard_generations_total counter\n/);
  assert.match(text, /switchyard_generations_total\{api="test.api",status="completed"\} 2\n/);
});

test("label values are escaped", () => {
  countGeneration('odd"\\\nname', "x");
  assert.match(renderMetrics(), /switchyard_generations_total\{api="odd\\"\\\\\\nname",status="x"\} 1/);
});
