// `npm run bench:admin`: fills each store (SQLite, then PostgreSQL) with a million generations through
// the store's own write path (batched, settled with their finish, so the rollups are kept as in
// production), starts the gateway on it, and times the admin API's overview and usage answers over
// HTTP. The target is < 200 ms for each (BENCHMARKS.md, "Admin API on a million generations").
//
// Options: --rows N (default 1000000), --days N (30), --only sqlite|postgres, --keep (leave the files).

import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { stringify } from "yaml";
import { newGenerationId } from "../src/gateway/ids.ts";
import { openStore } from "../src/ledger/open-store.ts";
import type { GenerationEnd, GenerationStart, Rating, Store } from "../src/ledger/types.ts";
import { DEFAULT_POSTGRES_URL, prepareDatabase } from "./postgres.ts";
import { ROOT, startServer } from "./processes.ts";

const { values: opts } = parseArgs({
  options: {
    rows: { type: "string", default: "1000000" },
    days: { type: "string", default: "30" },
    only: { type: "string" },
    keep: { type: "boolean", default: false },
  },
});
const ROWS = Number(opts.rows);
const DAYS = Number(opts.days);
const ADMIN_KEY = "sk-admin-bench-0123456789abcdef";
const ACCOUNTS = 20;
const KEYS_PER_ACCOUNT = 5;
const MODELS = [
  ["openai/gpt-4.1", ["openai", "azure"]],
  ["openai/gpt-4.1-mini", ["openai"]],
  ["anthropic/claude-sonnet-4", ["anthropic", "bedrock"]],
  ["anthropic/claude-haiku-4", ["anthropic"]],
  ["google/gemini-2.5-pro", ["google"]],
  ["google/gemini-2.5-flash", ["google"]],
  ["local/echo-1", ["local"]],
  ["local/think-1", ["local"]],
] as const;

