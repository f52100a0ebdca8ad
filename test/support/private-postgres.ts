// A PostgreSQL cluster of the test's own, in a temporary directory on a free port, that the test may
// stop and start at will (the shared server on 5432 must never be touched: other tests use it).
// PostgreSQL refuses to run as root, so under root every command runs as the `postgres` user.
// Binaries: SWITCHYARD_TEST_PG_BIN, else `pg_config --bindir`, else the newest
// /usr/lib/postgresql/*/bin. Missing: a developer's run skips with a loud warning; CI=true fails.

import { execFileSync, spawnSync } from "node:child_process";
import { chmodSync, chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { freePort } from "./free-port.ts";

export interface PrivatePostgres {
  /** postgres://postgres@127.0.0.1:PORT/postgres */
  url: string;
  port: number;
  /** Fast shutdown: open sessions are ended, as an operator's restart does. Waits until down. */
  stop(): Promise<void>;
  /** Starts again on the same port and data; waits until it accepts connections. */
  start(): Promise<void>;
  /** Stops (if running) and deletes the cluster. */
  destroy(): Promise<void>;
  /** A query on a connection of its own (for checks made while the gateway runs). */
  query<T extends pg.QueryResultRow = pg.QueryResultRow>(sql: string, params?: unknown[]): Promise<T[]>;
}

/** Where initdb and pg_ctl are, or undefined when this machine has no PostgreSQL server binaries. */
export function postgresBinDir(): string | undefined {
  const candidates: string[] = [];
  if (process.env.SWITCHYARD_TEST_PG_BIN) candidates.push(process.env.SWITCHYARD_TEST_PG_BIN);
  const fromPgConfig = spawnSync("pg_config", ["--bindir"], { encoding: "utf8" });
  if (fromPgConfig.status === 0) candidates.push(fromPgConfig.stdout.trim());
  if (existsSync("/usr/lib/postgresql")) {
    const versions = readdirSync("/usr/lib/postgresql").sort((a, b) => Number(b) - Number(a));
    for (const v of versions) candidates.push(`/usr/lib/postgresql/${v}/bin`);
  }
  return candidates.find((dir) => existsSync(join(dir, "initdb")) && existsSync(join(dir, "pg_ctl")));
}

/** Skip (locally) or fail (CI) a test that needs its own PostgreSQL cluster; true when it may run. */
export function requirePrivatePostgres(t: { skip(message?: string): void }): boolean {
  const why = postgresBinDir() === undefined ? "no initdb/pg_ctl found" : runAsUnavailable();
  if (why === undefined) return true;
  if (process.env.CI === "true") throw new Error(`a private PostgreSQL is required under CI=true: ${why}`);
  console.warn(`\n*** SKIPPING: cannot run a private PostgreSQL (${why}) ***\n`);
  t.skip(`private PostgreSQL unavailable: ${why}`);
  return false;
}

/** Under root the cluster runs as `postgres`; undefined when that is possible (or not needed). */
function runAsUnavailable(): string | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const probe = spawnSync("runuser", ["-u", "postgres", "--", "true"]);
  return probe.status === 0 ? undefined : "running as root and `runuser -u postgres` is not possible";
}

export async function startPrivatePostgres(): Promise<PrivatePostgres> {
  const bin = postgresBinDir();
  if (!bin) throw new Error("no PostgreSQL server binaries (initdb, pg_ctl) on this machine");
  const asRoot = process.getuid?.() === 0;
  const dir = mkdtempSync(join(tmpdir(), "switchyard-pg-"));
  const data = join(dir, "data");
  if (asRoot) {
    const ids = execFileSync("id", ["-u", "postgres"], { encoding: "utf8" }).trim();
    const gid = execFileSync("id", ["-g", "postgres"], { encoding: "utf8" }).trim();
    chownSync(dir, Number(ids), Number(gid));
  }
  chmodSync(dir, 0o700);
  const run = (tool: string, args: string[]) => {
    const command = asRoot ? "runuser" : join(bin, tool);
    const argv = asRoot ? ["-u", "postgres", "--", join(bin, tool), ...args] : args;
    const result = spawnSync(command, argv, { encoding: "utf8", cwd: dir });
    if (result.status !== 0)
      throw new Error(
        `${tool} ${args.join(" ")} failed (${result.status}):\n${result.stdout}${result.stderr}`,
      );
  };
  run("initdb", [
    "-D",
    data,
    "-A",
    "trust",
    "-U",
    "postgres",
    "--no-sync",
    "-E",
    "UTF8",
    "--no-instructions",
  ]);
  const port = await freePort();
  // fsync off: the cluster is thrown away, and a fast stop/start is what the tests exercise.
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=50`;
  let running = false;
  const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
  const cluster: PrivatePostgres = {
    url,
    port,
    async start() {
      run("pg_ctl", ["-D", data, "-o", options, "-l", join(dir, "log"), "-w", "-t", "30", "start"]);
      running = true;
    },
    async stop() {
      run("pg_ctl", ["-D", data, "-m", "fast", "-w", "-t", "30", "stop"]);
      running = false;
    },
    async destroy() {
      if (running) await cluster.stop().catch(() => {});
      rmSync(dir, { recursive: true, force: true });
    },
    async query(sql, params) {
      const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3000 });
      await client.connect();
      try {
        return (await client.query(sql, params)).rows;
      } finally {
        await client.end();
      }
    },
  };
  try {
    await cluster.start();
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  return cluster;
}
