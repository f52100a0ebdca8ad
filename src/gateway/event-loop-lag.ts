// How late the event loop runs, for /metrics. A loop held by synchronous work (a long computation
// on one request) delays every other request by as long; this is the number that shows it.
//
// node:perf_hooks' monitorEventLoopDelay samples in native code, off the request path: a libuv timer
// every RESOLUTION_MS records how long it actually took to fire. Every WINDOW_MS an unref'd timer
// moves the samples into a ring of the last WINDOWS windows, so the quantiles cover the last minute
// (plus the window being filled) whatever the scrape interval and however many scrapers there are,
// where a reset at each scrape would let one scraper hide a stall from another.

import { type ELDHistogram, monitorEventLoopDelay } from "node:perf_hooks";

const RESOLUTION_MS = 10;
const WINDOW_MS = 15_000;
const WINDOWS = 4;
export const LAG_WINDOW_SECONDS = (WINDOW_MS * WINDOWS) / 1000;
// (The exported figures cover the last WINDOWS complete windows and the one being filled.)

/** One window's samples as (lag in seconds, how many samples) pairs, from the histogram's percentiles. */
type Window = Array<[lag: number, weight: number]>;

export interface LagSummary {
  /** Lag in seconds at each quantile over the last LAG_WINDOW_SECONDS and more; quantile 1 is the maximum. */
  quantiles: Array<[quantile: number, seconds: number]>;
  /** Cumulative since the monitor started: total lag in seconds, and samples. */
  sum: number;
  count: number;
}

export const LAG_QUANTILES = [0.5, 0.9, 0.99, 1];

export class EventLoopLag {
  private readonly windowMs: number;
  private readonly keep: number;
  private histogram: ELDHistogram | undefined;
  private rotation: NodeJS.Timeout | undefined;
  private windows: Window[] = [];
  private users = 0;
  private sum = 0;
  private count = 0;

  constructor(opts: { windowMs?: number; windows?: number } = {}) {
    this.windowMs = opts.windowMs ?? WINDOW_MS;
    this.keep = opts.windows ?? WINDOWS;
  }

  /** Starts measuring (once per process, however many apps start it). */
  start(): void {
    if (this.users++ > 0) return;
    this.histogram = monitorEventLoopDelay({ resolution: RESOLUTION_MS });
    this.histogram.enable();
    this.rotation = setInterval(() => this.rotate(), this.windowMs).unref();
  }

  stop(): void {
    if (--this.users > 0) return;
    this.users = 0;
    this.histogram?.disable();
    this.histogram = undefined;
    clearInterval(this.rotation);
    this.windows = [];
  }

  /** The summary over the last windows and the one being filled; undefined when not started. */
  summary(): LagSummary | undefined {
    if (!this.histogram) return undefined;
    const live = windowOf(this.histogram);
    const samples = [...this.windows, live].flat().sort((a, b) => a[0] - b[0]);
    const total = samples.reduce((n, [, weight]) => n + weight, 0);
    const quantiles = LAG_QUANTILES.map((q): [number, number] => [q, quantile(samples, total, q)]);
    const liveCount = live.reduce((n, [, w]) => n + w, 0);
    const liveSum = live.reduce((n, [lag, w]) => n + lag * w, 0);
    return { quantiles, sum: this.sum + liveSum, count: this.count + liveCount };
  }

  private rotate(): void {
    if (!this.histogram) return;
    const window = windowOf(this.histogram);
    this.histogram.reset();
    for (const [lag, weight] of window) {
      this.sum += lag * weight;
      this.count += weight;
    }
    this.windows.push(window);
    if (this.windows.length > this.keep) this.windows.shift();
  }
}

/**
 * The histogram's samples as weighted lags. It records how long each RESOLUTION_MS timer took to
 * fire; the lag is what exceeds RESOLUTION_MS.
 */
function windowOf(histogram: ELDHistogram): Window {
  if (histogram.count === 0) return [];
  const out: Window = [];
  let previous = 0;
  for (const [percentile, nanos] of histogram.percentiles) {
    const weight = ((percentile - previous) / 100) * histogram.count;
    previous = percentile;
    if (weight > 0) out.push([Math.max(0, nanos / 1e6 - RESOLUTION_MS) / 1000, weight]);
  }
  return out;
}

function quantile(sorted: Window, total: number, q: number): number {
  if (sorted.length === 0) return 0;
  if (q >= 1) return sorted[sorted.length - 1][0];
  let seen = 0;
  for (const [lag, weight] of sorted) {
    seen += weight;
    if (seen >= q * total) return lag;
  }
  return sorted[sorted.length - 1][0];
}

export const eventLoopLag = new EventLoopLag();
