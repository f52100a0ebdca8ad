// `npm run bench -- --profile [--scenario NAME]`: one scenario's load against a gateway running
// under `node --cpu-prof`, then the functions and files where its CPU time went (self time), so
// the next engineer sees what to take off the request path.

import { mkdtempSync, readdirSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type ProfileSummary, type SelfTime, summarizeProfile, type Window } from "./cpu-profile.ts";
import { startGateway } from "./gateway.ts";
import { measure } from "./load.ts";
import type { Options } from "./options.ts";
import type { Server } from "./processes.ts";
import { checkAnswer } from "./run-scenario.ts";
import type { LoadScenario } from "./scenarios.ts";

export async function profileScenario(
  scenario: LoadScenario,
  upstream: Server,
  storageUrl: string,
  opts: Options,
): Promise<ProfileSummary> {
  const dir = mkdtempSync(join(tmpdir(), "switchyard-profile-"));
  const gateway = await startGateway(upstream.url, storageUrl, {
    name: "gateway (profiled)",
    nodeFlags: ["--cpu-prof", `--cpu-prof-dir=${dir}`],
  });
  let window: Window | undefined;
  try {
    const problem = await checkAnswer(gateway, scenario.gateway, scenario.expect);
    if (problem) throw new Error(`the gateway does not answer ${scenario.name} correctly: ${problem}`);
    process.stderr.write(`profiling ${scenario.name} for ${opts.profileSeconds} s…\n`);
    const fromUs = monotonicUs();
    const run = await measure(gateway, scenario.gateway, {
      connections: scenario.connections,
      seconds: opts.profileSeconds,
    });
    window = { fromUs, toUs: monotonicUs() };
    process.stdout.write(
      `\n${scenario.title}: ${run.rps.toFixed(0)} req/s under the profiler ` +
        `(p50 ${run.p50Ms.toFixed(2)} ms, ${run.failures} failed)\n`,
    );
  } finally {
    await gateway.stop(); // SIGTERM: the gateway exits through process.exit, and V8 writes the profile
  }
  const file = lastWritten(dir, ".cpuprofile");
  if (!file) throw new Error(`the gateway wrote no .cpuprofile into ${dir}`);
  process.stdout.write(
    `profile: ${join(dir, file)} (open it in Chrome DevTools → Performance for a flame chart)\n`,
  );
  return summarizeProfile(join(dir, file), window);
}

export function formatProfile(summary: ProfileSummary): string {
  const row = (t: SelfTime) =>
    `  ${t.percent.toFixed(1).padStart(5)} %  ${t.ms.toFixed(0).padStart(7)} ms  ${t.name}`;
  const srcFiles = summary.files.filter((f) => f.file.startsWith("src/"));
  const srcInclusive = summary.inclusiveFunctions.filter((f) => f.file.startsWith("src/"));
  const areasInclusive = summary.inclusiveAreas.filter((a) => a.name !== "(root)");
  return [
    `\nBusy ${summary.busyMs.toFixed(0)} ms, idle ${summary.idleMs.toFixed(0)} ms; shares below are of busy time, ` +
      (summary.windowed
        ? "counting only the samples taken while the load ran."
        : "counting every sample (start-up included: the load window did not match the profile's clock)."),
    "\nSelf time by area",
    ...summary.areas.slice(0, 15).map(row),
    "\nTop functions by self time",
    ...summary.functions.slice(0, 30).map(row),
    "\nGateway source files (src/) by self time",
    ...srcFiles.slice(0, 20).map(row),
    "\nGateway functions (src/) by inclusive time (self + callees)",
    ...srcInclusive.slice(0, 25).map(row),
    "\nInclusive time by area (time under any frame of it; areas nest, so shares overlap)",
    ...areasInclusive.slice(0, 15).map(row),
  ].join("\n");
}

/**
 * The file of `dir` ending in `suffix` written last. `serve` restarts itself in place before it
 * loads the gateway (src/cli/node-flags.ts), and V8 writes a profile of that first, short-lived
 * start-up too: the gateway's own is the later one.
 */
function lastWritten(dir: string, suffix: string): string | undefined {
  const files = readdirSync(dir).filter((f) => f.endsWith(suffix));
  const written = (f: string) => statSync(join(dir, f)).mtimeMs;
  return files.sort((a, b) => written(a) - written(b)).at(-1);
}

function monotonicUs(): number {
  return Number(process.hrtime.bigint() / 1000n);
}
