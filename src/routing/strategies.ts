// `provider.routing.type`: the order in which one model's endpoints are tried.
//   priority       as the catalog lists them; with `primary_factor: speed`, highest recent
//                  throughput first
//   round_robin    the listed order rotated by a shared counter, so that successive requests start
//                  on successive endpoints
//   least_latency  lowest recent time to first token first (time to a whole answer for endpoints
//                  only ever called without streaming)
// Endpoints without a current measurement come first in the measured strategies, in listed order:
// they are tried so that they get measured (statistics go stale, so a slow endpoint is re-tried
// once in a while rather than never again).

import type { PrimaryFactor, RoutingType } from "./choice.ts";
import { stableSortBy } from "./factors.ts";
import type { EndpointStats } from "./health.ts";

export function orderEndpoints<T>(
  endpoints: T[],
  type: RoutingType,
  opts: { factor?: PrimaryFactor; turn: number; stats: (endpoint: T) => EndpointStats },
): T[] {
  if (type === "round_robin") return rotate(endpoints, opts.turn);
  if (type === "least_latency") return unmeasuredFirst(endpoints, (e) => latencyOf(opts.stats(e)));
  if (opts.factor === "speed")
    return unmeasuredFirst(endpoints, (e) => {
      const tps = opts.stats(e).tokensPerSecond;
      return tps === undefined ? undefined : -tps;
    });
  return endpoints;
}

/** Turn n (from 1) starts at endpoint (n − 1) mod count. */
export function rotate<T>(items: T[], turn: number): T[] {
  if (items.length < 2) return items;
  const start = (((turn - 1) % items.length) + items.length) % items.length;
  return [...items.slice(start), ...items.slice(0, start)];
}

export function latencyOf(stats: EndpointStats): number | undefined {
  return stats.ttftMs ?? stats.durationMs;
}

function unmeasuredFirst<T>(items: T[], score: (item: T) => number | undefined): T[] {
  const unmeasured = items.filter((i) => score(i) === undefined);
  const measured = items.filter((i) => score(i) !== undefined);
  return [...unmeasured, ...stableSortBy(measured, score)];
}
