// Command-line flags of `npm run bench -- [flags]`.

import { PEERS, type Peer } from "./peer.ts";
import { DEFAULT_POSTGRES_URL } from "./postgres.ts";
import { LOAD_SCENARIOS, SCENARIO_NAMES } from "./scenarios.ts";

export interface Options {
  scenarios: string[];
  /** Measured proxy/gateway pairs per scenario. */
  rounds: number;
  /** Seconds per measured run. */
  seconds: number;
  /** Seconds of unrecorded load per target before a scenario's rounds (JIT, pools, caches). */
  warmupSeconds: number;
  /** Warm-up of a process's first scenario (run-scenario.ts). */
  settleSeconds: number;
  idleStreams: number;
  /** How the idle-streams scenario's gateway calls its upstream. */
  idleUpstream: "h2c" | "http1";
  /** Streamed chunks per answer (the upstream's --chunks). */
  chunks: number;
  postgresUrl: string;
  profile: boolean;
  profileSeconds: number;
  jsonFile?: string;
  quick: boolean;
  /** A peer gateway measured by the same method, beside Switchyard. */
  peer?: Peer;
}

export const USAGE = `npm run bench -- [flags]

  --quick               short smoke run (under a minute): 2 rounds of 1 s per scenario
  --scenario NAME       run only this scenario (repeat, or comma-separate); one of:
                        ${SCENARIO_NAMES.join(", ")}
  --rounds N            measured proxy/gateway pairs per scenario (default 5; quick 2)
  --duration S          seconds per measured run (default 3; quick 1)
  --warmup S            unrecorded seconds per target before the rounds (default 2; quick 0.5)
  --settle S            unrecorded seconds of a process's first scenario instead, while its JIT
                        settles (default 10; quick 0.5)
  --streams N           streams held open in the idle-streams scenario (default 10000; quick 1000)
  --idle-upstream P     h2c (default: the gateway's held streams share HTTP/2 connections upstream)
                        or http1 (one upstream connection per held stream)
  --peer NAME           also measure a peer gateway on the relays (${PEERS.join(", ")}); it is
                        installed, pinned, into ~/.cache/switchyard-bench on first use
  --postgres URL        PostgreSQL for the ledger scenario (default $BENCH_POSTGRES_URL or
                        ${DEFAULT_POSTGRES_URL})
  --profile             instead of the suite: run one scenario (default relay-c50, or the first
                        --scenario) against a gateway under node --cpu-prof and print where its
                        CPU time goes
  --profile-seconds S   load duration while profiling (default 10; quick 4)
  --json FILE           also write every run's figures to FILE
`;

export function parseOptions(argv: string[]): Options {
  const quick = argv.includes("--quick");
  const opts: Options = {
    scenarios: [],
    rounds: quick ? 2 : 5,
    seconds: quick ? 1 : 3,
    warmupSeconds: quick ? 0.5 : 2,
    settleSeconds: quick ? 0.5 : 10,
    idleStreams: quick ? 1000 : 10_000,
    idleUpstream: "h2c",
    chunks: 20,
    postgresUrl: process.env.BENCH_POSTGRES_URL ?? DEFAULT_POSTGRES_URL,
    profile: false,
    profileSeconds: quick ? 4 : 10,
    quick,
  };
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i];
    const value = () => {
      const v = argv[++i];
      if (v === undefined) throw new UsageError(`${flag} needs a value`);
      return v;
    };
    const number = (min: number) => {
      const v = Number(value());
      if (!Number.isFinite(v) || v < min) throw new UsageError(`${flag} needs a number ≥ ${min}`);
      return v;
    };
    switch (flag) {
      case "--quick":
        break;
      case "--scenario":
        for (const name of value().split(",")) {
          if (!SCENARIO_NAMES.includes(name))
            throw new UsageError(`unknown scenario '${name}'; one of ${SCENARIO_NAMES.join(", ")}`);
          opts.scenarios.push(name);
        }
        break;
      case "--rounds":
        opts.rounds = Math.round(number(1));
        break;
      case "--duration":
        opts.seconds = number(0.2);
        break;
      case "--warmup":
        opts.warmupSeconds = number(0);
        break;
      case "--settle":
        opts.settleSeconds = number(0);
        break;
      case "--streams":
        opts.idleStreams = Math.round(number(1));
        break;
      case "--idle-upstream": {
        const protocol = value();
        if (protocol !== "h2c" && protocol !== "http1")
          throw new UsageError(`--idle-upstream is h2c or http1, not '${protocol}'`);
        opts.idleUpstream = protocol;
        break;
      }
      case "--postgres":
        opts.postgresUrl = value();
        break;
      case "--profile":
        opts.profile = true;
        break;
      case "--profile-seconds":
        opts.profileSeconds = number(1);
        break;
      case "--peer": {
        const peer = value();
        if (!(PEERS as readonly string[]).includes(peer))
          throw new UsageError(`unknown peer '${peer}'; one of ${PEERS.join(", ")}`);
        opts.peer = peer as Peer;
        break;
      }
      case "--json":
        opts.jsonFile = value();
        break;
      case "--help":
      case "-h":
        throw new UsageError("");
      default:
        throw new UsageError(`unknown flag '${flag}'`);
    }
  }
  if (opts.scenarios.length === 0)
    opts.scenarios = opts.profile ? [LOAD_SCENARIOS[0].name] : [...SCENARIO_NAMES];
  if (opts.profile && !LOAD_SCENARIOS.some((s) => s.name === opts.scenarios[0]))
    throw new UsageError(`--profile needs a load scenario, not '${opts.scenarios[0]}'`);
  return opts;
}

export class UsageError extends Error {}
