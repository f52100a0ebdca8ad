// Loads the YAML configuration: `${VAR}` substitution, then the schema of schema.ts (shapes, types,
// ranges, unknown keys at any depth), then the rules that need the built-in providers and catalog.
// Every problem is one ConfigError naming the file, the key path and what is wrong; the CLI prints
// it and exits 2. This runs once at start-up, never on the request path.

import { readFileSync } from "node:fs";
import { parse as parseYaml } from "yaml";
import type { BootstrapKey } from "../auth/bootstrap.ts";
import { hashKey } from "../auth/keys.ts";
import { CatalogError, loadBuiltinCatalog, mergeRecords } from "../catalog/load.ts";
import { closestKey, parseWith } from "../catalog/schema-kit.ts";
import type { CatalogModel } from "../catalog/types.ts";
import type { RequestFields } from "../protocols/openai-chat/request-fields.ts";
import type { RoutingSettings } from "../routing/settings.ts";
import { platformOf } from "./platforms.ts";
import { DEFAULT_HTTP2_MAX_STREAMS, type ProviderConfig, providersFromEnv } from "./providers.ts";
import { type ConfigFile, configSchema } from "./schema.ts";

export interface Config {
  server: { host: string; port: number; bodyLimitBytes: number };
  storage: {
    url: string;
    retentionDays?: number;
    /** Days a stored response is kept (docs/responses.md). */
    responsesRetentionDays: number;
    /** Base64 keys sealing stored responses, the first sealing; empty: kept in clear. */
    encryptionKeys: string[];
  };
  redis?: { url: string; prefix: string };
  /** Log level; undefined: `SWITCHYARD_LOG_LEVEL`, else warn. */
  logging: { level?: string };
  /** Where traces are exported; undefined: no tracing. */
  telemetry?: { endpoint: string; headers: Record<string, string>; serviceName: string };
  billing: { settleDelayMs: number; priceVersion: string };
  /** What client faces accept beyond the API's rules, for current SDKs (docs/architecture.md §9). */
  clients: { anthropicVersions: string[] };
  providers: ProviderConfig[];
  /** The built-in catalog with the file's models merged over it. */
  models: CatalogModel[];
  keys: BootstrapKey[];
  /** sha256 of each admin key (src/auth/admin.ts); the keys themselves are not kept. */
  admin: { keyHashes: string[] };
  /** The `routing` section: routing defaults for every model, and health rules. */
  routing?: RoutingSettings;
  /** True when no file was given: the embedded default prints a demo key. */
  embeddedDefault: boolean;
}

export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ConfigError";
  }
}

export function loadConfig(file: string | undefined, env: NodeJS.ProcessEnv = process.env): Config {
  if (file === undefined) return defaultConfig(env);
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (err) {
    throw new ConfigError(
      `${file}: cannot read the file (${(err as NodeJS.ErrnoException).code ?? String(err)})`,
    );
  }
  let raw: unknown;
  try {
    raw = parseYaml(text);
  } catch (err) {
    throw new ConfigError(`${file}: not valid YAML: ${(err as Error).message.split("\n")[0]}`);
  }
  const parsed = parseWith(configSchema, withoutEmptyKeys(substituteEnv(raw ?? {}, env)));
  if (!parsed.ok)
    throw new ConfigError(`${file}: ${parsed.problem.path || "(top level)"}: ${parsed.problem.problem}`);
  return buildConfig(parsed.value, file, env);
}

function defaultConfig(env: NodeJS.ProcessEnv): Config {
  const parsed = parseWith(configSchema, {});
  if (!parsed.ok)
    throw new Error(`the configuration schema refuses an empty file: ${parsed.problem.problem}`);
  return { ...buildConfig(parsed.value, "(default)", env), embeddedDefault: true };
}

/**
 * `${VAR}` and `${VAR:-default}` in string values (after parsing, so a value can never inject YAML).
 * An unset variable becomes "": a provider whose key is unset is then simply not enabled.
 */
