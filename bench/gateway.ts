// The gateway under test, started the way a user starts it (`switchyard serve --config FILE
// --port 0`) in its own process, configured with the fake upstream as an OpenAI-protocol provider,
// as an Anthropic-protocol provider and as an AWS Bedrock platform.

import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { stringify } from "yaml";
import { ROOT, type Server, startServer } from "./processes.ts";

export const BENCH_KEY = "sk-bench-0123456789";
/** The key the upstream is configured with; the bare proxy's clients send it themselves. */
export const UPSTREAM_KEY = "k";

/** Catalog ids served by the fake upstream, and the names the upstream sees. */
export const MODELS = {
  /** chat-completions upstream */
  chat: { id: "fake/m", upstream: "m" },
  /** messages upstream */
  messages: { id: "fakea/ma", upstream: "ma" },
  /** the same two upstreams, writing each whole stream at once (see servers/upstream.ts) */
  chatBurst: { id: "fake/m-burst", upstream: "m-burst" },
  messagesBurst: { id: "fakea/ma-burst", upstream: "ma-burst" },
  /** chat-completions upstream that sends one chunk, then holds the stream open */
  hold: { id: "fake/hold", upstream: "hold" },
  /** Claude on a Bedrock provider (SigV4-signed InvokeModelWithResponseStream, event-stream frames) */
  bedrock: { id: "bedrock/ma", upstream: "anthropic.ma" },
  /** the chat upstream's `/embeddings` (an embedding model of the catalog) */
  embed: { id: "fake/embed", upstream: "embed" },
};

function model(id: string, provider: string, upstream: string) {
  return {
    id,
    display_name: id,
    created: "2025-01-01",
    input_modalities: ["text"],
    output_modalities: ["text"],
    context_length: 100_000,
    max_output_tokens: 4096,
    pricings: {
      prompt: [{ value: 1, unit: "perMTokens", currency: "USD" }],
      completion: [{ value: 2, unit: "perMTokens", currency: "USD" }],
    },
    endpoints: [{ provider, model: upstream }],
  };
}

/** `http2`: the upstream speaks h2c (servers/upstream.ts --h2c), and the providers call it so. */
export function gatewayConfig(
  upstreamUrl: string,
  storageUrl: string,
  opts: { http2?: boolean } = {},
): Record<string, unknown> {
  const http2 = opts.http2 ? { http2: true } : {};
  return {
    storage: { url: storageUrl },
    billing: { settle_delay_ms: 0 },
    providers: [
      { id: "fake", protocol: "openai", base_url: `${upstreamUrl}/v1`, api_key: UPSTREAM_KEY, ...http2 },
      { id: "fakea", protocol: "anthropic", base_url: upstreamUrl, api_key: UPSTREAM_KEY, ...http2 },
      // Static credentials: every call is signed, none is fetched (the bench measures the signing).
      {
        id: "bedrock",
        platform: "aws-bedrock",
        region: "us-east-1",
        base_url: upstreamUrl,
        aws: { access_key_id: "AKIDBENCH0123456789", secret_access_key: "bench-secret-access-key" },
      },
    ],
    models: [
      model(MODELS.chat.id, "fake", MODELS.chat.upstream),
      model(MODELS.messages.id, "fakea", MODELS.messages.upstream),
      model(MODELS.chatBurst.id, "fake", MODELS.chatBurst.upstream),
      model(MODELS.messagesBurst.id, "fakea", MODELS.messagesBurst.upstream),
      model(MODELS.hold.id, "fake", MODELS.hold.upstream),
      model(MODELS.bedrock.id, "bedrock", MODELS.bedrock.upstream),
      {
        ...model(MODELS.embed.id, "fake", MODELS.embed.upstream),
        output_modalities: ["embeddings"],
        pricings: { prompt: [{ value: 0.02, unit: "perMTokens", currency: "USD" }] },
      },
    ],
    keys: [{ key: BENCH_KEY, account: "bench", credits: 1_000_000 }],
  };
}

/** `storage` is a storage URL, or "sqlite" for a fresh SQLite file in a temporary directory. */
export async function startGateway(
  upstreamUrl: string,
  storage: string,
  opts: { nodeFlags?: string[]; name?: string; workers?: number; cpus?: number[]; http2?: boolean } = {},
): Promise<Server & { dir: string }> {
  const dir = mkdtempSync(join(tmpdir(), "switchyard-bench-"));
  const storageUrl = storage === "sqlite" ? `sqlite:${join(dir, "switchyard.db")}` : storage;
  const configFile = join(dir, "switchyard.yaml");
  writeFileSync(configFile, stringify(gatewayConfig(upstreamUrl, storageUrl, { http2: opts.http2 })));
  const server = await startServer(
    opts.name ?? "gateway",
    [
      join(ROOT, "src/cli/main.ts"),
      "serve",
      "--config",
      configFile,
      "--port",
      "0",
      ...(opts.workers ? ["--workers", String(opts.workers)] : []),
    ],
    { nodeFlags: opts.nodeFlags, cwd: dir, env: withoutProviderKeys(), cpus: opts.cpus },
  );
  return { ...server, dir };
}

/** Provider keys in the bench's environment must not switch on real providers. */
function withoutProviderKeys(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const name of Object.keys(process.env)) if (/_API_KEY$/.test(name)) env[name] = "";
  return env;
}