/** A small deterministic generator, so two runs fill the same ledger. */
function random(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

/** Exact USD text of a count of 10^-12 dollars. */
function usdOf(picoDollars: bigint): string {
  const text = picoDollars.toString().padStart(13, "0");
  return `${text.slice(0, -12)}.${text.slice(-12)}`;
}

/** $2 per million prompt tokens, $8 per million completion tokens: exact decimals the rollups must sum. */
function ratingOf(prompt: number, completion: number): Rating {
  const promptCost = BigInt(prompt) * 2_000_000n;
  const completionCost = BigInt(completion) * 8_000_000n;
  const item = (feeItemCode: string, rate: string, amount: bigint) => ({
    feeItemCode,
    rate,
    originAmount: usdOf(amount),
    discountAmount: "0",
    billAmount: usdOf(amount),
  });
  const total = usdOf(promptCost + completionCost);
  return {
    usage: total,
    billAmount: total,
    discountAmount: "0",
    originAmount: total,
    priceVersion: "bench",
    ratingDetails: [item("prompt", "0.000002", promptCost), item("completion", "0.000008", completionCost)],
  };
}

/** Fills the store; returns rows per second. */
async function fill(store: Store): Promise<number> {
  const next = random(42);
  const now = Date.now();
  for (let a = 0; a < ACCOUNTS; a++) await store.accounts.upsertAccount(`acct-${a}`, { balance: "1000000" });
  const started = performance.now();
  const CHUNK = 5_000;
  for (let done = 0; done < ROWS; done += CHUNK) {
    const writes: Promise<void>[] = [];
    for (let i = done; i < Math.min(ROWS, done + CHUNK); i++) {
      // Spread over the days, older first, so ids rise with time as in production.
      const createdAt = now - DAYS * 86_400_000 + Math.floor((i / ROWS) * DAYS * 86_400_000);
      const account = Math.floor(next() * ACCOUNTS);
      const [model, providers] = MODELS[Math.floor(next() * MODELS.length)];
      const prompt = 50 + Math.floor(next() * 4000);
      const completion = 10 + Math.floor(next() * 800);
      const failed = next() < 0.02;
      const rating = ratingOf(prompt, completion);
      const start: GenerationStart = {
        id: newGenerationId(createdAt),
        accountId: `acct-${account}`,
        keyId: `key_${account}_${Math.floor(next() * KEYS_PER_ACCOUNT)}`,
        api: "chat.completions",
        model,
        streamed: next() < 0.7,
        createdAt,
      };
      const end: GenerationEnd = {
        id: start.id,
        status: failed ? "failed" : "completed",
        provider: providers[Math.floor(next() * providers.length)],
        usage: {
          promptTokens: prompt,
          cacheReadTokens: Math.floor(prompt * next() * 0.5),
          cacheWrite5mTokens: 0,
          cacheWrite1hTokens: 0,
          completionTokens: completion,
          reasoningTokens: Math.floor(completion * next() * 0.3),
          webSearchRequests: 0,
        },
        latencyMs: Math.floor(100 + next() ** 3 * 5000),
        generationTimeMs: Math.floor(next() * 20_000),
        requestRetryTimes: 0,
        finalRetry: true,
        completedAt: createdAt + 1000,
        settlement: failed ? undefined : { rating },
      };
      writes.push(store.recordGeneration(start, end));
    }
    await Promise.all(writes);
    if ((done / CHUNK) % 20 === 0) process.stderr.write(`  ${done + CHUNK} rows\r`);
  }
  await store.flush();
  return ROWS / ((performance.now() - started) / 1000);
}

async function time(url: string, path: string): Promise<{ median: number; max: number; body: any }> {
  const samples: number[] = [];
  let body: any;
  for (let i = 0; i < 12; i++) {
    const t0 = performance.now();
    const res = await fetch(`${url}/api/v1/admin${path}`, {
      headers: { authorization: `Bearer ${ADMIN_KEY}` },
    });
    body = await res.json();
    if (res.status !== 200) throw new Error(`${path}: ${res.status} ${JSON.stringify(body)}`);
    if (i >= 2) samples.push(performance.now() - t0); // the first two warm the caches
  }
  samples.sort((a, b) => a - b);
  return { median: samples[Math.floor(samples.length / 2)], max: samples[samples.length - 1], body };
}

const QUERIES = [
  "/overview",
  "/usage?group_by=day",
  "/usage?group_by=model",
  "/usage?group_by=provider",
  "/usage?group_by=key",
  "/usage?group_by=account",
  "/usage?group_by=model&account=acct-3",
  "/generations?limit=50",
  "/generations?limit=50&account=acct-3&model=local/echo-1",
];

async function run(name: string, url: string, dir: string): Promise<string[]> {
  process.stderr.write(`${name}: filling ${ROWS} generations over ${DAYS} days…\n`);
  const store = openStore(url);
  await store.migrate();
  const rate = await fill(store);
  await store.close();
  process.stderr.write(`${name}: ${Math.round(rate)} rows/s; starting the gateway\n`);
  const config = join(dir, `${name}.yaml`);
  writeFileSync(config, stringify({ storage: { url }, admin: { keys: [ADMIN_KEY] } }));
  const gateway = await startServer(
    name,
    [join(ROOT, "src/cli/main.ts"), "serve", "--config", config, "--port", "0"],
    {
      cwd: dir,
    },
  );
  const lines = [`${name}: filled at ${Math.round(rate).toLocaleString("en-US")} generations/s`];
  try {
    for (const path of QUERIES) {
      const { median, max, body } = await time(gateway.url, path);
      const requests = body.total?.requests ?? body.data?.length;
      lines.push(
        `  ${path.padEnd(58)} median ${median.toFixed(1).padStart(6)} ms  max ${max.toFixed(1).padStart(6)} ms  (${requests} ${body.total ? "requests" : "rows"})`,
      );
    }
  } finally {
    await gateway.stop();
  }
  return lines;
}

const dir = mkdtempSync(join(tmpdir(), "switchyard-bench-admin-"));
const report: string[] = [];
try {
  if (opts.only !== "postgres")
    report.push(...(await run("sqlite", `sqlite:${join(dir, "ledger.db")}`, dir)));
  if (opts.only !== "sqlite") {
    const db = await prepareDatabase(process.env.SWITCHYARD_BENCH_PG_URL ?? DEFAULT_POSTGRES_URL);
    if ("unavailable" in db) report.push(`postgres: skipped, ${db.unavailable}`);
    else {
      try {
        report.push(...(await run("postgres", db.url, dir)));
      } finally {
        if (!opts.keep) await db.drop();
      }
    }
  }
} finally {
  if (!opts.keep) rmSync(dir, { recursive: true, force: true });
}
process.stdout.write(`${report.join("\n")}\n`);