function substituteEnv(value: unknown, env: NodeJS.ProcessEnv): unknown {
  if (typeof value === "string") {
    return value.replace(
      /\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g,
      (_, name: string, fallback?: string) => {
        const found = env[name];
        if (found !== undefined && found !== "") return found;
        if (fallback !== undefined) return fallback;
        return "";
      },
    );
  }
  if (Array.isArray(value)) return value.map((v) => substituteEnv(v, env));
  if (isMapping(value)) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = substituteEnv(v, env);
    return out;
  }
  return value;
}

/**
 * A key with an empty value (`server:` with everything under it commented out) counts as absent.
 * Model records are left as written: there `lt: null` means "no upper bound", as in catalog files.
 */
function withoutEmptyKeys(doc: unknown): unknown {
  if (!isMapping(doc)) return doc;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(doc))
    if (value !== null) out[key] = key === "models" ? value : dropEmpty(value);
  return out;
}

function dropEmpty(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(dropEmpty);
  if (!isMapping(value)) return value;
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value)) if (v !== null) out[key] = dropEmpty(v);
  return out;
}

function isMapping(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value) && !(value instanceof Date);
}

type Fail = (path: string, problem: string) => never;

/** The validated file → the Config everything downstream reads. */
function buildConfig(file: ConfigFile, name: string, env: NodeJS.ProcessEnv): Config {
  const fail: Fail = (path, problem) => {
    throw new ConfigError(`${name}: ${path}: ${problem}`);
  };
  const providers = buildProviders(file.providers, providersFromEnv(env), fail);
  let models = loadBuiltinCatalog();
  if (file.models !== undefined) {
    checkEndpointProviders(file.models, providers, fail);
    try {
      models = mergeRecords(models, file.models, name);
    } catch (err) {
      if (err instanceof CatalogError) throw new ConfigError(err.message);
      throw err;
    }
  }
  const { health, ...defaults } = file.routing;
  const routing: RoutingSettings = {
    defaults,
    health: {
      failureThreshold: health.failure_threshold,
      cooldownMs: health.cooldown_ms,
      statsTtlMs: health.stats_ttl_ms,
    },
  };
  return {
    server: { host: file.server.host, port: file.server.port, bodyLimitBytes: file.server.body_limit_bytes },
    storage: storageOf(file.storage),
    redis: file.redis?.url ? { url: file.redis.url, prefix: file.redis.prefix } : undefined,
    logging: { level: file.logging.level },
    telemetry: file.telemetry.otlp
      ? { ...file.telemetry.otlp, serviceName: file.telemetry.service_name }
      : undefined,
    billing: { settleDelayMs: file.billing.settle_delay_ms, priceVersion: file.billing.price_version },
    clients: { anthropicVersions: file.clients.anthropic_versions },
    providers,
    models,
    keys: file.keys,
    admin: { keyHashes: adminKeyHashes(file, fail) },
    routing,
    embeddedDefault: false,
  };
}

function storageOf(storage: ConfigFile["storage"]): Config["storage"] {
  const key = storage.encryption_key;
  const config: Config["storage"] = {
    url: storage.url,
    responsesRetentionDays: storage.responses_retention_days,
    encryptionKeys: key === undefined ? [] : typeof key === "string" ? [key] : key,
  };
  if (storage.retention_days !== undefined) config.retentionDays = storage.retention_days;
  return config;
}

/** Admin keys, hashed; one that is also an API key would be both, so it is refused. */
function adminKeyHashes(file: ConfigFile, fail: Fail): string[] {
  const apiKeys = new Set(file.keys.map((k) => k.key));
  file.admin.keys.forEach((key, i) => {
    if (apiKeys.has(key)) fail(`admin.keys[${i}]`, "is also in keys: an admin key cannot be an API key");
  });
  return file.admin.keys.filter((key) => key !== "").map(hashKey);
}

