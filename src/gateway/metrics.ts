// Prometheus metrics: what the gateway itself costs per request (upstream time excluded), and how
// many generations each protocol served.

import { Counter, Histogram, Registry } from "prom-client";

export const registry = new Registry();

export const overheadSeconds = new Histogram({
  name: "switchyard_overhead_seconds",
  help: "Time spent in the gateway per request before its answer starts, upstream time excluded.",
  labelNames: ["api", "mode"] as const,
  buckets: [0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1],
  registers: [registry],
});

export const generationsTotal = new Counter({
  name: "switchyard_generations_total",
  help: "Inference requests by protocol and outcome.",
  labelNames: ["api", "status"] as const,
  registers: [registry],
});

// Labelled children, made once per label combination: observing through one skips prom-client's
// hashing of the label object on every call (the request path observes on every request).
const overheadChildren = new Map<string, ReturnType<typeof overheadSeconds.labels>>();
const generationChildren = new Map<string, ReturnType<typeof generationsTotal.labels>>();

export function observeOverhead(api: string, mode: string, seconds: number): void {
  const key = `${api} ${mode}`;
  let child = overheadChildren.get(key);
  if (!child) {
    child = overheadSeconds.labels({ api, mode });
    overheadChildren.set(key, child);
  }
  child.observe(seconds);
}

export function countGeneration(api: string, status: string): void {
  const key = `${api} ${status}`;
  let child = generationChildren.get(key);
  if (!child) {
    child = generationsTotal.labels({ api, status });
    generationChildren.set(key, child);
  }
  child.inc();
}
