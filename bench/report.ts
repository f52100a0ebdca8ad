// Turns the alternated runs into the figures the issue asks for, and prints them with a PASS/FAIL
// line per target.
//
// Each target's figures are medians of its runs. Ratios and added latency are medians of the
// per-round pairs (a proxy run and the gateway run right after it), so slow drift of a noisy
// machine affects both sides of each pair alike.

import type { IdleStreamsResult } from "./idle-streams.ts";
import type { RunResult } from "./load.ts";
import type { LoadScenario } from "./scenarios.ts";

export interface ScenarioOutcome {
  scenario: LoadScenario;
  proxyRuns: RunResult[];
  gatewayRuns: RunResult[];
  /** Why the scenario, or its gateway side, was not measured. */
  skipped?: string;
  /** Share of the machine's CPU that other processes used meanwhile (0–1). */
  otherLoad?: number;
}

export interface IdleOutcome {
  /** How the gateway called its upstream (the proxy always speaks HTTP/1.1). */
  upstream?: "h2c" | "http1";
  gateway?: IdleStreamsResult;
  proxy?: IdleStreamsResult;
  skipped?: string;
}

export interface Figures {
  rps: number;
  p50Ms: number;
  p90Ms: number;
  p99Ms: number;
  p999Ms: number;
  cpuMsPerRequest: number;
  failures: number;
}

export interface Comparison {
  throughputRatio: number;
  addedP50Ms: number;
  addedP99Ms: number;
  cpuRatio: number;
}

export function median(values: number[]): number {
  const v = values.filter((x) => !Number.isNaN(x)).sort((a, b) => a - b);
  if (v.length === 0) return Number.NaN;
  const mid = v.length >> 1;
  return v.length % 2 ? v[mid] : (v[mid - 1] + v[mid]) / 2;
}

export function figures(runs: RunResult[]): Figures | undefined {
  if (runs.length === 0) return undefined;
  return {
    rps: median(runs.map((r) => r.rps)),
    p50Ms: median(runs.map((r) => r.p50Ms)),
    p90Ms: median(runs.map((r) => r.p90Ms)),
    p99Ms: median(runs.map((r) => r.p99Ms)),
    p999Ms: median(runs.map((r) => r.p999Ms)),
    cpuMsPerRequest: median(runs.map((r) => r.cpuMsPerRequest)),
    failures: runs.reduce((n, r) => n + r.failures, 0),
  };
}

export function compare(proxy: RunResult[], gateway: RunResult[]): Comparison | undefined {
  const pairs = gateway.map((g, i) => [proxy[i], g] as const).filter(([p]) => p !== undefined);
  if (pairs.length === 0) return undefined;
  return {
    throughputRatio: median(pairs.map(([p, g]) => g.rps / p.rps)),
    addedP50Ms: median(pairs.map(([p, g]) => g.p50Ms - p.p50Ms)),
    addedP99Ms: median(pairs.map(([p, g]) => g.p99Ms - p.p99Ms)),
    cpuRatio: median(pairs.map(([p, g]) => g.cpuMsPerRequest / p.cpuMsPerRequest)),
  };
}

const fixed = (n: number, digits: number) => (Number.isNaN(n) ? "n/a" : n.toFixed(digits));
const signed = (n: number, digits: number) => (n >= 0 ? "+" : "") + fixed(n, digits);

export function formatScenario(o: ScenarioOutcome, rounds: number, seconds: number): string {
  const { scenario } = o;
  const lines = [`\n${scenario.title}   [${scenario.name}: ${rounds} rounds × ${seconds} s, alternated]`];
  const proxy = figures(o.proxyRuns);
  const gateway = figures(o.gatewayRuns);
  if (proxy || gateway) {
    lines.push(
      `  ${"".padEnd(9)}${"req/s".padStart(9)}${"p50 ms".padStart(9)}${"p90 ms".padStart(9)}` +
        `${"p99 ms".padStart(9)}${"p99.9 ms".padStart(10)}${"CPU ms/req".padStart(12)}${"failed".padStart(8)}`,
    );
    for (const [name, f] of [
      ["proxy", proxy],
      ["gateway", gateway],
    ] as const) {
      if (!f) continue;
      lines.push(
        `  ${name.padEnd(9)}${fixed(f.rps, 0).padStart(9)}${fixed(f.p50Ms, 2).padStart(9)}` +
          `${fixed(f.p90Ms, 2).padStart(9)}${fixed(f.p99Ms, 2).padStart(9)}${fixed(f.p999Ms, 2).padStart(10)}` +
          `${fixed(f.cpuMsPerRequest, 3).padStart(12)}${String(f.failures).padStart(8)}`,
      );
    }
  }
  const c = compare(o.proxyRuns, o.gatewayRuns);
  if (c)
    lines.push(
      `  gateway vs proxy: throughput ${fixed(c.throughputRatio * 100, 1)} %, p50 ${signed(c.addedP50Ms, 2)} ms, ` +
        `p99 ${signed(c.addedP99Ms, 2)} ms, CPU/request ${fixed(c.cpuRatio, 2)}×`,
    );
  const ratios = o.gatewayRuns.map((g, i) => (100 * g.rps) / o.proxyRuns[i]?.rps);
  if (ratios.length > 1)
    lines.push(`  throughput ratio per round: ${ratios.map((r) => fixed(r, 0)).join(", ")} %`);
  if (o.otherLoad !== undefined)
    lines.push(
      `  other processes used ${fixed(o.otherLoad * 100, 0)} % of the machine's CPU meanwhile` +
        (scenario.storage === "postgres" ? " (the PostgreSQL server's own work included)" : ""),
    );
  const failed = [...o.proxyRuns, ...o.gatewayRuns].find((r) => r.failures > 0);
  if (failed)
    lines.push(
      `  note: failed requests seen; status codes of one such run: ${JSON.stringify(failed.statusCodes)}`,
    );
  if (o.skipped) lines.push(`  not measured: ${o.skipped}`);
  return lines.join("\n");
}

