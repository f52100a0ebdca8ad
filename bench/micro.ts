// The gateway's own CPU per request, without sockets: the real pipeline (auth, admission, decode,
// routing, relay edits, tap, meter, rating, ledger on SQLite, settlement) driven in-process with a
// fake upstream adapter that answers at once. What it prints is the part of a request's cost that
// Switchyard's code decides; `npm run bench` measures the whole request through HTTP.
//
//   node bench/micro.ts [--requests 50000] [--concurrency 50] [--scenario relay|stream] [--profile]
//                       [--per-read N]  (stream: upstream events per read, default 5)
//                       [--allocations] (where the bytes allocated per request are allocated: V8's
//                                        sampling heap profiler, garbage included)
//                       [--otlp URL]   (traces on, exported to an OTLP/HTTP collector at URL)
//                       [--key-limits] (the bench key has rpm and concurrency limits, never reached)
//                       [--key-tpm]    (… and a tpm limit: each request's prompt is counted for it)
//                       [--redis URL]  (… kept in that Redis, under a prefix of this run's own)
//   node bench/micro.ts --scenario translated|relayed …   (a stream's own work alone, translated or
//                                                          relayed: bench/micro-streams.ts)

import { mkdtempSync, writeFileSync } from "node:fs";
import { Session } from "node:inspector/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { stringify } from "yaml";
import { installKey } from "../src/auth/bootstrap.ts";
import { loadConfig } from "../src/config/load.ts";
import type { HeaderMap, Responder } from "../src/gateway/responder.ts";
import { openStore } from "../src/ledger/open-store.ts";
import type { RelayingAdapter } from "../src/providers/types.ts";
import { createApp } from "../src/server/app.ts";
import { summarizeProfile } from "./cpu-profile.ts";
import { BENCH_KEY, gatewayConfig, MODELS } from "./gateway.ts";
import { streamMicro } from "./micro-streams.ts";
import { formatProfile } from "./profile.ts";
import { answerIds, CHAT_ID, chatCompletion, chatStream } from "./servers/upstream-bodies.ts";

function flag(name: string, fallback: string): string {
  const at = process.argv.indexOf(name);
  return at >= 0 ? process.argv[at + 1] : fallback;
}
const requests = Number(flag("--requests", "50000"));
const concurrency = Number(flag("--concurrency", "50"));
const scenario = flag("--scenario", "relay");
if (scenario === "translated" || scenario === "relayed") {
  await streamMicro(scenario, flag);
  process.exit(0); // the pipeline below is not built
}
const profile = process.argv.includes("--profile");
const allocations = process.argv.includes("--allocations");
const otlp = process.argv.includes("--otlp") ? flag("--otlp", "") : undefined;
const keyLimits = process.argv.includes("--key-limits");
const keyTpm = process.argv.includes("--key-tpm");
const redis = process.argv.includes("--redis") ? flag("--redis", "") : undefined;

const completion = chatCompletion(MODELS.chat.upstream);
// Five events per network read by default, about what a loaded gateway reads at a time; --per-read
// 1 is `npm run bench`'s one-frame-per-write pacing, --per-read 100 its whole answer in one write.
const perRead = Number(flag("--per-read", "5"));
const streamFrames = chatStream(MODELS.chat.upstream, 20, true);
// Each stream has an id of its own, as a provider's do (servers/upstream-bodies.ts answerIds): made
// up front for a pool of streams, so that making them is not counted as the gateway's time.
const streamReadSets = Array.from({ length: 1000 }, () => {
  const id = answerIds().chat;
  const frames = streamFrames.map((f) => f.replaceAll(CHAT_ID, id));
  return Array.from({ length: Math.ceil(frames.length / perRead) }, (_, i) =>
    Buffer.from(frames.slice(i * perRead, i * perRead + perRead).join("")),
  );
});
let streamsAnswered = 0;

/** Answers every relay at once with the bench upstream's own bodies. */
const upstream: RelayingAdapter = {
  relayProtocol: "openai-chat",
  stream: () => {
    throw new Error("translation is not driven here");
  },
  complete: () => Promise.reject(new Error("translation is not driven here")),
  async relay() {
    return {
      text: async () => completion,
      async *chunks() {
        yield* streamReadSets[streamsAnswered++ % streamReadSets.length];
      },
    };
  },
};

class NullResponder implements Responder {
  readonly signal = new AbortController().signal;
  status = 0;
  json(status: number, _headers: HeaderMap, _body: unknown): void {
    this.status = status;
  }
  jsonText(status: number, _headers: HeaderMap, _text: string): void {
    this.status = status;
  }
  startStream(status: number): void {
    this.status = status;
  }
  write(): undefined {
    return undefined;
  }
  end(): void {}
}

