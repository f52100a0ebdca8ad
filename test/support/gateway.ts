// Starts the gateway the way a user does: `switchyard serve --config FILE --port 0` in its own
// process, and reads the address from the `switchyard listening on …` line.

import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { stringify } from "yaml";
import { runToExit } from "./processes.ts";

const ROOT = new URL("../../", import.meta.url).pathname;

export interface RunningGateway {
  url: string;
  dir: string;
  configFile: string;
  process: ChildProcess;
  output(): string;
  /** Resolves with the match once the gateway's output (stdout and stderr) matches. */
  waitForOutput(pattern: RegExp, timeoutMs?: number): Promise<RegExpExecArray>;
  stop(signal?: NodeJS.Signals): Promise<void>;
}

export const PAYG_KEY = "sk-test-payg-0123456789";
export const SUB_KEY = "sk-ss-v1-test-0123456789";
export const OTHER_KEY = "sk-test-other-0123456789";
export const BROKE_KEY = "sk-test-broke-0123456789";

/** A config with the local models, a pay-as-you-go and a subscription key on one account. */
export function baseConfig(dir: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    storage: { url: `sqlite:${join(dir, "switchyard.db")}` },
    billing: { settle_delay_ms: 0 },
    keys: [
      { key: PAYG_KEY, account: "acme", credits: 100 },
      { key: SUB_KEY, account: "acme" },
      { key: OTHER_KEY, account: "other", credits: 100 },
      { key: BROKE_KEY, account: "broke", credits: 0 },
    ],
    ...extra,
  };
}

/**
 * `count` gateways on one configuration (a scale-out test's processes), started one after another:
 * two processes creating one new SQLite file at once can find it locked while the first switches it
 * to WAL. If one fails to start, those already running are stopped before the error is thrown: left
 * running, they would keep the test runner waiting on them for good.
 */
export async function startGateways(
  config: Record<string, unknown>,
  count: number,
): Promise<RunningGateway[]> {
  const started: RunningGateway[] = [];
  try {
    for (let i = 0; i < count; i++) started.push(await startGateway(config));
    return started;
  } catch (error) {
    await Promise.all(started.map((gw) => gw.stop()));
    throw error;
  }
}

export async function startGateway(
  config?: Record<string, unknown>,
  opts: { env?: NodeJS.ProcessEnv; dir?: string; args?: string[] } = {},
): Promise<RunningGateway> {
  const dir = opts.dir ?? mkdtempSync(join(tmpdir(), "switchyard-test-"));
  const configFile = join(dir, "switchyard.yaml");
  writeFileSync(configFile, stringify(config ?? baseConfig(dir)));
  return spawnGateway(
    ["serve", "--config", configFile, "--port", "0", ...(opts.args ?? [])],
    dir,
    configFile,
    opts.env,
  );
}

export function spawnGateway(
  args: string[],
  dir: string,
  configFile: string,
  env: NodeJS.ProcessEnv = {},
): Promise<RunningGateway> {
  const child = spawn(process.execPath, [join(ROOT, "src/cli/main.ts"), ...args], {
    cwd: dir,
    env: { ...cleanEnv(), ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  child.stdout.on("data", (d) => {
    out += d;
  });
  child.stderr.on("data", (d) => {
    out += d;
  });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`gateway did not start:\n${out}`)), 20_000);
    const onData = () => {
      const m = /switchyard listening on (http:\/\/\S+)/.exec(out);
      if (!m) return;
      clearTimeout(timer);
      child.stdout.off("data", onData);
      resolve({
        url: m[1],
        dir,
        configFile,
        process: child,
        output: () => out,
        waitForOutput: async (pattern, timeoutMs = 20_000) => {
          const until = Date.now() + timeoutMs;
          for (;;) {
            const m = pattern.exec(out);
            if (m) return m;
            if (Date.now() > until) throw new Error(`no ${pattern} in the gateway's output:\n${out}`);
            await new Promise((r) => setTimeout(r, 25));
          }
        },
        stop: (signal = "SIGTERM") =>
          new Promise<void>((done) => {
            if (child.exitCode !== null || child.signalCode !== null) return done();
            child.once("exit", () => done());
            child.kill(signal);
          }),
      });
    };
    child.stdout.on("data", onData);
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`gateway exited with ${code}:\n${out}`));
    });
  });
}

/** The environment without provider keys, so tests never reach a real provider by accident. */
function cleanEnv(): NodeJS.ProcessEnv {
  const env = { ...process.env };
  for (const name of Object.keys(env)) if (/_API_KEY$/.test(name)) delete env[name];
  return env;
}

/** Runs the CLI to completion; returns exit code and output. */
export async function runCli(
  args: string[],
  cwd: string,
  env: NodeJS.ProcessEnv = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  const run = await runToExit(process.execPath, [join(ROOT, "src/cli/main.ts"), ...args], {
    cwd,
    env: { ...cleanEnv(), ...env },
  });
  return { ...run, code: run.code ?? -1 };
}