export function formatIdle(o: IdleOutcome): string {
  const count = (o.gateway ?? o.proxy)?.count ?? 0;
  const lines = [
    `\n${count.toLocaleString("en")} concurrent open streams (first chunk sent, then held open)   [idle-streams]`,
    `  gateway → upstream over ${o.upstream === "http1" ? "HTTP/1.1" : "h2c"}; proxy → upstream over HTTP/1.1`,
  ];
  for (const [name, r] of [
    ["gateway", o.gateway],
    ["proxy", o.proxy],
  ] as const) {
    if (!r) continue;
    lines.push(
      `  ${name.padEnd(8)} ${r.opened}/${r.count} open after ${fixed(r.openMs / 1000, 1)} s; ` +
        `RSS before ${fixed(r.before.rssMiB, 0)} MiB, while open ${fixed(r.whileOpen.rssMiB, 0)} MiB ` +
        `(peak VmHWM ${fixed(r.whileOpen.peakRssMiB, 0)} MiB, ${fixed(perStreamKiB(r), 0)} KiB per open stream), ` +
        `after close ${fixed(r.afterClose.rssMiB, 0)} MiB; ${r.descriptors ?? "?"} descriptors open` +
        (r.failed > 0 ? `; ${r.failed} failed (${r.firstFailure})` : ""),
    );
  }
  if (o.skipped) lines.push(`  not measured: ${o.skipped}`);
  return lines.join("\n");
}

/** RSS growth per open stream: with fewer than all open, it tells what all would cost. */
function perStreamKiB(r: IdleStreamsResult): number {
  return r.opened > 0 ? ((r.whileOpen.rssMiB - r.before.rssMiB) * 1024) / r.opened : Number.NaN;
}

export interface Verdict {
  target: string;
  /** undefined: could not be measured. */
  pass?: boolean;
  measured: string;
}

/** The targets each measured scenario answers to (issue figures, on this 2-core machine). */
export const TARGETS = {
  relayThroughput: 0.85,
  relayCpu: 1.25,
  c1AddedP50Ms: 0.1,
  c1AddedP99Ms: 0.5,
  streamThroughput: 0.75,
  streamCpu: 1.4,
  translatedThroughput: 0.65,
  idleStreamsRssMiB: 500,
};

