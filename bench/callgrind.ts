// Instructions per request of the gateway (or of the bare proxy) under a fixed load, counted by
// valgrind's callgrind. Unlike wall-clock figures these hardly move when other work shares the
// machine, so two checkouts can be compared on a busy one (BENCHMARKS.md, "Session 7"). They count
// user-space instructions only: system calls, cache misses and the GC's memory traffic are not in
// them, so a change that saves memory rather than instructions shows only in `npm run bench`.
// Work on timers (the ledger's batches, checkpoints) is spread over however many requests arrive
// meanwhile, and under valgrind that is far fewer than at full speed: compare runs, not absolutes.
//
//   node bench/callgrind.ts [--scenario NAME] [--target gateway|proxy] [--warmup N] [--requests N]
//     --scenario   a load scenario of `npm run bench` (default relay-c50; its request, not its load)
//     --target     what runs under valgrind (default gateway); the upstream runs at full speed
//     --warmup     requests before counting starts (JIT, caches), default 3000
//     --requests   requests counted, default 1000; 8 at a time
//     --keep FILE  keep callgrind's own output there, for callgrind_annotate (builtins and the
//                  C++ runtime by name; JIT-compiled JavaScript shows only as addresses)
// Needs valgrind (Debian's package).

import { execFileSync, spawn } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import http from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { stringify } from "yaml";
import { missingNodeFlags } from "../src/cli/node-flags.ts";
import { gatewayConfig } from "./gateway.ts";
import type { LoadRequest } from "./load.ts";
import { ROOT, startServer } from "./processes.ts";
import { LOAD_SCENARIOS } from "./scenarios.ts";

function flag(name: string, fallback: string): string {
  const at = process.argv.indexOf(name);
  return at >= 0 ? process.argv[at + 1] : fallback;
}
const scenarioName = flag("--scenario", "relay-c50");
const target = flag("--target", "gateway");
const warmup = Number(flag("--warmup", "3000"));
const requests = Number(flag("--requests", "1000"));
const keep = flag("--keep", "");
const scenario = LOAD_SCENARIOS.find((s) => s.name === scenarioName && !s.peer);
if (!scenario) throw new Error(`unknown scenario '${scenarioName}'`);
if (target !== "gateway" && target !== "proxy") throw new Error("--target is gateway or proxy");
const request: LoadRequest = target === "proxy" ? scenario.proxy : scenario.gateway;

const upstream = await startServer("upstream", ["bench/servers/upstream.ts", "--chunks", "20"]);
const dir = mkdtempSync(join(tmpdir(), "switchyard-callgrind-"));
const args =
  target === "proxy"
    ? ["bench/servers/proxy.ts", "--upstream", upstream.url.replace(/\/$/, "")]
    : [...serveFlags(), "src/cli/main.ts", "serve", "--config", configFile(), "--port", "0"];
const measured = await underCallgrind(args);
try {
  await load(warmup);
  monitor("instrumentation on");
  await load(requests);
  monitor("instrumentation off");
  monitor("dump");
  const instructions = countedInstructions();
  console.log(
    `${scenarioName} (${target}): ${Math.round(instructions / requests)} instructions per request ` +
      `(${requests} counted after ${warmup})`,
  );
  if (keep) keepOutput(keep);
} finally {
  measured.kill("SIGTERM");
  await upstream.stop();
  rmSync(dir, { recursive: true, force: true });
}

/**
 * The node flags serve would restart itself with (src/cli/node-flags.ts), given at start: a restart
 * (execve) would leave valgrind, and nothing would be counted.
 */
function serveFlags(): string[] {
  return missingNodeFlags(["serve"], [], undefined);
}

/** Callgrind's output files (one per thread) concatenated into `file`: callgrind_annotate reads them all. */
function keepOutput(file: string): void {
  const outputs = readdirSync(dir).filter((f) => f.startsWith("callgrind.out"));
  writeFileSync(file, outputs.map((f) => readFileSync(join(dir, f), "utf8")).join(""));
}

function configFile(): string {
  const file = join(dir, "switchyard.yaml");
  writeFileSync(file, stringify(gatewayConfig(upstream.url, `sqlite:${join(dir, "switchyard.db")}`)));
  return file;
}

/** The target under callgrind, counting nothing until told to (instrumentation on). */
async function underCallgrind(argv: string[]) {
  const child = spawn(
    "valgrind",
    [
      "--tool=callgrind",
      "--instr-atstart=no",
      `--callgrind-out-file=${join(dir, "callgrind.out")}`,
      process.execPath,
      ...argv,
    ],
    { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"] },
  );
  let out = "";
  const url = await new Promise<string>((resolve, reject) => {
    const read = (d: Buffer) => {
      out += d;
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m) resolve(m[1].replace(/\/$/, ""));
    };
    child.stdout.on("data", read);
    child.stderr.on("data", read);
    child.once("exit", (code) => reject(new Error(`${target} exited with ${code}:\n${out}`)));
  });
  return Object.assign(child, { url });
}

/** A callgrind monitor command to the target (by its pid: valgrind execs the tool in place). */
function monitor(command: string): void {
  execFileSync("vgdb", [`--pid=${measured.pid}`, ...command.split(" ")], { stdio: "ignore" });
}

function countedInstructions(): number {
  let total = 0;
  for (const file of readdirSync(dir).filter((f) => f.startsWith("callgrind.out"))) {
    const m = /^totals: (\d+)/m.exec(readFileSync(join(dir, file), "utf8"));
    if (m) total += Number(m[1]);
  }
  if (total === 0) throw new Error("callgrind wrote no counts");
  return total;
}

/** `count` requests, 8 at a time over keep-alive connections; each must answer 200 in full. */
async function load(count: number): Promise<void> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 8 });
  let left = count;
  const one = () =>
    new Promise<void>((resolve, reject) => {
      const req = http.request(
        measured.url + request.path,
        { method: "POST", headers: request.headers, agent },
        (res) => {
          let body = "";
          res.setEncoding("utf8");
          res.on("data", (d: string) => {
            body += d;
          });
          res.on("end", () => {
            if (res.statusCode === 200 && body.includes(scenario!.expect)) resolve();
            else reject(new Error(`${res.statusCode}: ${body.slice(0, 500)}`));
          });
        },
      );
      req.on("error", reject);
      req.end(request.body);
    });
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      while (left-- > 0) await one();
    }),
  );
  agent.destroy();
}
