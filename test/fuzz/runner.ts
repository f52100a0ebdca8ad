// Sends the fuzz cases to a running gateway in batches (a bounded number in flight), judges every
// answer, and between batches checks that the process is alive, answers a health probe in time and
// logged no unexpected error. A batch after which the process died or logged an error is sent again
// one case at a time, so that the report names the case that did it; a dead gateway is restarted and
// the run goes on, so that one crasher does not hide the others.

import type { RunningGateway } from "../support/gateway.ts";
import type { FuzzCase, HttpExchange } from "./cases.ts";
import { judge } from "./oracle.ts";
import { type Outcome, sendHttp, sendRaw } from "./transport.ts";

export interface RunOptions {
  cases: FuzzCase[];
  seed: number;
  secrets: string[];
  start(): Promise<RunningGateway>;
  /** Called before each batch (e.g. to script the failing upstreams). */
  beforeBatch?(batch: FuzzCase[]): void;
  batchSize?: number;
  concurrency?: number;
  requestTimeoutMs?: number;
  /** A health probe between batches must answer within this. */
  probeLimitMs?: number;
  /** A health probe sent while a batch runs must answer within this (else the event loop was held). */
  busyProbeLimitMs?: number;
  /** The run stops sending (and fails) once it has taken this long. */
  deadlineMs?: number;
  /** Called after each batch with a line of progress. */
  progress?(line: string): void;
}

export interface Failure {
  case?: FuzzCase;
  problem: string;
}

export interface RunReport {
  sent: number;
  failures: Failure[];
  notes: Array<{ case: FuzzCase; note: string }>;
  statuses: Map<number, number>;
  crashes: number;
  ms: number;
  gateway: RunningGateway;
}

export async function runFuzz(opts: RunOptions): Promise<RunReport> {
  const batchSize = opts.batchSize ?? 100;
  const concurrency = opts.concurrency ?? 12;
  const timeoutMs = opts.requestTimeoutMs ?? 8000;
  const probeLimit = opts.probeLimitMs ?? 500;
  const busyLimit = opts.busyProbeLimitMs ?? 2000;
  const deadline = opts.deadlineMs ?? 150_000;
  const started = performance.now();
  let sent = 0;
  const failures: Failure[] = [];
  const notes: RunReport["notes"] = [];
  const statuses = new Map<number, number>();
  const generationIds: string[] = [];
  let crashes = 0;
  let gw = await opts.start();

  const send = async (c: FuzzCase): Promise<Outcome> => {
    const base = new URL(gw.url);
    if (c.exchange.kind === "raw") return sendRaw(base, c.exchange, timeoutMs);
    const x: HttpExchange = c.exchange.path.includes("{GEN_ID}")
      ? {
          ...c.exchange,
          path: c.exchange.path.replace(
            "{GEN_ID}",
            generationIds[c.id % Math.max(1, generationIds.length)] ?? "gen-x",
          ),
        }
      : c.exchange;
    return sendHttp(base, x, timeoutMs);
  };

  const record = (c: FuzzCase, outcome: Outcome) => {
    const verdict = judge(c, outcome, opts.secrets);
    for (const problem of verdict.problems) failures.push({ case: c, problem });
    for (const note of verdict.notes) notes.push({ case: c, note });
    for (const answer of outcome.answers) {
      statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
      const id = answer.headers.find(([n]) => n === "x-generation-id")?.[1];
      if (id && answer.status === 200 && generationIds.length < 500) generationIds.push(id);
    }
  };

  const alive = () => gw.process.exitCode === null && gw.process.signalCode === null;

  /**
   * Whether the gateway is alive and answers a probe in time. One that exited, or that does not
   * answer at all (its event loop held by one request), is replaced so that the run goes on.
   */
  const health = async (): Promise<{ dead?: string; slow?: string } | undefined> => {
    if (!alive()) {
      crashes++;
      const why = `the gateway exited (code ${gw.process.exitCode}, signal ${gw.process.signalCode}):\n${tail(gw.output())}`;
      gw = await opts.start();
      return { dead: why };
    }
    const probe = await sendHttp(new URL(gw.url), HEALTH_PROBE, 5000);
    const answer = probe.answers[0];
    if (answer?.status !== 200) {
      gw.process.kill("SIGKILL");
      await new Promise((resolve) => gw.process.once("exit", resolve));
      gw = await opts.start();
      return {
        slow: `the gateway did not answer a health probe (${probe.error ?? answer?.status ?? "in 5 s"}): killed and restarted`,
      };
    }
    if (answer.ms > probeLimit)
      return { slow: `a health probe took ${Math.round(answer.ms)} ms (limit ${probeLimit})` };
    return undefined;
  };

  /** The cases of a batch that, sent one at a time, take longer than the busy-probe limit. */
  const soloSlow = async (batch: FuzzCase[]): Promise<Array<[FuzzCase, number]>> => {
    const slow: Array<[FuzzCase, number]> = [];
    const until = performance.now() + 30_000;
    for (const c of batch) {
      if (performance.now() > until || performance.now() - started > deadline) break;
      const t0 = performance.now();
      const outcome = await send(c);
      const ms = performance.now() - t0;
      if (ms > busyLimit && !c.upstreamFails) slow.push([c, ms]);
      if (outcome.timedOut) await health();
    }
    return slow;
  };

  for (let from = 0; from < opts.cases.length; from += batchSize) {
    if (performance.now() - started > deadline) {
      failures.push({
        problem: `the run took over ${deadline} ms: stopped after ${from} of ${opts.cases.length} cases`,
      });
      break;
    }
    const batch = opts.cases.slice(from, from + batchSize);
    const span = `cases #${batch[0].id}–#${batch[batch.length - 1].id}`;
    sent += batch.length;
    const batchStarted = performance.now();
    opts.beforeBatch?.(batch);
    const logMark = gw.output().length;
    const busy = busyProber(gw, busyLimit);
    const durations = new Map<FuzzCase, number>();
    await pool(batch, concurrency, async (c) => {
      const t0 = performance.now();
      const outcome = await send(c);
      durations.set(c, performance.now() - t0);
      record(c, outcome);
    });
    const slowProbes = await busy.stop();
    const errors = errorLines(gw.output().slice(logMark));
    const sick = await health();
    opts.progress?.(
      `${span}: ${Math.round(performance.now() - batchStarted)} ms, ${failures.length} failure(s) so far`,
    );
    const slowest = () =>
      [...durations]
        .sort((a, b) => b[1] - a[1])
        .slice(0, 3)
        .map(([c, ms]) => `#${c.id} (${Math.round(ms)} ms: ${c.label.slice(0, 100)})`)
        .join("; ");
    if (slowProbes.length > 0 || sick?.slow) {
      const what = sick?.slow ?? `health probes took ${slowProbes.map((ms) => Math.round(ms)).join(", ")} ms`;
      // Every request in flight waits alike on a held loop: the culprit is the one that is slow alone.
      const culprits = await soloSlow(batch);
      if (culprits.length === 0)
        failures.push({ problem: `during ${span}: ${what}; slowest cases: ${slowest()}` });
      for (const [c, ms] of culprits)
        failures.push({
          case: c,
          problem: `the gateway held its event loop: this case alone took ${Math.round(ms)} ms (${what})`,
        });
    }
    if (!sick?.dead && errors.length === 0) continue;
    // Find the case that ended the process or logged an error: the batch again, one case at a time,
    // each followed by the same checks (bounded in time, for a run that breaks often).
    let found = false;
    const replayUntil = performance.now() + 20_000;
    for (const c of batch) {
      if (performance.now() > replayUntil || performance.now() - started > deadline) break;
      const mark = gw.output().length;
      await send(c);
      const lines = errorLines(gw.output().slice(mark));
      const exited = !alive();
      if (lines.length === 0 && !exited) continue;
      found = true;
      failures.push({
        case: c,
        problem: exited ? "the gateway exited" : `the gateway logged an error: ${lines[0].slice(0, 400)}`,
      });
      await health();
    }
    if (!found)
      failures.push({
        problem: `after ${span}: ${sick?.dead ?? `the gateway logged ${errors.length} error(s): ${errors[0]?.slice(0, 400)}`}`,
      });
  }
  return { sent, failures, notes, statuses, crashes, ms: performance.now() - started, gateway: gw };
}