export function verdicts(outcomes: ScenarioOutcome[], idle: IdleOutcome | undefined): Verdict[] {
  const out: Verdict[] = [];
  const measured = (o: ScenarioOutcome) => compare(o.proxyRuns, o.gatewayRuns);
  const check = (
    o: ScenarioOutcome,
    target: string,
    pass: (c: Comparison) => boolean,
    show: (c: Comparison) => string,
  ) => {
    const c = measured(o);
    out.push({
      target: `${o.scenario.name}: ${target}`,
      pass: c && pass(c),
      measured: c ? show(c) : "not measured",
    });
  };
  const throughput = (o: ScenarioOutcome, floor: number) =>
    check(
      o,
      `throughput ≥ ${floor * 100} % of proxy`,
      (c) => c.throughputRatio >= floor,
      (c) => `${fixed(c.throughputRatio * 100, 1)} %`,
    );
  const cpu = (o: ScenarioOutcome, ceiling: number) =>
    check(
      o,
      `CPU/request ≤ ${ceiling}× proxy`,
      (c) => c.cpuRatio <= ceiling,
      (c) => `${fixed(c.cpuRatio, 2)}×`,
    );
  for (const o of outcomes) {
    const { scenario } = o;
    // Reported, no target.
    if (
      scenario.peer ||
      scenario.workers ||
      scenario.storage === "postgres" ||
      scenario.kind === "embeddings" ||
      scenario.kind === "platform-relay" ||
      scenario.kind === "memory"
    )
      continue;
    if (scenario.kind === "relay" && scenario.connections > 1) {
      throughput(o, TARGETS.relayThroughput);
      cpu(o, TARGETS.relayCpu);
    } else if (scenario.kind === "relay") {
      check(
        o,
        `added p50 ≤ ${TARGETS.c1AddedP50Ms} ms`,
        (c) => c.addedP50Ms <= TARGETS.c1AddedP50Ms,
        (c) => `${signed(c.addedP50Ms, 3)} ms`,
      );
      check(
        o,
        `added p99 ≤ ${TARGETS.c1AddedP99Ms} ms`,
        (c) => c.addedP99Ms <= TARGETS.c1AddedP99Ms,
        (c) => `${signed(c.addedP99Ms, 3)} ms`,
      );
    } else if (scenario.kind === "stream-relay") {
      throughput(o, TARGETS.streamThroughput);
      cpu(o, TARGETS.streamCpu);
    } else throughput(o, TARGETS.translatedThroughput);
  }
  if (idle) {
    const g = idle.gateway;
    const all = g !== undefined && g.opened === g.count;
    out.push({
      target: `idle-streams: all ${g?.count ?? "N"} open and gateway RSS < ${TARGETS.idleStreamsRssMiB} MiB`,
      pass: g && all && g.whileOpen.rssMiB < TARGETS.idleStreamsRssMiB,
      measured: g
        ? `${g.opened}/${g.count} open, RSS ${fixed(g.whileOpen.rssMiB, 0)} MiB (peak ${fixed(g.whileOpen.peakRssMiB, 0)} MiB)` +
          (all
            ? ""
            : `; at ${fixed(perStreamKiB(g), 0)} KiB per stream all ${g.count} would need ≈ ` +
              `${fixed(g.before.rssMiB + (perStreamKiB(g) * g.count) / 1024, 0)} MiB`)
        : "not measured",
    });
  }
  return out;
}

/** Figures without a target: workers' scaling and the peer beside Switchyard. */
export function formatComparisons(outcomes: ScenarioOutcome[]): string {
  const byName = new Map(outcomes.map((o) => [o.scenario.name, o]));
  const rps = (name: string) => {
    const o = byName.get(name);
    return o ? figures(o.gatewayRuns)?.rps : undefined;
  };
  const lines: string[] = [];
  const one = rps("relay-c50");
  const two = rps("relay-c50-workers2");
  if (one && two)
    lines.push(
      `  --workers 2 against 1 worker (relay c=50): ${fixed(two / one, 2)}× the throughput (${fixed(two, 0)} vs ${fixed(one, 0)} req/s)`,
    );
  const plain = byName.get("messages-relay-c50");
  const bedrock = byName.get("bedrock-relay-c50");
  const [plainFigures, bedrockFigures] = [plain, bedrock].map((o) => o && figures(o.gatewayRuns));
  if (plainFigures && bedrockFigures)
    lines.push(
      `  Bedrock relay against the plain Anthropic relay (streamed, c=50): ` +
        `${fixed(bedrockFigures.cpuMsPerRequest / plainFigures.cpuMsPerRequest, 2)}× the gateway CPU per request ` +
        `(${fixed(bedrockFigures.cpuMsPerRequest, 3)} vs ${fixed(plainFigures.cpuMsPerRequest, 3)} ms; signing must not double it), ` +
        `${fixed(bedrockFigures.rps / plainFigures.rps, 2)}× the throughput`,
    );
  const storedPlain = byName.get("responses-plain-c50");
  const continued = byName.get("responses-continued-c50");
  const [p, c] = [storedPlain, continued].map((o) => (o ? figures(o.gatewayRuns) : undefined));
  if (p && c)
    lines.push(
      `  previous_response_id turn against a plain stored turn (Responses, c=50): ${fixed(c.rps / p.rps, 2)}× the throughput ` +
        `(${fixed(c.rps, 0)} vs ${fixed(p.rps, 0)} req/s), ${fixed(c.cpuMsPerRequest, 3)} vs ${fixed(p.cpuMsPerRequest, 3)} CPU ms/request`,
    );
  for (const o of outcomes.filter((x) => x.scenario.peer)) {
    const ours = rps(o.scenario.name.slice(`${o.scenario.peer}-`.length));
    const theirs = figures(o.gatewayRuns)?.rps;
    if (ours && theirs)
      lines.push(
        `  Switchyard against ${o.scenario.peer} (${o.scenario.name}): ${fixed(ours / theirs, 1)}× the throughput (${fixed(ours, 0)} vs ${fixed(theirs, 0)} req/s)`,
      );
  }
  return lines.length ? ["\nComparisons (no target)", ...lines].join("\n") : "";
}

export function formatVerdicts(list: Verdict[]): string {
  const word = (v: Verdict) => (v.pass === undefined ? "N/A " : v.pass ? "PASS" : "FAIL");
  if (list.length === 0) return "\nTargets: none of the selected scenarios has one.";
  return ["\nTargets", ...list.map((v) => `  ${word(v)}  ${v.target}  (measured: ${v.measured})`)].join("\n");
}