/** The file's providers merged over the built-ins by id; a new one must say how to reach it. */
function buildProviders(
  list: ConfigFile["providers"],
  builtins: ProviderConfig[],
  fail: Fail,
): ProviderConfig[] {
  const byId = new Map(builtins.map((p) => [p.id, p]));
  if (list === undefined) return builtins;
  for (const [i, p] of list.entries()) {
    const path = `providers[${i}]`;
    const known = byId.get(p.id);
    const cloud = platformOf(p, path, fail);
    const protocol = cloud.protocol ?? p.protocol ?? known?.protocol;
    if (protocol === undefined)
      fail(`${path}.protocol`, `is required for a provider Switchyard does not know ("${p.id}")`);
    const baseUrl = cloud.baseUrl ?? p.base_url ?? known?.baseUrl;
    if (protocol !== "local") {
      if (baseUrl === undefined) fail(`${path}.base_url`, "is required");
      if (!/^https?:\/\//.test(baseUrl!)) fail(`${path}.base_url`, "must be an http(s) URL");
    }
    const apiKey = p.api_key || known?.apiKey;
    // A provider in the file is on unless switched off; without a key (e.g. `${OPENAI_API_KEY}` unset)
    // a remote provider cannot be called, so it stays off rather than failing every request. A
    // platform finds its credentials itself (docs/clouds.md), so it is on.
    const enabled =
      p.enabled ??
      (protocol === "local" || cloud.platform !== undefined || (apiKey !== undefined && apiKey !== ""));
    byId.set(p.id, {
      id: p.id,
      protocol,
      baseUrl: (baseUrl ?? "local:").replace(/\/+$/, ""),
      apiKey,
      enabled,
      timeouts: {
        connectMs: p.timeouts.connect_ms,
        firstByteMs: p.timeouts.first_byte_ms,
        requestMs: p.timeouts.request_ms,
        idleMs: p.timeouts.idle_ms,
      },
      chunkDelayMs: p.chunk_delay_ms,
      ...(legacyMaxTokens(p.max_tokens_field, known) ? { legacyMaxTokens: true } : {}),
      ...(streamUsageUnasked(p.stream_usage, known) ? { streamUsageUnasked: true } : {}),
      ...requestFields(p.request_fields, known),
      ...http2Of(p, protocol, path, fail),
      ...(cloud.platform ? { platform: cloud.platform } : {}),
    });
  }
  return [...byId.values()];
}

/** `http2` and its stream limit; a limit without `http2` would silently do nothing, so it is refused. */
function http2Of(
  p: NonNullable<ConfigFile["providers"]>[number],
  protocol: string | undefined,
  path: string,
  fail: Fail,
): Pick<ProviderConfig, "http2"> {
  if (!p.http2) {
    if (p.http2_max_streams !== undefined) fail(`${path}.http2_max_streams`, "is set but http2 is not true");
    return {};
  }
  if (protocol === "local") fail(`${path}.http2`, "does not apply to the local provider (no connection)");
  return { http2: { maxStreams: p.http2_max_streams ?? DEFAULT_HTTP2_MAX_STREAMS } };
}

function legacyMaxTokens(field: string | undefined, known: ProviderConfig | undefined): boolean {
  return field === undefined ? known?.legacyMaxTokens === true : field === "max_tokens";
}

function streamUsageUnasked(way: string | undefined, known: ProviderConfig | undefined): boolean {
  return way === undefined ? known?.streamUsageUnasked === true : way === "always";
}

function requestFields(
  fields: "any" | RequestFields | undefined,
  known: ProviderConfig | undefined,
): Pick<ProviderConfig, "requestFields"> {
  const chosen = fields === undefined ? known?.requestFields : fields === "any" ? undefined : fields;
  return chosen ? { requestFields: chosen } : {};
}

/**
 * An endpoint naming a provider that exists nowhere is a typo: the model would silently never be
 * served. (One naming a known but disabled provider is fine: it is served once the key is set.)
 */
function checkEndpointProviders(
  records: NonNullable<ConfigFile["models"]>,
  providers: ProviderConfig[],
  fail: Fail,
): void {
  const ids = providers.map((p) => p.id);
  records.forEach((record, i) => {
    record.endpoints?.forEach((endpoint, j) => {
      if (ids.includes(endpoint.provider)) return;
      const near = closestKey(endpoint.provider, ids);
      fail(
        `models[${i}].endpoints[${j}].provider`,
        `no provider "${endpoint.provider}"` +
          (near ? `; did you mean ${near}?` : `; providers are ${ids.join(", ")}`),
      );
    });
  });
}
