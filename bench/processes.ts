// Every server of the bench runs in its own process, so that its CPU time and memory can be read
// from /proc/<pid>. This file starts one and waits for its "… listening on http://…" line.

import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { pinned } from "./pinning.ts";

export const ROOT = new URL("../", import.meta.url).pathname;

// Children still running when the bench exits (a failure, Ctrl-C) are killed with it.
const running = new Set<ChildProcess>();
process.once("exit", () => {
  for (const child of running) child.kill("SIGKILL");
});
for (const signal of ["SIGINT", "SIGTERM"] as const)
  process.once(signal, () => {
    process.stderr.write(`\nbench: ${signal}, stopping its servers\n`);
    process.exit(130);
  });

export interface Server {
  name: string;
  url: string;
  pid: number;
  process: ChildProcess;
  /** Everything the process printed (for error reports). */
  output(): string;
  stop(): Promise<void>;
}

/**
 * Node flags of the bench's own processes (the proxy, the fake upstream): V8's helper threads sized
 * to the cores a process may use and no pretenuring, as `switchyard serve` runs (src/cli/node-flags.ts).
 * With Node's default of four helpers, a process pinned to one core stalls for as long as they take
 * turns (BENCHMARKS.md, "Session 11"): the floor must not pay for what the gateway no longer does.
 * The proxy keeps V8's own young generation, larger than the gateway's (fewer collections).
 */
export const BENCH_NODE_FLAGS = ["--v8-pool-size=0", "--no-allocation-site-pretenuring"];

export function startServer(
  name: string,
  args: string[],
  opts: { nodeFlags?: string[]; cwd?: string; env?: NodeJS.ProcessEnv; cpus?: number[] } = {},
): Promise<Server> {
  // taskset and prlimit exec the command, so the child's pid is the server's own.
  const [command, argv] = withFileLimit(
    ...pinned(opts.cpus ?? [], process.execPath, [...(opts.nodeFlags ?? []), ...args]),
  );
  const child = spawn(command, argv, {
    cwd: opts.cwd ?? ROOT,
    env: { ...process.env, ...opts.env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  running.add(child);
  child.once("exit", () => running.delete(child));
  let out = "";
  const collect = (d: Buffer) => {
    // Keep the head (start-up errors) and the tail; a chatty process must not grow the bench's memory.
    out = out.length < 64_000 ? out + d : out.slice(0, 32_000) + out.slice(-16_000) + d;
  };
  child.stdout.on("data", collect);
  child.stderr.on("data", collect);
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => fail(new Error(`${name} did not start within 30 s:\n${out}`)), 30_000);
    const onExit = (code: number | null) =>
      fail(new Error(`${name} exited with ${code} before listening:\n${out}`));
    function fail(err: Error) {
      clearTimeout(timer);
      child.kill("SIGKILL");
      reject(err);
    }
    child.once("exit", onExit);
    const onData = () => {
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (!m || child.pid === undefined) return;
      clearTimeout(timer);
      child.off("exit", onExit);
      child.stdout.off("data", onData);
      resolve({
        name,
        url: m[1],
        pid: child.pid,
        process: child,
        output: () => out,
        stop: () => stopProcess(child),
      });
    };
    child.stdout.on("data", onData);
  });
}

/** Sockets a server may hold: 10,000 held streams take two each in a gateway or proxy. */
const FILE_LIMIT = 65_536;
const canRaiseFileLimit = (() => {
  if (process.getuid?.() !== 0) return false;
  try {
    execFileSync("prlimit", [`--nofile=${FILE_LIMIT}:${FILE_LIMIT}`, "true"], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
})();

function withFileLimit(command: string, args: string[]): [string, string[]] {
  return canRaiseFileLimit
    ? ["prlimit", [`--nofile=${FILE_LIMIT}:${FILE_LIMIT}`, command, ...args]]
    : [command, args];
}

/** SIGTERM, then SIGKILL if the process has not gone within 10 s. */
function stopProcess(child: ChildProcess): Promise<void> {
  return new Promise((done) => {
    if (child.exitCode !== null || child.signalCode !== null) return done();
    const killer = setTimeout(() => child.kill("SIGKILL"), 10_000);
    child.once("exit", () => {
      clearTimeout(killer);
      done();
    });
    child.kill("SIGTERM");
  });
}
