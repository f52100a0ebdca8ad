// `npm run soak`: half of saturation, held for a long time (10 minutes by default), with a mix of
// routes, streams and clients that go away mid-stream. It answers one question: does the gateway stay
// healthy under steady load — memory flat after warm-up, no errors, a short event loop lag?
// A measurement, not a test: it prints its figures and a verdict, and exits non-zero only when the
// harness itself fails.
//
//   npm run soak -- [--minutes 10] [--warmup-minutes 2] [--sample-seconds 10]

import { BENCH_KEY, MODELS, startGateway } from "./gateway.ts";
import { describeMachine } from "./machine.ts";
import { cpuMs, memory } from "./proc-stats.ts";
import { startServer } from "./processes.ts";

const say = (text: string) => process.stdout.write(`${text}\n`);

interface Options {
  minutes: number;
  warmupMinutes: number;
  sampleSeconds: number;
}

function parseOptions(argv: string[]): Options {
  const opts: Options = { minutes: 10, warmupMinutes: 2, sampleSeconds: 10 };
  for (let i = 0; i < argv.length; i += 2) {
    const value = Number(argv[i + 1]);
    if (!Number.isFinite(value) || value <= 0) throw new Error(`${argv[i]} needs a positive number`);
    if (argv[i] === "--minutes") opts.minutes = value;
    else if (argv[i] === "--warmup-minutes") opts.warmupMinutes = value;
    else if (argv[i] === "--sample-seconds") opts.sampleSeconds = value;
    else throw new Error(`unknown option ${argv[i]}`);
  }
  if (opts.warmupMinutes >= opts.minutes) throw new Error("--warmup-minutes must be less than --minutes");
  return opts;
}

/** One kind of request in the mix, and how to tell a complete answer. */
interface Kind {
  name: string;
  weight: number;
  method: "GET" | "POST";
  path: string;
  headers: Record<string, string>;
  body?: string;
  expect: string;
  /** The client goes away after the first bytes of the answer. */
  abort?: boolean;
}

const JSON_TYPE = { "content-type": "application/json" };
const CHAT = { ...JSON_TYPE, authorization: `Bearer ${BENCH_KEY}` };
const MESSAGES = { ...JSON_TYPE, "x-api-key": BENCH_KEY, "anthropic-version": "2023-06-01" };
const GEMINI = { ...JSON_TYPE, "x-goog-api-key": BENCH_KEY };
const HELLO = [{ role: "user", content: "Hello" }];

const MIX: Kind[] = [
  {
    name: "chat relay",
    weight: 30,
    method: "POST",
    path: "/v1/chat/completions",
    headers: CHAT,
    body: JSON.stringify({ model: MODELS.chat.id, messages: HELLO }),
    expect: '"finish_reason":"stop"',
  },
  {
    name: "chat relay, streamed",
    weight: 20,
    method: "POST",
    path: "/v1/chat/completions",
    headers: CHAT,
    body: JSON.stringify({ model: MODELS.chat.id, messages: HELLO, stream: true }),
    expect: "data: [DONE]",
  },
  {
    name: "messages → chat, streamed",
    weight: 15,
    method: "POST",
    path: "/v1/messages",
    headers: MESSAGES,
    body: JSON.stringify({ model: MODELS.chat.id, max_tokens: 1024, messages: HELLO, stream: true }),
    expect: "event: message_stop",
  },
  {
    name: "content-generation → messages, streamed",
    weight: 10,
    method: "POST",
    path: `/v1beta/models/${MODELS.messages.id}:streamGenerateContent?alt=sse`,
    headers: GEMINI,
    body: JSON.stringify({ contents: [{ role: "user", parts: [{ text: "Hello" }] }] }),
    expect: '"finishReason"',
  },
  {
    name: "local model",
    weight: 10,
    method: "POST",
    path: "/v1/chat/completions",
    headers: CHAT,
    body: JSON.stringify({ model: "local/echo-1", messages: HELLO }),
    expect: "You said",
  },
  {
    name: "client aborts a stream",
    weight: 10,
    method: "POST",
    path: "/v1/messages",
    headers: MESSAGES,
    body: JSON.stringify({ model: MODELS.messages.id, max_tokens: 1024, messages: HELLO, stream: true }),
    expect: "event: message_start",
    abort: true,
  },
  { name: "listing", weight: 5, method: "GET", path: "/v1/models", headers: {}, expect: '"data"' },
];

