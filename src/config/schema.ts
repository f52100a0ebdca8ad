// The schema of the whole configuration file. Shapes, types, ranges, fixed defaults and unknown keys
// are decided here; load.ts adds only what needs outside knowledge (the built-in providers and
// catalog). docs/configuration.md is generated from the descriptions here (`npm run docs:config`),
// and a test fails when the two differ.

import { z } from "zod";
import { modelRecordSchema, routingDefaultsShape } from "../catalog/schema.ts";
import { flag, int, notAMapping, requiredOr, text } from "../catalog/schema-kit.ts";
import { SUPPORTED_VERSION } from "../protocols/anthropic/headers.ts";
import { DEFAULT_HEALTH } from "../routing/settings.ts";
import { DEFAULT_HTTP2_MAX_STREAMS, DEFAULT_TIMEOUTS } from "./providers.ts";

export const DEFAULT_STORAGE_URL = "sqlite:./.switchyard/switchyard.db";

const section = <T extends z.core.$ZodLooseShape>(shape: T) =>
  z.strictObject(shape, { error: notAMapping("must be a mapping") });

const server = section({
  host: text().default("127.0.0.1").meta({ description: "Listen address (`--host` overrides)." }),
  port: int({ min: 0, max: 65535 })
    .default(8080)
    .meta({ description: "Listen port; `0` picks a free one (`--port` overrides)." }),
  body_limit_bytes: int({ min: 1 })
    .default(32 * 1024 * 1024)
    .meta({ description: "Larger request bodies get a 413 in the caller's protocol." }),
});

const encryptionKey = z.string().refine((key) => Buffer.from(key, "base64").length === 32, {
  error: "must be 32 bytes, base64 (`openssl rand -base64 32`)",
});

const storage = section({
  url: z
    .string()
    .refine((url) => /^(sqlite:|postgres(ql)?:\/\/)/.test(url), {
      error: (issue) => `must start with sqlite: or postgres:// (got "${String(issue.input)}")`,
    })
    .default(DEFAULT_STORAGE_URL)
    .meta({ description: "`sqlite:PATH`, `sqlite::memory:` or `postgres://…`." }),
  retention_days: int({ min: 1 })
    .optional()
    .meta({
      description:
        "Raw generation rows older than this many days are deleted, in small batches off the request path; " +
        "the per-day rollups the usage API and dashboard read are kept. A deleted generation's lookup is a 404.",
      defaultText: "kept forever",
    }),
  responses_retention_days: int({ min: 1 })
    .default(30)
    .meta({
      description:
        "Stored responses (the Responses API's `store`, docs/responses.md) older than this many days are " +
        "deleted, in small batches off the request path.",
    }),
  encryption_key: z
    .union([encryptionKey, z.array(encryptionKey).min(1)])
    .optional()
    .meta({
      description:
        "32 bytes, base64, or a list of them: stored responses are encrypted at rest with AES-256-GCM. " +
        "The first key encrypts; every key listed decrypts (rotation).",
      type: "string or list of strings",
      defaultText: "stored responses kept in clear (serve says so at start)",
    }),
});

const redis = section({
  url: z
    .string()
    .refine((url) => url === "" || /^rediss?:\/\//.test(url), {
      error: (issue) => `must start with redis:// (got "${String(issue.input)}")`,
    })
    .optional()
    .meta({
      description:
        "`redis://…`: round-robin turns, endpoint statistics, breakers and key limits shared by every process that names " +
        "the same Redis; while Redis is unreachable each process routes on its own memory. Empty (an unset " +
        "`${VAR}`): no Redis.",
    }),
  prefix: text()
    .default("switchyard:")
    .meta({
      description:
        "Prefix of every Redis key this deployment writes (routing state, key limits); gateways that share " +
        "them share it, deployments on one Redis each need their own.",
    }),
});

const logging = section({
  level: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).optional().meta({
    description:
      "Log level. `info` adds one JSON line per inference request (docs/operations.md#request-logs).",
    defaultText: "`SWITCHYARD_LOG_LEVEL`, else `warn`",
  }),
});

