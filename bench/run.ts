// `npm run bench`: the gateway's overhead against a bare reverse proxy, both in front of the same
// fake upstream, each in its own process on 127.0.0.1. See BENCHMARKS.md for the method.
// It is a measurement, not a test: it exits 0 whatever the figures, and non-zero only when the
// harness itself fails.

import { writeFileSync } from "node:fs";
import { startGateway } from "./gateway.ts";
import { holdStreams } from "./idle-streams.ts";
import { ensureWrk } from "./load.ts";
import { describeMachine } from "./machine.ts";
import { type Options, parseOptions, USAGE, UsageError } from "./options.ts";
import { type Peer, startPeer } from "./peer.ts";
import { describePinning, loadGeneratorCpus, targetCpus } from "./pinning.ts";
import { type BenchDatabase, prepareDatabase } from "./postgres.ts";
import type { Server } from "./processes.ts";
import { BENCH_NODE_FLAGS, startServer } from "./processes.ts";
import { formatProfile, profileScenario } from "./profile.ts";
import {
  formatComparisons,
  formatIdle,
  formatScenario,
  formatVerdicts,
  type IdleOutcome,
  type ScenarioOutcome,
  verdicts,
} from "./report.ts";
import { runLoadScenario } from "./run-scenario.ts";
import {
  heldStream,
  IDLE_STREAMS_SCENARIO,
  LOAD_SCENARIOS,
  type LoadScenario,
  peerScenarios,
  type Storage,
} from "./scenarios.ts";

/** Held streams never end on their own during a run; the client closes them. */
const HOLD_MS = 10 * 60_000;

const say = (text: string) => process.stdout.write(`${text}\n`);
const progress = (text: string) => process.stderr.write(`${text}\n`);

async function main(): Promise<void> {
  let opts: Options;
  try {
    opts = parseOptions(process.argv.slice(2));
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    if (err.message) process.stderr.write(`bench: ${err.message}\n\n`);
    process.stderr.write(USAGE);
    process.exit(err.message ? 2 : 0);
  }
  const machine = describeMachine();
  say(`Switchyard bench — ${machine}`);
  const wrk = ensureWrk(progress);
  const upstream = await startUpstream("upstream", opts);
  const resources = new Resources(upstream, opts);
  try {
    if (opts.profile) await profile(resources, opts);
    else await suite(resources, opts, machine, wrk);
  } finally {
    await resources.release();
  }
}

async function suite(resources: Resources, opts: Options, machine: string, wrk: string): Promise<void> {
  say(
    `Method: load from ${wrk} (its own process), alternated runs (proxy, gateway, …), ${opts.rounds} rounds ` +
      `of ${opts.seconds} s per scenario after ${opts.warmupSeconds} s of warm-up per target (${opts.settleSeconds} s in a ` +
      `process's first scenario); medians of the ` +
      `runs; ratios are medians of the per-round pairs. ${opts.chunks} content chunks per streamed answer. ` +
      `Pinning: ${describePinning()}.`,
  );
  const outcomes: ScenarioOutcome[] = [];
  const scenarios = [
    ...LOAD_SCENARIOS.filter((s) => opts.scenarios.includes(s.name)),
    ...(opts.peer ? peerScenarios(opts.peer, resources.upstream.url) : []).filter((s) =>
      opts.scenarios.includes(s.name.slice(`${opts.peer}-`.length)),
    ),
  ];
  for (const scenario of scenarios) {
    progress(`${scenario.name}…`);
    const storage = await resources.storageUrl(scenario.storage);
    let outcome: ScenarioOutcome;
    if (typeof storage !== "string") {
      outcome = { scenario, proxyRuns: [], gatewayRuns: [], skipped: storage.unavailable };
    } else {
      const proxy = await resources.proxy();
      const gateway = await resources.target(scenario);
      const live = "unavailable" in gateway ? undefined : gateway;
      const otherPids = [resources.upstream.pid];
      outcome = await runLoadScenario(scenario, proxy, live, { ...opts, otherPids }).catch((err: Error) => {
        for (const server of [resources.upstream, proxy, live])
          if (server && (server.process.exitCode !== null || server.process.signalCode !== null))
            throw new Error(`${server.name} died during ${scenario.name}:\n${server.output()}`);
        throw err;
      });
      if ("unavailable" in gateway) outcome.skipped = `${gateway.unavailable}; proxy measured alone`;
    }
    outcomes.push(outcome);
    say(formatScenario(outcome, opts.rounds, opts.seconds));
  }
  let idle: IdleOutcome | undefined;
  if (opts.scenarios.includes(IDLE_STREAMS_SCENARIO)) {
    progress(`${IDLE_STREAMS_SCENARIO}…`);
    idle = await idleStreams(resources, opts);
    say(formatIdle(idle));
  }
  say(formatComparisons(outcomes));
  say(formatVerdicts(verdicts(outcomes, idle)));
  if (opts.jsonFile) {
    writeFileSync(opts.jsonFile, JSON.stringify({ machine, options: opts, outcomes, idle }, null, 2));
    say(`\nEvery run's figures: ${opts.jsonFile}`);
  }
}