const HEALTH_PROBE: HttpExchange = { kind: "http", method: "GET", path: "/healthz", headers: {} };

/** Runs `work` over `items` with at most `limit` in flight. */
async function pool<T>(items: T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const lanes = Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) await work(items[next++]);
  });
  await Promise.all(lanes);
}

/** Probes /healthz every 200 ms while a batch runs; stop() gives the probes slower than the limit. */
function busyProber(gw: RunningGateway, limitMs: number) {
  const slow: number[] = [];
  let running = true;
  const loop = (async () => {
    while (running) {
      const probe = await sendHttp(new URL(gw.url), HEALTH_PROBE, 10_000);
      const ms = probe.answers[0]?.ms ?? 10_000;
      if (ms > limitMs && running) slow.push(ms);
      await new Promise((r) => setTimeout(r, 200));
    }
  })();
  return {
    async stop(): Promise<number[]> {
      running = false;
      await loop;
      return slow;
    },
  };
}

/** Log lines at level error or fatal (pino's 50 and 60). */
function errorLines(output: string): string[] {
  return output.split("\n").filter((line) => /"level":\s*(5\d|6\d)\b/.test(line));
}

function tail(text: string): string {
  return text.split("\n").slice(-15).join("\n");
}

/** The report printed when a run fails: each distinct problem once, with the cases that showed it. */
export function formatFailures(report: RunReport, seed: number, limit = 40): string {
  const groups = new Map<string, Failure[]>();
  for (const f of report.failures) {
    const key = f.problem.replace(/\d+/g, "N").slice(0, 160);
    groups.set(key, [...(groups.get(key) ?? []), f]);
  }
  const lines = [`${report.failures.length} failure(s) in ${groups.size} kind(s); seed ${seed}:`];
  for (const [, list] of [...groups].slice(0, limit)) {
    const first = list[0];
    lines.push(`\n• ${first.problem}${list.length > 1 ? `  (×${list.length})` : ""}`);
    for (const f of list.slice(0, 3)) if (f.case) lines.push(`    ${describeCase(f.case, seed)}`);
  }
  return lines.join("\n");
}

/** One line to reproduce a case: its number, what it is, and how to send it again. */
export function describeCase(c: FuzzCase, seed: number): string {
  const x = c.exchange;
  const what =
    x.kind === "http"
      ? `${x.method} ${clip(x.path, 100)} headers ${clip(JSON.stringify(x.headers), 200)} body ${x.body ? clip(x.body.toString("utf8"), 300) : "(none)"}`
      : `raw ${clip(JSON.stringify(x.steps.map((s) => ("write" in s ? s.write.toString("latin1") : s))), 300)}`;
  return `#${c.id} [${c.category}] ${clip(c.label, 200)}\n      ${what}\n      again: FUZZ_SEED=${seed} FUZZ_ONLY=${c.id}`;
}

function clip(text: string, n: number): string {
  return text.length > n ? `${text.slice(0, n)}…(${text.length})` : text;
}
