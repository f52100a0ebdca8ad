// Child processes in tests: the process tree as Linux shows it in /proc (which processes a gateway's
// primary has forked), and running a command to its end.

import { spawn } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";

/** Pids of the live children of `parent`. */
export function childPids(parent: number): number[] {
  const children: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, "utf8");
    } catch {
      continue; // gone meanwhile
    }
    // pid (comm) state ppid …; comm may hold spaces and parentheses: read after the last ')'.
    const [state, ppid] = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    if (Number(ppid) === parent && state !== "Z") children.push(Number(entry));
  }
  return children.sort((a, b) => a - b);
}

export interface Finished {
  /** The exit code; null when the process was killed (by the timeout, say). */
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a command to its end, collecting its output; SIGKILLed after `timeoutMs` when given. */
export function runToExit(
  command: string,
  args: string[],
  opts: { cwd?: string; env?: NodeJS.ProcessEnv; timeoutMs?: number } = {},
): Promise<Finished> {
  const child = spawn(command, args, { cwd: opts.cwd, env: opts.env, stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (d) => {
    stdout += d;
  });
  child.stderr.on("data", (d) => {
    stderr += d;
  });
  const timer =
    opts.timeoutMs === undefined ? undefined : setTimeout(() => child.kill("SIGKILL"), opts.timeoutMs);
  return new Promise((resolve) =>
    child.once("exit", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    }),
  );
}
