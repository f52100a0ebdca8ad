// What the figures were measured on: they mean little without it.

import { readFileSync } from "node:fs";
import { availableParallelism, loadavg, totalmem } from "node:os";

export function describeMachine(): string {
  let cpu = "unknown CPU";
  try {
    cpu = /^model name\s*:\s*(.+)$/m.exec(readFileSync("/proc/cpuinfo", "utf8"))?.[1] ?? cpu;
  } catch {
    // not Linux: the model stays unknown
  }
  const [one, five] = loadavg();
  return (
    `${new Date().toISOString()}  ${availableParallelism()} CPUs (${cpu}), ` +
    `${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}, ` +
    `load average ${one.toFixed(2)} / ${five.toFixed(2)} (1 / 5 min) at start`
  );
}
