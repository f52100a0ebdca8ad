// A seeded fuzz of every endpoint of a running gateway (spawned as a user runs it), in front of
// fake upstreams of each protocol (so that translated and relayed routes both run) and the local
// models. Thousands of inputs: mutated valid requests, broken bytes, credentials, headers, paths,
// queries and raw HTTP framing. Every answer must be free of the gateway's own 5xx, in the caller's
// error shape (naming the field for a bad body), without a header the gateway does not send or one
// made from the request, and without an upstream key; the process must stay up and responsive.
//
//   FUZZ_SEED=<n>|random  the seed (printed on every run; the default is fixed, so CI is repeatable)
//   FUZZ_CASES=<n>        how many cases (default 1000 — every category many times over, so
//                         `npm test` stays short; `npm run fuzz` sends the first 3000, a superset)
//   FUZZ_ONLY=<id,id…>    send only these cases (from a failure report)
//   FUZZ_VERBOSE=1        print a line after each batch
//   FUZZ_SKIP=<cat,cat…>  leave out categories of cases (huge, raw, mutate…) while working on others
//   FUZZ_STORAGE=<url>    the ledger's storage.url (default: a SQLite file), e.g.
//                         postgres://127.0.0.1:5432/test?schema=switchyard_fuzz

import assert from "node:assert/strict";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { type FakeUpstream, type Reply, startFakeUpstream } from "../fakes/index.ts";
import { fakeModel } from "../support/config.ts";
import {
  BROKE_KEY,
  baseConfig,
  OTHER_KEY,
  PAYG_KEY,
  type RunningGateway,
  SUB_KEY,
  spawnGateway,
  startGateway,
} from "../support/gateway.ts";
import { CATEGORY_NAMES, type CaseWorld, type FuzzModel, generateCases } from "./cases.ts";
import { fuzzSeed, Rng } from "./prng.ts";
import { describeCase, formatFailures, runFuzz } from "./runner.ts";
import { closeAgent } from "./transport.ts";

const SEED = fuzzSeed(process.env.FUZZ_SEED, 0x5eed_2026);
const COUNT = Number(process.env.FUZZ_CASES ?? 1000);
const ONLY = process.env.FUZZ_ONLY?.split(",").map(Number);
const SKIP = new Set(process.env.FUZZ_SKIP?.split(",") ?? []);
const STORAGE = process.env.FUZZ_STORAGE;
const ADMIN_KEY = "sk-admin-fuzz-0123456789abcdef";

/** Distinctive upstream keys: none may ever appear in an answer. */
const UPSTREAM_KEYS = {
  openai: "sk-upstream-openai-Zq81xK4vTmR2",
  "openai-responses": "sk-upstream-responses-Wn54uG1qLkO9",
  anthropic: "sk-ant-upstream-Yp72wJ3uSnQ1",
  gemini: "AIza-upstream-gemini-Xo63vH2tRmP0",
} as const;

type Protocol = keyof typeof UPSTREAM_KEYS;
const PROTOCOLS: Protocol[] = ["openai", "openai-responses", "anthropic", "gemini"];
/** The letter a protocol's fakes are named by: `fo`, `fr`, `fa`, `fg`. */
const LETTER: Record<Protocol, string> = {
  openai: "o",
  "openai-responses": "r",
  anthropic: "a",
  gemini: "g",
};

/** `f<letter>`: answers well; `x<letter>`: fails on purpose (scripted faults). */
const fakes = new Map<string, FakeUpstream>();
let gw: RunningGateway | undefined;
let dir: string;

const MODELS: FuzzModel[] = [
  { id: "local/echo-1", reasoning: false },
  { id: "local/think-1", reasoning: true },
  { id: "fo/m", reasoning: false },
  { id: "fa/m", reasoning: false },
  { id: "fg/m", reasoning: false },
  { id: "fr/m", reasoning: false },
  { id: "fr/r", reasoning: true },
  { id: "fo/r", reasoning: true },
  { id: "fa/r", reasoning: true },
  { id: "fg/gemini-2.5-flash", reasoning: true },
  { id: "xo/m", reasoning: false, failing: true },
  { id: "xa/m", reasoning: true, failing: true },
  { id: "xg/m", reasoning: false, failing: true },
  { id: "xr/m", reasoning: true, failing: true },
];

/** Embedding models: the local one, and one behind each upstream that embeds (`fo`, `fg`). */
const EMBEDDING_MODELS = ["local/embed-1", "fo/embed", "fg/embed"];

/** An embedding model of the config, behind the fake `provider`, with a vector length to keep under. */
function embeddingModel(id: string) {
  const [provider, name] = id.split("/");
  return {
    id,
    output_modalities: ["embeddings"],
    dimensions: 64,
    pricings: { prompt: [{ value: 0.02, unit: "perMTokens", currency: "USD" }] },
    endpoints: [{ provider, model: name }],
  };
}

