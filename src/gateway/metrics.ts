// Prometheus metrics: what the gateway itself costs per request (upstream time excluded), how many
// generations each protocol served, and how late its event loop runs (event-loop-lag.ts), in the
// text exposition format (version 0.0.4). Each App owns one Metrics (so tests and in-process apps
// never share counts); the event loop's lag is the process's own, shared by any App in it.
//
// Written here rather than with prom-client: its observe() validates and hashes the label object on
// every call, about 2 % of the relay path's CPU. Here a label combination is looked up once per
// request in a Map and an observation is a bucket search and three additions.

import { eventLoopLag, LAG_WINDOW_SECONDS } from "./event-loop-lag.ts";

export const METRICS_CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

/** One time series per combination of two label values, made on first use. */
class Family<T> {
  // Nested by label value: two lookups of strings whose hashes V8 keeps, no key built per call.
  private readonly series = new Map<string, Map<string, { labels: string; value: T }>>();
  private readonly names: readonly [string, string];
  private readonly make: () => T;

  constructor(names: readonly [string, string], make: () => T) {
    this.names = names;
    this.make = make;
  }

  get(a: string, b: string): T {
    let byB = this.series.get(a);
    if (!byB) {
      byB = new Map();
      this.series.set(a, byB);
    }
    let entry = byB.get(b);
    if (!entry) {
      entry = { labels: labelText(this.names, [a, b]), value: this.make() };
      byB.set(b, entry);
    }
    return entry.value;
  }

  *entries(): Iterable<{ labels: string; value: T }> {
    for (const byB of this.series.values()) yield* byB.values();
  }
}

interface HistogramSeries {
  /** Observations per bucket (not cumulative); the last one is +Inf. */
  counts: number[];
  sum: number;
  count: number;
}

const OVERHEAD_BUCKETS = [0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1];

export class Metrics {
  private readonly overhead = new Family<HistogramSeries>(["api", "mode"], () => ({
    counts: new Array(OVERHEAD_BUCKETS.length + 1).fill(0),
    sum: 0,
    count: 0,
  }));
  private readonly generations = new Family<{ n: number }>(["api", "status"], () => ({ n: 0 }));

  observeOverhead(api: string, mode: string, seconds: number): void {
    const series = this.overhead.get(api, mode);
    let bucket = 0;
    while (bucket < OVERHEAD_BUCKETS.length && seconds > OVERHEAD_BUCKETS[bucket]) bucket++;
    series.counts[bucket]++;
    series.sum += seconds;
    series.count++;
  }

  countGeneration(api: string, status: string): void {
    this.generations.get(api, status).n++;
  }

  /** Every metric, as GET /metrics answers it. */
  render(): string {
    const lines = [
      "# HELP switchyard_overhead_seconds Time spent in the gateway per request before its answer starts, upstream time excluded.",
      "# TYPE switchyard_overhead_seconds histogram",
    ];
    for (const { labels, value } of this.overhead.entries()) {
      let cumulative = 0;
      OVERHEAD_BUCKETS.forEach((bound, i) => {
        cumulative += value.counts[i];
        lines.push(`switchyard_overhead_seconds_bucket{le="${bound}",${labels}} ${cumulative}`);
      });
      lines.push(`switchyard_overhead_seconds_bucket{le="+Inf",${labels}} ${value.count}`);
      lines.push(`switchyard_overhead_seconds_sum{${labels}} ${value.sum}`);
      lines.push(`switchyard_overhead_seconds_count{${labels}} ${value.count}`);
    }
    lines.push(
      "# HELP switchyard_generations_total Inference requests by protocol and outcome.",
      "# TYPE switchyard_generations_total counter",
    );
    for (const { labels, value } of this.generations.entries())
      lines.push(`switchyard_generations_total{${labels}} ${value.n}`);
    lines.push(...eventLoopLagLines());
    return `${lines.join("\n")}\n`;
  }
}

/** The event loop's lag as a summary: quantiles over the last minute, sum and count since start. */
function eventLoopLagLines(): string[] {
  const lag = eventLoopLag.summary();
  if (!lag) return [];
  return [
    `# HELP switchyard_event_loop_lag_seconds How late the event loop ran over the last ${LAG_WINDOW_SECONDS} s (a request arriving while it is held waits as long). quantile="1" is the longest stall: alert on it (e.g. over 0.5 s), or on quantile="0.99" staying over 0.1 s.`,
    "# TYPE switchyard_event_loop_lag_seconds summary",
    ...lag.quantiles.map(([q, s]) => `switchyard_event_loop_lag_seconds{quantile="${q}"} ${micros(s)}`),
    `switchyard_event_loop_lag_seconds_sum ${micros(lag.sum)}`,
    `switchyard_event_loop_lag_seconds_count ${Math.round(lag.count)}`,
  ];
}

/** Seconds to the microsecond: the monitor is no finer, and 0.0000351999999 reads as noise. */
function micros(seconds: number): number {
  return Math.round(seconds * 1e6) / 1e6;
}

function labelText(names: readonly string[], values: readonly string[]): string {
  return names.map((name, i) => `${name}="${escapeLabelValue(values[i])}"`).join(",");
}

/** The exposition format's escapes for label values: backslash, double quote, line feed. */
function escapeLabelValue(value: string): string {
  return value.replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/\n/g, "\\n");
}
