// Where each bench process runs. On a machine with two or more cores and `taskset`, the target
// (gateway or bare proxy) gets the first half of the cores and everything else (the load generator,
// the fake upstream) the rest, so the load generator's work never competes with the target's and the
// target's CPU figures are its own. On one core, or without taskset, nothing is pinned.
// SWITCHYARD_BENCH_PIN=0 turns pinning off.

import { execFileSync } from "node:child_process";
import { availableParallelism } from "node:os";

const canPin = (() => {
  if (process.env.SWITCHYARD_BENCH_PIN === "0" || availableParallelism() < 2) return false;
  try {
    execFileSync("taskset", ["-c", "0", "true"], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
})();

const cores = Array.from({ length: availableParallelism() }, (_, i) => i);
const half = Math.max(1, Math.floor(cores.length / 2));

/** The cores of the measured target; empty when nothing is pinned. */
export function targetCpus(): number[] {
  return canPin ? cores.slice(0, half) : [];
}

/** The cores of the load generator and the fake upstream; empty when nothing is pinned. */
export function loadGeneratorCpus(): number[] {
  return canPin ? cores.slice(half) : [];
}

/** `command args` run on `cpus` (through taskset), or as is when `cpus` is empty. */
export function pinned(cpus: number[], command: string, args: string[]): [string, string[]] {
  return cpus.length > 0 ? ["taskset", ["-c", cpus.join(","), command, ...args]] : [command, args];
}

export function describePinning(): string {
  return canPin
    ? `target on CPU ${targetCpus().join(",")}, load generator and upstream on CPU ${loadGeneratorCpus().join(",")}`
    : "nothing pinned";
}