before(async () => {
  for (const p of PROTOCOLS) {
    fakes.set(`f${LETTER[p]}`, await startFakeUpstream(p, { apiKey: UPSTREAM_KEYS[p] }));
    fakes.set(`x${LETTER[p]}`, await startFakeUpstream(p, { apiKey: UPSTREAM_KEYS[p] }));
  }
  dir = mkdtempSync(join(tmpdir(), "switchyard-fuzz-"));
  const providers = [...fakes].map(([id, fake]) => ({
    id,
    protocol: fake.protocol,
    base_url: fake.url,
    api_key: UPSTREAM_KEYS[fake.protocol],
    // The failing upstreams also hang and stall: short timeouts keep those cases short.
    ...(id.startsWith("x")
      ? { timeouts: { connect_ms: 1000, first_byte_ms: 1500, request_ms: 1500, idle_ms: 1000 } }
      : {}),
  }));
  const models = MODELS.filter((m) => !m.id.startsWith("local/")).map((m) => {
    const [provider, name] = m.id.split("/");
    return { ...fakeModel(m.id, [provider], { upstream: name }), reasoning: m.reasoning };
  });
  gw = await startGateway(
    baseConfig(dir, {
      server: { body_limit_bytes: 4 * 1024 * 1024 },
      admin: { keys: [ADMIN_KEY] },
      ...(STORAGE ? { storage: { url: STORAGE } } : {}),
      // Thousands of generations, some with huge prompts: the account must not run dry mid-run.
      keys: [
        { key: PAYG_KEY, account: "acme", credits: 1_000_000_000 },
        { key: SUB_KEY, account: "acme" },
        { key: OTHER_KEY, account: "other", credits: 100 },
        { key: BROKE_KEY, account: "broke", credits: 0 },
      ],
      providers,
      models: [...models, ...EMBEDDING_MODELS.filter((id) => !id.startsWith("local/")).map(embeddingModel)],
      // The failing upstreams must keep being tried, not be skipped by an open breaker.
      routing: { health: { failure_threshold: 1_000_000 } },
    }),
    { dir },
  );
});

after(async () => {
  closeAgent();
  // A gateway stuck in a long computation does not stop on SIGTERM in time: kill it.
  if (gw) {
    const stopping = gw.stop();
    const timer = setTimeout(() => gw?.process.kill("SIGKILL"), 3000);
    await stopping;
    clearTimeout(timer);
  }
  await Promise.all([...fakes.values()].map((f) => f.close()));
});

/** What the failing upstreams answer, in turn: errors (one quoting the key), cuts, stalls, odd successes. */
function faults(rng: Rng, protocol: Protocol): Reply {
  const key = UPSTREAM_KEYS[protocol];
  return rng.pick<Reply>([
    { status: 500 },
    { status: 502 },
    { status: 503, headers: { "retry-after": "1" } },
    { status: 529 },
    { status: 429, headers: { "retry-after": "2" } },
    { status: 401 },
    { status: 403 },
    { status: 404 },
    {
      status: 400,
      errorBody: {
        error: {
          message: `Incorrect API key provided: ${key}`,
          type: "invalid_request_error",
          code: 400,
          status: "INVALID_ARGUMENT",
        },
      },
    },
    { status: 500, errorBody: `upstream exploded; key=${key}` },
    { status: 400, errorBody: "not json at all" },
    { fault: "reset-before" },
    { fault: "reset-mid" },
    { fault: "malformed-json" },
    { fault: "truncated-sse" },
    { fault: "midstream-error" },
    { fault: "stall-mid" },
    { fault: "hang" },
    { blocks: [{ type: "tool_call", name: "weather", args: "{not json" }] },
    {
      blocks: [
        { type: "thinking", text: "hmm", signature: "sig" },
        { type: "text", text: "" },
      ],
    },
    { blocks: [], finish: "content_filter" },
    { blocks: [{ type: "text", text: "\u0000\ud800 ключ" }], usage: { input: -5, output: 1e12 } },
  ]);
}

test(`every endpoint survives ${ONLY ? ONLY.length : COUNT} fuzzed inputs (seed ${SEED})`, {
  timeout: 240_000,
}, async () => {
  const world: CaseWorld = {
    models: MODELS,
    embeddingModels: EMBEDDING_MODELS,
    keys: { payg: PAYG_KEY, sub: SUB_KEY, other: OTHER_KEY, broke: BROKE_KEY, admin: ADMIN_KEY },
  };
  const all = generateCases(SEED, ONLY ? Math.max(...ONLY) + 1 : COUNT, world);
  const cases = (ONLY ? all.filter((c) => ONLY.includes(c.id)) : all).filter((c) => !SKIP.has(c.category));
  console.log(`fuzz seed ${SEED} (FUZZ_SEED=${SEED} to repeat), ${cases.length} cases`);
  // A shorter run proves less only if it leaves a kind of input out: it must not.
  if (!ONLY) {
    const sent = new Set(cases.map((c) => c.category));
    const missing = CATEGORY_NAMES.filter((name) => !SKIP.has(name) && !sent.has(name));
    assert.deepEqual(missing, [], `categories with no case among ${cases.length}: raise FUZZ_CASES`);
  }
  const rng = new Rng(SEED ^ 0xfa017);
  let first = true;
  const report = await runFuzz({
    cases,
    seed: SEED,
    secrets: Object.values(UPSTREAM_KEYS),
    start: async () => {
      if (first) {
        first = false;
        return gw!;
      }
      gw = await spawnGateway(["serve", "--config", gw!.configFile, "--port", "0"], dir, gw!.configFile);
      return gw;
    },
    progress: process.env.FUZZ_VERBOSE ? (line) => console.log(line) : undefined,
    beforeBatch(batch) {
      for (const p of PROTOCOLS) {
        const fake = fakes.get(`x${LETTER[p]}`)!;
        fake.reset();
        fake.script(...batch.map(() => faults(rng, p)));
      }
    },
  });
  gw = report.gateway;
  const statuses = [...report.statuses].sort((a, b) => a[0] - b[0]).map(([s, n]) => `${s}×${n}`);
  console.log(
    `fuzz: ${report.sent} cases in ${Math.round(report.ms)} ms; answers ${statuses.join(" ")}; ` +
      `${report.failures.length} failure(s), ${report.crashes} crash(es), ${report.notes.length} note(s)`,
  );
  for (const { case: c, note } of report.notes.slice(0, 10))
    console.log(`note: ${note}\n    ${describeCase(c, SEED)}`);
  assert.equal(report.failures.length, 0, formatFailures(report, SEED));
});
