// The /metrics text: cumulative histogram buckets with `le` bounds inclusive, +Inf, sum and count
// per label combination, counters, and the event loop's lag as a summary.

import assert from "node:assert/strict";
import { test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { EventLoopLag, eventLoopLag, type LagSummary } from "../../src/gateway/event-loop-lag.ts";
import { Metrics } from "../../src/gateway/metrics.ts";

test("the overhead histogram counts into cumulative buckets; the counter adds up", () => {
  // An instance of its own: the real label values, no other test's counts in it.
  const metrics = new Metrics();
  for (const seconds of [0.00005, 0.00006, 0.003, 7])
    metrics.observeOverhead("chat.completions", "whole", seconds);
  metrics.countGeneration("chat.completions", "completed");
  metrics.countGeneration("chat.completions", "completed");
  const text = metrics.render();
  const series = (suffix: string) =>
    new RegExp(
      `switchyard_overhead_seconds_${suffix}\\{(?:le="([^"]+)",)?api="chat.completions",mode="whole"\\} (\\S+)`,
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
  assert.match(text, /switchyard_generations_total\{api="chat.completions",status="completed"\} 2\n/);
});

test("label values are escaped", () => {
  const metrics = new Metrics();
  metrics.countGeneration('odd"\\\nname', "x");
  assert.match(metrics.render(), /switchyard_generations_total\{api="odd\\"\\\\\\nname",status="x"\} 1/);
});

test("the event loop's lag: a summary whose maximum shows a stall, over the last minute", async () => {
  eventLoopLag.start();
  try {
    await sleep(50);
    const stalled = Date.now();
    while (Date.now() - stalled < 300) {
      // hold the event loop, as one synchronous request would
    }
    await sleep(30);
    const text = new Metrics().render();
    assert.match(text, /# HELP switchyard_event_loop_lag_seconds .*quantile="1"/);
    assert.match(text, /# TYPE switchyard_event_loop_lag_seconds summary\n/);
    const quantile = (q: string) =>
      Number(
        new RegExp(`^switchyard_event_loop_lag_seconds\\{quantile="${q}"\\} (\\S+)$`, "m").exec(text)?.[1],
      );
    assert.ok(quantile("1") >= 0.25 && quantile("1") < 2, `max ${quantile("1")}`);
    assert.ok(quantile("0.5") < 0.1, `median ${quantile("0.5")}`);
    assert.ok(quantile("0.5") <= quantile("0.9") && quantile("0.9") <= quantile("0.99"));
    const count = Number(/^switchyard_event_loop_lag_seconds_count (\d+)$/m.exec(text)?.[1]);
    const sum = Number(/^switchyard_event_loop_lag_seconds_sum (\S+)$/m.exec(text)?.[1]);
    assert.ok(count > 0 && sum >= 0.25, `count ${count}, sum ${sum}`);
  } finally {
    eventLoopLag.stop();
  }
  assert.doesNotMatch(
    new Metrics().render(),
    /switchyard_event_loop_lag_seconds/,
    "not exported once stopped",
  );
});

test("a stall leaves the lag's quantiles once its window has aged out; sum and count keep it", async () => {
  const lag = new EventLoopLag({ windowMs: 100, windows: 2 });
  lag.start();
  try {
    await sleep(30);
    const stalled = Date.now();
    while (Date.now() - stalled < 250) {
      // hold the event loop
    }
    await sleep(30);
    const during = lag.summary();
    assert.ok(during && maxOf(during) >= 0.2, `max ${during && maxOf(during)}`);
    await sleep(450); // more than the two windows kept, plus the one being filled
    const after = lag.summary();
    assert.ok(after && maxOf(after) < 0.2, `max ${after && maxOf(after)}`);
    assert.ok(after.sum >= 0.2 && after.count > during.count, "sum and count are cumulative");
  } finally {
    lag.stop();
  }
});

function maxOf(summary: LagSummary): number {
  return summary.quantiles.find(([q]) => q === 1)?.[1] ?? Number.NaN;
}
