// One timed run of wrk (the external C load generator) against one target at fixed concurrency, with
// the target's CPU time read from /proc before and after. wrk runs in its own process, pinned away
// from the target where the machine has the cores (see pinning.ts), so the load generator's own work
// never lands on the target's CPU or in its figures.
//
// The request is set by a Lua script written per run; its `done` hook prints one JSON line with the
// counts and the latency percentiles in microseconds (wrk's own text output rounds them).

import { execFile, execFileSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadGeneratorCpus, pinned } from "./pinning.ts";
import { treeCpuMs } from "./proc-stats.ts";

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
  p90Ms: number;
  p99Ms: number;
  p999Ms: number;
  /** Failed requests: connection errors, timeouts and non-2xx answers. */
  failures: number;
  statusCodes: Record<string, number>;
  cpuMsPerRequest: number;
}

/** wrk from PATH, installed from Debian's package when missing (the bench's only system need). */
export function ensureWrk(log: (line: string) => void): string {
  const found = which("wrk");
  if (found) return found;
  log("wrk is not installed: installing Debian's package (apt-get install wrk) …");
  const sudo = process.getuid?.() === 0 ? [] : ["sudo"];
  const apt = (...args: string[]) =>
    execFileSync(sudo[0] ?? "apt-get", [...sudo.slice(1), ...(sudo.length ? ["apt-get"] : []), ...args], {
      stdio: ["ignore", "ignore", "inherit"],
      env: { ...process.env, DEBIAN_FRONTEND: "noninteractive" },
    });
  apt("update", "-qq");
  apt("install", "-y", "-qq", "wrk");
  const installed = which("wrk");
  if (!installed) throw new Error("wrk could not be installed; install it (apt-get install wrk) and retry");
  return installed;
}

function which(command: string): string | undefined {
  try {
    return execFileSync("sh", ["-c", `command -v ${command}`], { encoding: "utf8" }).trim() || undefined;
  } catch {
    return undefined;
  }
}

const lua = (s: string) => JSON.stringify(s); // a JSON string literal is a valid Lua string literal here

/** The Lua script that makes wrk send `request` and report in JSON. */
export function wrkScript(request: LoadRequest): string {
  const headers = Object.entries(request.headers)
    .map(([name, value]) => `wrk.headers[${lua(name)}] = ${lua(value)}`)
    .join("\n");
  return `wrk.method = "POST"
wrk.body = ${lua(request.body)}
${headers}
done = function(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    'WRK {"requests":%d,"durationUs":%d,"connect":%d,"read":%d,"write":%d,"status":%d,"timeout":%d,"p50Us":%d,"p90Us":%d,"p99Us":%d,"p999Us":%d}\\n',
    summary.requests, summary.duration, e.connect, e.read, e.write, e.status, e.timeout,
    latency:percentile(50), latency:percentile(90), latency:percentile(99), latency:percentile(99.9)))
end
`;
}

interface WrkSummary {
  requests: number;
  durationUs: number;
  connect: number;
  read: number;
  write: number;
  status: number;
  timeout: number;
  p50Us: number;
  p90Us: number;
  p99Us: number;
  p999Us: number;
}

const scriptDir = mkdtempSync(join(tmpdir(), "switchyard-wrk-"));
let scripts = 0;

export async function measure(
  target: Target,
  request: LoadRequest,
  opts: { connections: number; seconds: number },
): Promise<RunResult> {
  const script = join(scriptDir, `request-${scripts++}.lua`);
  writeFileSync(script, wrkScript(request));
  const wrkArgs = [
    "-t",
    String(Math.min(opts.connections, loadGeneratorCpus().length || 1)),
    "-c",
    String(opts.connections),
    "-d",
    `${Math.max(1, Math.round(opts.seconds))}s`,
    "--timeout",
    "10s",
    "-s",
    script,
    target.url + request.path,
  ];
  const [command, args] = pinned(loadGeneratorCpus(), "wrk", wrkArgs);
  const cpuBefore = treeCpuMs(target.pid);
  const out = await new Promise<string>((resolve, reject) =>
    execFile(
      command,
      args,
      { encoding: "utf8", timeout: (opts.seconds + 30) * 1000 },
      (err, stdout, stderr) =>
        err ? reject(new Error(`wrk failed: ${err.message}\n${stderr}`)) : resolve(stdout),
    ),
  );
  // Work the answers left behind (ledger batches, settlement) belongs to these requests too.
  await new Promise((r) => setTimeout(r, 200));
  const cpu = treeCpuMs(target.pid) - cpuBefore;
  const line = out.split("\n").find((l) => l.startsWith("WRK "));
  if (!line) throw new Error(`wrk printed no summary:\n${out}`);
  const s = JSON.parse(line.slice(4)) as WrkSummary;
  const failures = s.connect + s.read + s.write + s.status + s.timeout;
  const ok = s.requests - s.status;
  return {
    requests: ok,
    rps: ok / (s.durationUs / 1e6),
    p50Ms: s.p50Us / 1000,
    p90Ms: s.p90Us / 1000,
    p99Ms: s.p99Us / 1000,
    p999Ms: s.p999Us / 1000,
    failures,
    statusCodes: s.status > 0 ? { "non-2xx": s.status } : {},
    cpuMsPerRequest: ok > 0 ? cpu / ok : Number.NaN,
  };
}