/** The fake upstream in its own process, on the load generator's cores. */
function startUpstream(name: string, opts: Options, flags: string[] = []): Promise<Server> {
  return startServer(
    name,
    ["bench/servers/upstream.ts", "--chunks", String(opts.chunks), "--hold-ms", String(HOLD_MS), ...flags],
    { cpus: loadGeneratorCpus(), nodeFlags: BENCH_NODE_FLAGS },
  );
}

/**
 * Fresh processes for both targets: VmHWM is a peak over the process's life. The gateway calls an
 * upstream of its own speaking h2c (unless --idle-upstream http1), so its held streams share a few
 * upstream connections: one descriptor per stream, the client's. The proxy keeps HTTP/1.1.
 */
async function idleStreams(resources: Resources, opts: Options): Promise<IdleOutcome> {
  const deadlineMs = opts.quick ? 4_000 : 30_000;
  const outcome: IdleOutcome = { upstream: opts.idleUpstream };
  const http2 = opts.idleUpstream === "h2c";
  let gateway: Awaited<ReturnType<typeof startGateway>> | undefined;
  let upstream: Server | undefined;
  try {
    upstream = http2 ? await startUpstream("upstream (h2c)", opts, ["--h2c"]) : resources.upstream;
    gateway = await startGateway(upstream.url, "sqlite", {
      name: "gateway (idle streams)",
      cpus: targetCpus(),
      http2,
    });
    outcome.gateway = await holdStreams(gateway, heldStream.gateway, { count: opts.idleStreams, deadlineMs });
  } catch (err) {
    outcome.skipped = `gateway: ${(err as Error).message}`;
  } finally {
    await gateway?.stop();
    if (upstream !== resources.upstream) await upstream?.stop();
  }
  const proxy = await startServer(
    "proxy (idle streams)",
    ["bench/servers/proxy.ts", "--upstream", resources.upstream.url],
    { cpus: targetCpus(), nodeFlags: BENCH_NODE_FLAGS },
  );
  try {
    outcome.proxy = await holdStreams(proxy, heldStream.proxy, { count: opts.idleStreams, deadlineMs });
  } finally {
    await proxy.stop();
  }
  return outcome;
}

async function profile(resources: Resources, opts: Options): Promise<void> {
  const scenario = LOAD_SCENARIOS.find((s) => s.name === opts.scenarios[0])!;
  const storage = await resources.storageUrl(scenario.storage);
  if (typeof storage !== "string") throw new Error(storage.unavailable);
  say(formatProfile(await profileScenario(scenario, resources.upstream, storage, opts)));
}

/** The long-lived processes and the bench database, started on first use and released at the end. */
class Resources {
  readonly upstream: Server;
  private readonly opts: Options;
  private proxyServer?: Server;
  /** Gateways by storage and worker count, and peers by name. */
  private readonly targets = new Map<string, Server>();
  private database?: BenchDatabase | { unavailable: string };

  constructor(upstream: Server, opts: Options) {
    this.upstream = upstream;
    this.opts = opts;
  }

  async proxy(): Promise<Server> {
    this.proxyServer ??= await startServer(
      "proxy",
      ["bench/servers/proxy.ts", "--upstream", this.upstream.url],
      { cpus: targetCpus(), nodeFlags: BENCH_NODE_FLAGS },
    );
    return this.proxyServer;
  }

  async storageUrl(storage: Storage): Promise<string | { unavailable: string }> {
    if (storage === "sqlite") return "sqlite";
    this.database ??= await prepareDatabase(this.opts.postgresUrl);
    return "unavailable" in this.database ? this.database : this.database.url;
  }

  /**
   * The scenario's measured server, reused across scenarios: a gateway per storage and worker count,
   * or the peer. One that cannot start is reported, not fatal.
   */
  async target(scenario: LoadScenario): Promise<Server | { unavailable: string }> {
    const key = scenario.peer ?? `${scenario.storage}:${scenario.workers ?? 1}`;
    const running = this.targets.get(key);
    if (running && running.process.exitCode === null && running.process.signalCode === null) return running;
    try {
      const server = scenario.peer
        ? await startPeer(scenario.peer as Peer, targetCpus(), progress)
        : await this.startGateway(scenario);
      if ("unavailable" in server) return server;
      this.targets.set(key, server);
      return server;
    } catch (err) {
      return { unavailable: `${key} did not start: ${(err as Error).message.slice(0, 1200)}` };
    }
  }

  private async startGateway(scenario: LoadScenario): Promise<Server | { unavailable: string }> {
    const url = await this.storageUrl(scenario.storage);
    if (typeof url !== "string") return url;
    const workers = scenario.workers;
    return startGateway(this.upstream.url, url, {
      name: `gateway (${scenario.storage}${workers ? `, ${workers} workers` : ""})`,
      workers,
      // Workers are there to use every core: pinning them to the target's share would defeat them.
      cpus: workers ? [] : targetCpus(),
    });
  }

  async release(): Promise<void> {
    await Promise.all([...this.targets.values()].map((g) => g.stop()));
    await Promise.all([this.proxyServer?.stop(), this.upstream.stop()]);
    if (this.database && "drop" in this.database)
      await this.database
        .drop()
        .catch((err: Error) => progress(`could not drop the bench schema: ${err.message}`));
  }
}

main().then(
  () => process.exit(0),
  (err: Error) => {
    process.stderr.write(`bench failed: ${err.stack ?? err.message}\n`);
    process.exit(1);
  },
);