const dir = mkdtempSync(join(tmpdir(), "switchyard-micro-"));
const configFile = join(dir, "switchyard.yaml");
writeFileSync(configFile, stringify(gatewayConfig("http://127.0.0.1:9", `sqlite:${join(dir, "s.db")}`)));
const config = loadConfig(configFile, {});
if (keyLimits || keyTpm)
  config.keys[0].limits = { rpm: 1e9, concurrency: 1e6, ...(keyTpm ? { tpm: 1e12 } : {}) };
if (redis) config.redis = { url: redis, prefix: `switchyard-bench-${process.pid}-${Date.now()}:` };
const store = openStore(config.storage.url);
await store.migrate();
for (const key of config.keys) await installKey(store, key);
const tracing =
  otlp === undefined
    ? undefined
    : new (await import("../src/telemetry/tracing.ts")).Tracing({
        endpoint: otlp,
        headers: {},
        serviceName: "bench",
      });
const app = createApp(config, store, { adapterFor: () => upstream, tracing });

const body = JSON.stringify({
  model: MODELS.chat.id,
  messages: [{ role: "user", content: "Hello" }],
  ...(scenario === "stream" ? { stream: true, stream_options: { include_usage: true } } : {}),
});
const headers = { authorization: `Bearer ${BENCH_KEY}`, "content-type": "application/json" };

async function one(): Promise<void> {
  const out = new NullResponder();
  await app.pipeline.handle("openai-chat", { body, headers, query: {} }, out);
  if (out.status !== 200) throw new Error(`status ${out.status}`);
}

async function run(count: number): Promise<void> {
  let left = count;
  const worker = async () => {
    while (left-- > 0) await one();
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  await store.flush();
}

await run(Math.min(5000, requests)); // warm-up: JIT, statement cache, key cache
const session = profile || allocations ? new Session() : undefined;
if (session) {
  session.connect();
  if (profile) {
    await session.post("Profiler.enable");
    await session.post("Profiler.start");
  }
  // Objects collected before the profile is taken are kept in it: garbage is what is wanted here.
  if (allocations)
    await session.post("HeapProfiler.startSampling", {
      samplingInterval: 256,
      includeObjectsCollectedByMajorGC: true,
      includeObjectsCollectedByMinorGC: true,
    });
}
const cpuBefore = process.cpuUsage();
const wallBefore = performance.now();
await run(requests);
const cpu = process.cpuUsage(cpuBefore);
const wall = performance.now() - wallBefore;
if (session && profile) {
  const { profile: cpuProfile } = await session.post("Profiler.stop");
  const file = join(dir, `micro-${scenario}.cpuprofile`);
  writeFileSync(file, JSON.stringify(cpuProfile));
  console.log(formatProfile(summarizeProfile(file)));
}
if (session && allocations) {
  const { profile: heap } = await session.post("HeapProfiler.stopSampling");
  console.log(allocationSites(heap, requests));
}
const perRequestUs = (cpu.user + cpu.system) / requests;
console.log(
  `${scenario}: ${requests} requests at concurrency ${concurrency}: ` +
    `${perRequestUs.toFixed(1)} µs CPU per request (user ${(cpu.user / requests).toFixed(1)}, ` +
    `system ${(cpu.system / requests).toFixed(1)}), ${((requests / wall) * 1000).toFixed(0)} req/s`,
);
await app.close();
await store.close();

/** Bytes allocated per request by each function (self), the largest first. */
function allocationSites(
  heap: import("node:inspector").HeapProfiler.SamplingHeapProfile,
  count: number,
): string {
  const bySite = new Map<string, number>();
  const visit = (node: import("node:inspector").HeapProfiler.SamplingHeapProfileNode) => {
    const { functionName, url, lineNumber } = node.callFrame;
    const site = `${functionName || "(anonymous)"} (${url.replace(/^.*\/(src|bench|node_modules)\//, "$1/")}:${lineNumber + 1})`;
    bySite.set(site, (bySite.get(site) ?? 0) + node.selfSize);
    for (const child of node.children) visit(child);
  };
  visit(heap.head);
  const total = [...bySite.values()].reduce((a, b) => a + b, 0);
  const lines = [...bySite]
    .sort((a, b) => b[1] - a[1])
    .slice(0, 30)
    .map(([site, bytes]) => `  ${(bytes / count).toFixed(0).padStart(7)} B  ${site}`);
  return [`Allocated per request: ${(total / count).toFixed(0)} B (sampled), by function:`, ...lines].join(
    "\n",
  );
}