const telemetry = section({
  otlp: section({
    endpoint: z
      .string()
      .regex(/^https?:\/\//, { error: "must be an http(s) URL" })
      .meta({
        description:
          "The collector's OTLP/HTTP address (`http://collector:4318`; `/v1/traces` is added unless given). " +
          "Traces are exported as OTLP JSON.",
      }),
    headers: z.record(z.string(), z.string()).default({}).meta({
      description: "Headers sent with each export (an `authorization` a collector asks for).",
      type: "mapping of strings",
    }),
  })
    .optional()
    .meta({
      description:
        "Export OpenTelemetry traces of inference requests (docs/operations.md#traces). Off when absent.",
    }),
  service_name: text().default("switchyard").meta({ description: "The traces' `service.name`." }),
});

const billing = section({
  settle_delay_ms: int({ min: 0 })
    .default(0)
    .meta({ description: "Delay before a finished generation is rated and the account debited." }),
  price_version: text()
    .default("builtin")
    .meta({ description: "Name of the price list, reported as `priceVersion`." }),
});

const clients = section({
  anthropic_versions: z
    .array(
      z
        .string({ error: requiredOr("must be a version date YYYY-MM-DD") })
        .regex(/^\d{4}-\d{2}-\d{2}$/, { error: "must be a version date YYYY-MM-DD" })
        .refine((version) => version > SUPPORTED_VERSION, {
          error: `must be newer than ${SUPPORTED_VERSION}, which is always served`,
        }),
    )
    .default([])
    .meta({
      description:
        `\`anthropic-version\` values accepted on \`POST /v1/messages\` besides \`${SUPPORTED_VERSION}\`, and served ` +
        `with its semantics (an Anthropic upstream is still called with \`${SUPPORTED_VERSION}\`): \`[2026-10-21]\` ` +
        "lets the unmodified `@anthropic-ai/sdk` 1.x in. Any other version is a 400 naming the fix.",
      type: "list of dates",
    }),
});

const timeout = (ms: number, description: string) => int({ min: 1 }).default(ms).meta({ description });

const provider = z.strictObject(
  {
    id: text().meta({
      description: "Provider id, used by model endpoints and `provider.routing.providers`.",
    }),
    protocol: z
      .enum(["openai", "openai-responses", "anthropic", "gemini", "local"])
      .optional()
      .meta({
        description:
          "`openai` (chat-completions: any OpenAI-compatible vendor), `openai-responses` (OpenAI's Responses " +
          "API, `POST {base_url}/responses`; `{ id: openai, protocol: openai-responses }` switches the built-in " +
          "OpenAI provider to it), `anthropic`, `gemini` or `local` (the demo models). " +
          "Required for a provider that is not built in, unless it has a `platform` (which replaces it).",
        defaultText: "the built-in's",
      }),
    platform: z
      .enum(["aws-bedrock", "google-vertex", "azure-openai"])
      .optional()
      .meta({
        description:
          "A cloud platform instead of a `protocol` (docs/clouds.md): it picks the URLs, the wire protocol of each " +
          "model family and the authentication, with credentials from the platform's standard sources.",
        defaultText: "none",
      }),
    base_url: z
      .string()
      .optional()
      .meta({
        description:
          "An http(s) URL as the official SDK takes it: OpenAI's includes `/v1`, Anthropic's and Gemini's do not. " +
          "Required for a provider that is not built in, unless `local`; with `platform`: required for " +
          "`azure-openai` (`https://RESOURCE.openai.azure.com`), else made from `region` or `location`.",
        defaultText: "the built-in's",
      }),
    api_key: z
      .string()
      .optional()
      .meta({
        description:
          "Sent as `Authorization: Bearer` (openai, openai-responses), `x-api-key` (anthropic), `x-goog-api-key` (gemini), " +
          "`api-key` (`azure-openai`; absent: an Entra ID token), `Authorization: Bearer` (`aws-bedrock`: a Bedrock API " +
          "key, instead of `AWS_BEARER_TOKEN_BEDROCK`). Empty: the built-in's environment variable.",
        defaultText: "from the environment",
      }),
    region: text()
      .optional()
      .meta({ description: "`aws-bedrock`, required: the AWS region (`us-east-1`).", defaultText: "none" }),
    project: text()
      .optional()
      .meta({ description: "`google-vertex`, required: the Google Cloud project id.", defaultText: "none" }),
    location: text().optional().meta({
      description:
        "`google-vertex`, required: the Vertex AI location (`us-east5`, `europe-west1`, `global`).",
      defaultText: "none",
    }),
    api_version: text()
      .optional()
      .meta({
        description:
          "`azure-openai`: call the deployments API (`/openai/deployments/{deployment}/…?api-version=`) with this " +
          "version; absent: the v1 API (`/openai/v1/…`, the model field being the deployment name).",
        defaultText: "the v1 API",
      }),
    aws: section({
      access_key_id: text()
        .optional()
        .meta({ description: "With `secret_access_key`: used instead of the default chain." }),
      secret_access_key: text().optional().meta({ description: "The secret of `access_key_id`." }),
      session_token: text().optional().meta({ description: "The session token of temporary credentials." }),
      profile: text()
        .optional()
        .meta({ description: "A profile of the shared AWS config and credentials files." }),
    })
      .optional()
      .meta({
        description:
          "`aws-bedrock`: credentials named in the file, which win over the environment. Absent: " +
          "`AWS_BEARER_TOKEN_BEDROCK` (a Bedrock API key) when set, else the AWS default credential chain.",
        defaultText: "the default chain",
      }),
    google: section({
      credentials_file: text().optional().meta({
        description:
          "A service-account or authorized-user JSON file, instead of Application Default Credentials.",
      }),
    })
      .optional()
      .meta({
        description: "`google-vertex`: where its access tokens come from.",
        defaultText: "Application Default Credentials",
      }),
    enabled: flag().optional().meta({
      description:
        "`false` switches a provider off (also `local`); a remote provider without a key stays off.",
      defaultText: "true when it has a key (`local`: true)",
    }),
    timeouts: section({
      connect_ms: timeout(DEFAULT_TIMEOUTS.connectMs, "To open the connection."),
      first_byte_ms: timeout(DEFAULT_TIMEOUTS.firstByteMs, "To a stream's first byte."),
      request_ms: timeout(
        DEFAULT_TIMEOUTS.requestMs,
        "To a whole, non-streamed answer, which comes only when the generation is done.",
      ),
      idle_ms: timeout(DEFAULT_TIMEOUTS.idleMs, "Between a stream's chunks."),
    }).prefault({}),
    chunk_delay_ms: int({ min: 0, max: 60_000 })
      .optional()
      .meta({ description: "`local` only: pause between streamed pieces.", default: 0 }),
    http2: flag()
      .default(false)
      .meta({
        description:
          "Call this upstream over HTTP/2, many streams to a connection (docs/operations.md#http2-upstreams): " +
          "an `https` base URL offers h2 by ALPN and keeps HTTP/1.1 if the server does not take it; an `http` " +
          "one speaks h2c with prior knowledge, so the server must speak it (vLLM and most OpenAI-compatible " +
          "servers do not). Off: HTTP/1.1, one connection per request in flight.",
      }),
    http2_max_streams: int({ min: 1, max: 1000 })
      .optional()
      .meta({
        description:
          "With `http2`: the most streams one connection carries at once (fewer if the server allows fewer); a " +
          "further request opens another connection.",
        default: DEFAULT_HTTP2_MAX_STREAMS,
      }),
    max_tokens_field: z
      .enum(["max_completion_tokens", "max_tokens"])
      .optional()
      .meta({
        description:
          "`openai` protocol: the field that carries the output limit upstream. OpenAI's reasoning models " +
          "refuse `max_tokens`; Mistral refuses `max_completion_tokens`.",
        defaultText:
          "`max_tokens` for the built-in deepseek, mistral and together; else `max_completion_tokens`",
      }),
    stream_usage: z
      .enum(["stream_options", "always"])
      .optional()
      .meta({
        description:
          "`openai` protocol: how a stream's usage is had from the upstream. `stream_options`: asked for with " +
          "`stream_options.include_usage` (OpenAI's way). `always`: the upstream reports it in its last chunk " +
          "unasked and refuses `stream_options` (Mistral answers it with a 422), so it is not sent.",
        defaultText: "`always` for the built-in mistral; else `stream_options`",
      }),
    request_fields: z
      .enum(["any", "mistral", "groq", "deepseek", "openai"])
      .optional()
      .meta({
        description:
          "`openai` protocol: which request members the upstream takes. `any`: every member OpenAI defines " +
          "(OpenAI and most compatible vendors ignore what they do not use). `mistral`: only the members of " +
          "Mistral's API, which answers any other with a 422; `seed` is sent as `random_seed`, and what is " +
          "left out (`user`, `logprobs`, `verbosity`, `web_search_options`, …) is named in `x-switchyard-ignored`. " +
          "`groq`: all but those Groq answers with a 400 (`logprobs`, `top_logprobs`, `logit_bias`, `messages[].name`). " +
          "`deepseek`: every member, and an assistant turn's reasoning goes back as `reasoning_content`, which " +
          "DeepSeek's thinking mode requires after tool calls. `openai`: every member, but a reasoning model " +
          "(the catalog's `reasoning`) is sent `temperature`, `top_p`, the penalties and `logprobs` only at their " +
          "defaults unless the effort sent is `none` (OpenAI answers others with a 400); what is left out is named.",
        defaultText: "the built-in openai, mistral, groq and deepseek: their own; else `any`",
      }),
  },
  { error: notAMapping("must be a mapping (a provider)") },
);

const health = section({
  failure_threshold: int({ min: 1 })
    .default(DEFAULT_HEALTH.failureThreshold)
    .meta({ description: "Consecutive failures that open an endpoint's circuit breaker." }),
  cooldown_ms: int({ min: 1 }).default(DEFAULT_HEALTH.cooldownMs).meta({
    description: "How long an open breaker keeps traffic away before one probe request is let through.",
  }),
  stats_ttl_ms: int({ min: 1 })
    .default(DEFAULT_HEALTH.statsTtlMs)
    .meta({ description: "Latency statistics older than this no longer count." }),
});

const routing = section({ ...routingDefaultsShape, health: health.prefault({}) });

const decimal = (description: string) =>
  z
    .union([z.number(), z.string()], { error: requiredOr("must be a decimal number") })
    .transform(String)
    .pipe(z.string().regex(/^\d+(\.\d+)?$/, { error: "must be a decimal number ≥ 0" }))
    .meta({ description, type: "decimal number" });

/** A key's limits and budget: in the file, and in the admin API's new key (src/admin/routes.ts). */
export const keyLimits = section({
  rpm: int({ min: 1 }).optional().meta({ description: "Requests per minute." }),
  tpm: int({ min: 1 }).optional().meta({
    description: "Tokens (prompt + output) per minute: admitted on an estimate, settled on the real usage.",
  }),
  concurrency: int({ min: 1 }).optional().meta({ description: "Requests in flight at once." }),
});

export const keyBudget = section({
  usd: decimal("The most the key may spend (its settled cost) in the period, USD."),
  period: z
    .enum(["day", "month", "total"])
    .meta({ description: "`day` and `month` are UTC calendar days and months; `total` never resets." }),
});

const key = z.strictObject(
  {
    key: z
      .string()
      .min(8, { error: "must be at least 8 characters" })
      .meta({ description: "The key; stored hashed. One starting `sk-ss-v1-` is a subscription key." }),
    account: text().meta({ description: "The account it belongs to (created if new)." }),
    credits: z
      .union([z.number(), z.string()], { error: requiredOr("must be a decimal number") })
      .transform(String)
      .pipe(z.string().regex(/^-?\d+(\.\d+)?$/, { error: "must be a decimal number" }))
      .optional()
      .meta({ description: "Credits (USD) to add when the account is created.", type: "decimal number" }),
    name: z.string().optional().meta({ description: "A label for listings." }),
    limits: keyLimits.optional().meta({
      description: "Rate limits, each absent one unlimited (docs/operations.md#limits-and-budgets).",
    }),
    budget: keyBudget
      .optional()
      .meta({ description: "A spending cap: requests are refused once it is spent." }),
  },
  { error: notAMapping("must be a mapping {key, account, credits?, name?, limits?, budget?}") },
);

const admin = section({
  keys: z
    .array(
      z.string({ error: requiredOr("must be a string") }).refine((key) => key === "" || key.length >= 16, {
        error: "must be at least 16 characters",
      }),
    )
    .default([])
    .meta({
      description:
        "Admin keys (stored hashed) for `/api/v1/admin/` and the dashboard at `/dashboard`. An admin key " +
        "cannot call inference and an API key cannot call the admin API. An empty `${VAR}` is ignored.",
      type: "list of strings",
    }),
});

export const configSchema = z.strictObject(
  {
    server: server.prefault({}),
    storage: storage.prefault({}),
    redis: redis.optional(),
    logging: logging.prefault({}),
    telemetry: telemetry.prefault({}),
    billing: billing.prefault({}),
    clients: clients.prefault({}),
    providers: z
      .array(provider)
      .optional()
      .meta({ description: "Merged over the built-in providers by `id`.", defaultText: "the built-ins" }),
    models: z.array(modelRecordSchema).optional().meta({
      description:
        "Merged over the built-in catalog by `id`; the fields are those of a model record (below).",
      type: "list of model records",
      defaultText: "the built-in catalog",
    }),
    routing: routing.prefault({}).meta({
      description:
        "Routing default for every model: the fields of `provider.routing`. A model's own `routing` and then " +
        "the request override it field by field.",
    }),
    keys: z
      .array(key)
      .default([])
      .meta({ description: "Bootstrap keys; more with `switchyard keys create`." }),
    admin: admin.prefault({}),
  },
  { error: notAMapping("must be a mapping") },
);

export type ConfigFile = z.output<typeof configSchema>;