interface Tally {
  sent: number;
  ok: number;
  errors: Map<string, number>;
}

async function send(base: string, kind: Kind, tally: Tally): Promise<void> {
  tally.sent++;
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), 30_000);
  try {
    const res = await fetch(base + kind.path, {
      method: kind.method,
      headers: kind.headers,
      body: kind.body,
      signal: controller.signal,
    });
    if (res.status !== 200) throw new Error(`status ${res.status}`);
    if (kind.abort) {
      const reader = res.body!.getReader();
      const first = await reader.read();
      controller.abort();
      if (!new TextDecoder().decode(first.value).includes(kind.expect)) throw new Error("bad opening");
    } else if (!(await res.text()).includes(kind.expect)) throw new Error("incomplete answer");
    tally.ok++;
  } catch (err) {
    const why = `${kind.name}: ${(err as Error).message}`;
    tally.errors.set(why, (tally.errors.get(why) ?? 0) + 1);
  } finally {
    clearTimeout(timer);
  }
}

/** Picks kinds by weight, deterministically (a fixed rotation), so every run sends the same mix. */
function rotation(): Kind[] {
  const out: Kind[] = [];
  for (const kind of MIX) for (let i = 0; i < kind.weight; i++) out.push(kind);
  // Interleave: spread each kind over the rotation instead of sending it in a block.
  return out
    .map((k, i) => ({ k, key: (i * 37) % out.length }))
    .sort((a, b) => a.key - b.key)
    .map((x) => x.k);
}

/** Closed-loop throughput of the mix at `connections` in flight, over `seconds`. */
async function saturation(base: string, connections: number, seconds: number): Promise<number> {
  const tally: Tally = { sent: 0, ok: 0, errors: new Map() };
  const kinds = rotation();
  const end = performance.now() + seconds * 1000;
  let next = 0;
  await Promise.all(
    Array.from({ length: connections }, async () => {
      while (performance.now() < end) await send(base, kinds[next++ % kinds.length], tally);
    }),
  );
  return tally.ok / seconds;
}

/** The gateway's event loop lag, from its /metrics (absent on builds without the metric). */
async function loopLag(base: string): Promise<string> {
  const text = await (await fetch(`${base}/metrics`)).text();
  const lines = text.split("\n").filter((l) => l.startsWith("switchyard_event_loop_lag_seconds"));
  return lines.map((l) => l.replace("switchyard_event_loop_lag_seconds", "")).join(" ") || "n/a";
}

interface Sample {
  minute: number;
  rssMiB: number;
  cpuPercent: number;
  rps: number;
  errors: number;
  lag: string;
}

