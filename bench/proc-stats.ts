// CPU time and memory of a process, read from Linux's /proc (proc(5)).

import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { availableParallelism } from "node:os";

/** Clock ticks per second, the unit of utime and stime (almost always 100). */
const TICKS_PER_SECOND = (() => {
  try {
    return Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).trim()) || 100;
  } catch {
    return 100;
  }
})();

/** utime + stime of the process, in milliseconds. */
export function cpuMs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  // The command name (field 2) may hold spaces and parentheses: count fields after its last ')'.
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  const utime = Number(fields[11]); // field 14 of the whole line
  const stime = Number(fields[12]); // field 15
  return ((utime + stime) * 1000) / TICKS_PER_SECOND;
}

/** CPU time of the process and of all its descendants (a gateway's cluster workers), in milliseconds. */
export function treeCpuMs(pid: number): number {
  let ms = 0;
  try {
    ms = cpuMs(pid);
  } catch {
    return 0; // the process has exited
  }
  for (const child of childPids(pid)) ms += treeCpuMs(child);
  return ms;
}

function childPids(pid: number): number[] {
  try {
    return readdirSync(`/proc/${pid}/task`).flatMap((tid) =>
      readFileSync(`/proc/${pid}/task/${tid}/children`, "utf8").split(" ").filter(Boolean).map(Number),
    );
  } catch {
    return [];
  }
}

export interface Memory {
  /** Resident set size now, MiB. */
  rssMiB: number;
  /** Peak resident set size over the process's life (VmHWM), MiB. */
  peakRssMiB: number;
}

export function memory(pid: number): Memory {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const kib = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(status)?.[1] ?? NaN);
  return { rssMiB: kib("VmRSS") / 1024, peakRssMiB: kib("VmHWM") / 1024 };
}

export const CPU_TICK_MS = 1000 / TICKS_PER_SECOND;

/** CPU time all processes of the machine spent busy (every CPU summed), in milliseconds. */
export function machineBusyMs(): number {
  const line = readFileSync("/proc/stat", "utf8").split("\n", 1)[0];
  // cpu  user nice system idle iowait irq softirq steal guest guest_nice (guest is inside user)
  const [user, nice, system, , , irq, softirq, steal] = line.trim().split(/\s+/).slice(1).map(Number);
  return ((user + nice + system + irq + softirq + (steal ?? 0)) * 1000) / TICKS_PER_SECOND;
}

/**
 * How much of the machine other processes used while the bench ran: the machine's busy time minus
 * that of the bench's own processes, as a share of all CPUs over the wall time. A quiet machine
 * reads near 0; figures taken at a high reading are less trustworthy.
 */
export class OtherLoad {
  private readonly pids: number[];
  private readonly started = performance.now();
  private readonly busyAtStart = machineBusyMs();
  private readonly ownAtStart: number;

  constructor(pids: number[]) {
    this.pids = pids;
    this.ownAtStart = this.ownMs();
  }

  /** Share of the machine's CPU capacity, 0 to 1. */
  share(): number {
    const wallMs = performance.now() - this.started;
    const other = machineBusyMs() - this.busyAtStart - (this.ownMs() - this.ownAtStart);
    return Math.max(0, other / (wallMs * availableParallelism()));
  }

  private ownMs(): number {
    const self = process.cpuUsage();
    let ms = (self.user + self.system) / 1000;
    for (const pid of this.pids) {
      try {
        ms += cpuMs(pid);
      } catch {
        // the process has exited: its last reading is lost, a small error in a rough figure
      }
    }
    return ms;
  }
}
