// One timed run of the load generator (autocannon, programmatic API) against one target at fixed
// concurrency, with the target's CPU time read from /proc before and after.
//
// Latencies are recorded here from autocannon's per-response event rather than taken from its
// histogram: that histogram keeps whole milliseconds, too coarse for a sub-millisecond target.

import autocannon, { type Result } from "autocannon";
import { cpuMs } from "./proc-stats.ts";

export interface LoadRequest {
  path: string;
  headers: Record<string, string>;
  body: string;
}

export interface Target {
  name: string;
  url: string;
  pid: number;
}

export interface RunResult {
  requests: number;
  rps: number;
  p50Ms: number;
  p99Ms: number;
  /** Failed requests: connection errors, timeouts and non-2xx answers. */
  failures: number;
  statusCodes: Record<string, number>;
  cpuMsPerRequest: number;
}

export async function measure(
  target: Target,
  request: LoadRequest,
  opts: { connections: number; seconds: number },
): Promise<RunResult> {
  const latencies: number[] = [];
  const cpuBefore = cpuMs(target.pid);
  const started = performance.now();
  const result = await new Promise<Result>((resolve, reject) => {
    const instance = autocannon(
      {
        url: target.url + request.path,
        method: "POST",
        headers: request.headers,
        body: request.body,
        connections: opts.connections,
        duration: opts.seconds,
        timeout: 10,
      },
      (err, res) => (err ? reject(err) : resolve(res)),
    );
    instance.on("response", (_client, status, _bytes, ms) => {
      if (status >= 200 && status < 300) latencies.push(ms);
    });
  });
  const seconds = (performance.now() - started) / 1000;
  // Work the answers left behind (ledger batches, settlement) belongs to these requests too.
  await new Promise((r) => setTimeout(r, 200));
  const cpu = cpuMs(target.pid) - cpuBefore;
  latencies.sort((a, b) => a - b);
  const statusCodes: Record<string, number> = {};
  for (const [code, { count }] of Object.entries(result.statusCodeStats)) statusCodes[code] = count;
  return {
    requests: latencies.length,
    rps: latencies.length / seconds,
    p50Ms: percentile(latencies, 0.5),
    p99Ms: percentile(latencies, 0.99),
    failures: result.errors + result.non2xx,
    statusCodes,
    cpuMsPerRequest: latencies.length > 0 ? cpu / latencies.length : Number.NaN,
  };
}

/** Nearest-rank percentile of sorted values. */
export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))];
}
