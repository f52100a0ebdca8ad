// A redis-server of the test's own on a free port, with no persistence, that the test may stop and
// start at will (the shared one on 6379 must never be touched: other tests use it).
// Missing binary: a developer's run skips with a loud warning; under CI=true the test fails.

import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { createConnection } from "node:net";
import { freePort } from "./free-port.ts";

export interface PrivateRedis {
  url: string;
  port: number;
  /** SIGTERM, and waits for the process to exit. */
  stop(): Promise<void>;
  /** Starts again on the same port; waits until it answers PING. */
  start(): Promise<void>;
  /** SIGSTOP: connections stay open but nothing is answered (a hung server). */
  pause(): void;
  /** SIGCONT after pause(). */
  resume(): void;
  destroy(): Promise<void>;
}

const BINARY = process.env.SWITCHYARD_TEST_REDIS_SERVER ?? "redis-server";

export function requirePrivateRedis(t: { skip(message?: string): void }): boolean {
  const probe = spawnSync(BINARY, ["--version"], { encoding: "utf8" });
  if (probe.status === 0) return true;
  const why = `${BINARY} cannot be run (${probe.error?.message ?? probe.stderr.trim()})`;
  if (process.env.CI === "true") throw new Error(`a private Redis is required under CI=true: ${why}`);
  console.warn(`\n*** SKIPPING: cannot run a private Redis (${why}) ***\n`);
  t.skip(`private Redis unavailable: ${why}`);
  return false;
}

export async function startPrivateRedis(): Promise<PrivateRedis> {
  const port = await freePort();
  let child: ChildProcess | undefined;
  let log = "";
  const redis: PrivateRedis = {
    url: `redis://127.0.0.1:${port}`,
    port,
    async start() {
      log = "";
      const started = spawn(
        BINARY,
        ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
        { stdio: ["ignore", "pipe", "pipe"] },
      );
      child = started;
      started.stdout?.on("data", (d) => {
        log += d;
      });
      started.stderr?.on("data", (d) => {
        log += d;
      });
      const deadline = Date.now() + 10_000;
      while (!(await answersPing(port))) {
        if (started.exitCode !== null) throw new Error(`redis-server exited:\n${log}`);
        if (Date.now() > deadline) throw new Error(`redis-server did not answer PING:\n${log}`);
        await new Promise((r) => setTimeout(r, 25));
      }
    },
    async stop() {
      const running = child;
      child = undefined;
      if (!running || running.exitCode !== null || running.signalCode !== null) return;
      await new Promise<void>((done) => {
        running.once("exit", () => done());
        running.kill("SIGTERM");
      });
    },
    pause() {
      child?.kill("SIGSTOP");
    },
    resume() {
      child?.kill("SIGCONT");
    },
    async destroy() {
      redis.resume();
      await redis.stop();
    },
  };
  await redis.start();
  return redis;
}

function answersPing(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host: "127.0.0.1", port });
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(1000, () => done(false));
    socket.once("error", () => done(false));
    socket.once("connect", () => socket.write("PING\r\n"));
    socket.once("data", (d) => done(d.toString().startsWith("+PONG")));
  });
}