async function main(): Promise<void> {
  const opts = parseOptions(process.argv.slice(2));
  say(`Switchyard soak — ${describeMachine()}`);
  const upstream = await startServer("upstream", ["bench/servers/upstream.ts", "--chunks", "20"]);
  const gateway = await startGateway(upstream.url, "sqlite");
  try {
    await saturation(gateway.url, 16, 5); // warm the JIT and the connection pools
    const full = await saturation(gateway.url, 50, 10);
    const rate = full / 2;
    say(`Saturation (mix, 50 in flight): ${full.toFixed(0)} req/s; holding ${rate.toFixed(0)} req/s.`);

    const tally: Tally = { sent: 0, ok: 0, errors: new Map() };
    const kinds = rotation();
    const started = performance.now();
    const end = started + opts.minutes * 60_000;
    const inFlight = new Set<Promise<void>>();
    let next = 0;
    const samples: Sample[] = [];
    let lastCpu = cpuMs(gateway.pid);
    let lastAt = started;
    let lastOk = 0;
    let lastErrors = 0;
    const sampler = setInterval(async () => {
      const now = performance.now();
      const cpu = cpuMs(gateway.pid);
      const errors = [...tally.errors.values()].reduce((a, b) => a + b, 0);
      const sample: Sample = {
        minute: (now - started) / 60_000,
        rssMiB: memory(gateway.pid).rssMiB,
        cpuPercent: ((cpu - lastCpu) / (now - lastAt)) * 100,
        rps: ((tally.ok - lastOk) * 1000) / (now - lastAt),
        errors: errors - lastErrors,
        lag: await loopLag(gateway.url).catch(() => "unreachable"),
      };
      samples.push(sample);
      say(
        `  ${sample.minute.toFixed(1).padStart(5)} min  rss ${sample.rssMiB.toFixed(1)} MiB  ` +
          `cpu ${sample.cpuPercent.toFixed(0)} %  ${sample.rps.toFixed(0)} req/s  errors ${sample.errors}  lag ${sample.lag}`,
      );
      [lastCpu, lastAt, lastOk, lastErrors] = [cpu, now, tally.ok, errors];
    }, opts.sampleSeconds * 1000);

    // Open loop: requests leave on a fixed schedule whatever the answers' pace.
    const interval = 1000 / rate;
    let due = performance.now();
    while (performance.now() < end) {
      due += interval;
      const p = send(gateway.url, kinds[next++ % kinds.length], tally);
      inFlight.add(p);
      p.finally(() => inFlight.delete(p));
      const wait = due - performance.now();
      if (wait > 1) await new Promise((r) => setTimeout(r, wait));
      else if (next % 64 === 0) await new Promise((r) => setImmediate(r));
    }
    clearInterval(sampler);
    await Promise.all(inFlight);
    report(opts, tally, samples, gateway.process.exitCode === null);
  } finally {
    await gateway.stop();
    await upstream.stop();
  }
}

function report(opts: Options, tally: Tally, samples: Sample[], alive: boolean): void {
  const steady = samples.filter((s) => s.minute >= opts.warmupMinutes);
  const first = steady[0];
  const last = steady.at(-1);
  const slope = leastSquaresSlope(steady.map((s) => [s.minute, s.rssMiB]));
  const errors = [...tally.errors.values()].reduce((a, b) => a + b, 0);
  say("");
  say(`Requests: ${tally.sent} sent, ${tally.ok} complete, ${errors} errors.`);
  for (const [why, n] of tally.errors) say(`  ${n} × ${why}`);
  if (first && last)
    say(
      `RSS after warm-up: ${first.rssMiB.toFixed(1)} MiB at ${first.minute.toFixed(1)} min → ` +
        `${last.rssMiB.toFixed(1)} MiB at ${last.minute.toFixed(1)} min (trend ${slope.toFixed(2)} MiB/min); ` +
        `peak ${Math.max(...steady.map((s) => s.rssMiB)).toFixed(1)} MiB.`,
    );
  say(`Event loop lag (last sample): ${last?.lag ?? "n/a"}`);
  // Flat: under 1 MiB a minute of growth after warm-up, which over the run stays inside GC noise.
  const flat = Math.abs(slope) < 1;
  say(
    `Verdict: ${alive && errors === 0 && flat ? "PASS" : "FAIL"} (alive: ${alive}, errors: ${errors}, RSS flat: ${flat})`,
  );
}

/** MiB per minute: the trend of RSS over the steady samples, less sensitive to one GC than two points. */
function leastSquaresSlope(points: Array<[number, number]>): number {
  if (points.length < 2) return 0;
  const n = points.length;
  const mx = points.reduce((a, [x]) => a + x, 0) / n;
  const my = points.reduce((a, [, y]) => a + y, 0) / n;
  const sxy = points.reduce((a, [x, y]) => a + (x - mx) * (y - my), 0);
  const sxx = points.reduce((a, [x]) => a + (x - mx) ** 2, 0);
  return sxx === 0 ? 0 : sxy / sxx;
}

main().catch((err) => {
  process.stderr.write(`soak: ${(err as Error).stack ?? err}\n`);
  process.exit(1);
});
