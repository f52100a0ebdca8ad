// Loads and validates the YAML configuration (DESIGN §6). Every problem is reported as one
// ConfigError naming the file, the key path and what is wrong; the CLI prints it and exits 2.

import { readFileSync } from "node:fs";
import { parse as parseYaml } from "yaml";
import { CatalogError, loadBuiltinCatalog, mergeModels } from "../catalog/load.ts";
import type { CatalogModel } from "../catalog/types.ts";
import { DEFAULT_ROUTING, parseRoutingSettings, type RoutingSettings } from "../routing/settings.ts";
import {
  DEFAULT_TIMEOUTS,
  type ProviderConfig,
  providersFromEnv,
  type UpstreamProtocol,
} from "./providers.ts";

export interface BootstrapKey {
  key: string;
  account: string;
  credits?: string;
  name?: string;
}

export interface Config {
  server: { host: string; port: number; bodyLimitBytes: number };
  storage: { url: string };
  redis?: { url: string };
  billing: { settleDelayMs: number; priceVersion: string };
  providers: ProviderConfig[];
  /** The built-in catalog with the file's models merged over it. */
  models: CatalogModel[];
  keys: BootstrapKey[];
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

export const DEFAULT_STORAGE_URL = "sqlite:./.switchyard/switchyard.db";
const PROTOCOLS: UpstreamProtocol[] = ["openai", "openai-responses", "anthropic", "gemini", "local"];
const TOP_LEVEL_KEYS = ["server", "storage", "redis", "billing", "providers", "models", "routing", "keys"];

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
  return buildConfig(substituteEnv(raw ?? {}, env), file, env);
}

function defaultConfig(env: NodeJS.ProcessEnv): Config {
  return {
    server: { host: "127.0.0.1", port: 8080, bodyLimitBytes: 32 * 1024 * 1024 },
    storage: { url: DEFAULT_STORAGE_URL },
    billing: { settleDelayMs: 0, priceVersion: "builtin" },
    providers: providersFromEnv(env),
    models: loadBuiltinCatalog(),
    keys: [],
    routing: DEFAULT_ROUTING,
    embeddedDefault: true,
  };
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
  if (value && typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = substituteEnv(v, env);
    return out;
  }
  return value;
}

type Obj = Record<string, unknown>;

function buildConfig(raw: unknown, file: string, env: NodeJS.ProcessEnv): Config {
  const fail = (path: string, problem: string): never => {
    throw new ConfigError(`${file}: ${path}: ${problem}`);
  };
  const root = asObject(raw, "(top level)", fail);
  for (const key of Object.keys(root)) {
    if (!TOP_LEVEL_KEYS.includes(key))
      fail(key, `unknown key (expected one of ${TOP_LEVEL_KEYS.join(", ")})`);
  }
  const base = defaultConfig(env);

  const server = optionalObject(root.server, "server", fail);
  const host = optionalString(server.host, "server.host", fail) ?? base.server.host;
  const port = optionalInt(server.port, "server.port", fail, 0, 65535) ?? base.server.port;
  const bodyLimitBytes =
    optionalInt(server.body_limit_bytes, "server.body_limit_bytes", fail, 1) ?? base.server.bodyLimitBytes;

  const storage = optionalObject(root.storage, "storage", fail);
  const storageUrl = optionalString(storage.url, "storage.url", fail) ?? DEFAULT_STORAGE_URL;
  if (!/^(sqlite:|postgres(ql)?:\/\/)/.test(storageUrl))
    fail("storage.url", `must start with sqlite: or postgres:// (got "${storageUrl}")`);

  let redis: Config["redis"];
  if (root.redis !== undefined) {
    const r = asObject(root.redis, "redis", fail);
    const url = optionalString(r.url, "redis.url", fail);
    if (url) {
      if (!/^rediss?:\/\//.test(url)) fail("redis.url", `must start with redis:// (got "${url}")`);
      redis = { url };
    }
  }

  const billing = optionalObject(root.billing, "billing", fail);
  const settleDelayMs = optionalInt(billing.settle_delay_ms, "billing.settle_delay_ms", fail, 0) ?? 0;
  const priceVersion = optionalString(billing.price_version, "billing.price_version", fail) ?? "builtin";

  const providers = buildProviders(root.providers, base.providers, fail);

  let models = base.models;
  if (root.models !== undefined) {
    try {
      models = mergeModels(base.models, root.models, file);
    } catch (err) {
      if (err instanceof CatalogError) throw new ConfigError(err.message);
      throw err;
    }
  }

  const keys = buildKeys(root.keys, fail);
  const routing = parseRoutingSettings(root.routing, fail);
  return {
    server: { host, port, bodyLimitBytes },
    storage: { url: storageUrl },
    redis,
    billing: { settleDelayMs, priceVersion },
    providers,
    models,
    keys,
    routing,
    embeddedDefault: false,
  };
}

type Fail = (path: string, problem: string) => never;

function buildProviders(raw: unknown, builtins: ProviderConfig[], fail: Fail): ProviderConfig[] {
  const byId = new Map(builtins.map((p) => [p.id, p]));
  if (raw === undefined) return builtins;
  const list = asArray(raw, "providers", fail);
  list.forEach((item, i) => {
    const path = `providers[${i}]`;
    const p = asObject(item, path, fail);
    const id = requiredString(p.id, `${path}.id`, fail);
    const known = byId.get(id);
    const protocol = (optionalString(p.protocol, `${path}.protocol`, fail) ??
      known?.protocol) as UpstreamProtocol;
    if (protocol === undefined)
      fail(`${path}.protocol`, `is required for a provider Switchyard does not know ("${id}")`);
    if (!PROTOCOLS.includes(protocol)) fail(`${path}.protocol`, `must be one of ${PROTOCOLS.join(", ")}`);
    const baseUrl = optionalString(p.base_url, `${path}.base_url`, fail) ?? known?.baseUrl;
    if (baseUrl === undefined && protocol !== "local") fail(`${path}.base_url`, "is required");
    if (protocol !== "local" && !/^https?:\/\//.test(baseUrl!))
      fail(`${path}.base_url`, "must be an http(s) URL");
    const apiKey = optionalString(p.api_key, `${path}.api_key`, fail) || known?.apiKey;
    const enabledFlag = p.enabled === undefined ? undefined : asBoolean(p.enabled, `${path}.enabled`, fail);
    const t = optionalObject(p.timeouts, `${path}.timeouts`, fail);
    const timeouts = {
      connectMs:
        optionalInt(t.connect_ms, `${path}.timeouts.connect_ms`, fail, 1) ?? DEFAULT_TIMEOUTS.connectMs,
      firstByteMs:
        optionalInt(t.first_byte_ms, `${path}.timeouts.first_byte_ms`, fail, 1) ??
        DEFAULT_TIMEOUTS.firstByteMs,
      requestMs:
        optionalInt(t.request_ms, `${path}.timeouts.request_ms`, fail, 1) ?? DEFAULT_TIMEOUTS.requestMs,
      idleMs: optionalInt(t.idle_ms, `${path}.timeouts.idle_ms`, fail, 1) ?? DEFAULT_TIMEOUTS.idleMs,
    };
    // A provider in the file is on unless switched off; without a key (e.g. `${OPENAI_API_KEY}` unset)
    // a remote provider cannot be called, so it stays off rather than failing every request.
    const enabled = enabledFlag ?? (protocol === "local" || (apiKey !== undefined && apiKey !== ""));
    const chunkDelayMs = optionalInt(p.chunk_delay_ms, `${path}.chunk_delay_ms`, fail, 0, 60_000);
    byId.set(id, {
      id,
      protocol,
      baseUrl: (baseUrl ?? "local:").replace(/\/+$/, ""),
      apiKey,
      enabled,
      timeouts,
      chunkDelayMs,
    });
  });
  return [...byId.values()];
}

function buildKeys(raw: unknown, fail: Fail): BootstrapKey[] {
  if (raw === undefined) return [];
  return asArray(raw, "keys", fail).map((item, i) => {
    const path = `keys[${i}]`;
    const k = asObject(item, path, fail);
    const key = requiredString(k.key, `${path}.key`, fail);
    if (key.length < 8) fail(`${path}.key`, "must be at least 8 characters");
    const account = requiredString(k.account, `${path}.account`, fail);
    let credits: string | undefined;
    if (k.credits !== undefined) {
      if (typeof k.credits !== "number" && typeof k.credits !== "string")
        fail(`${path}.credits`, "must be a number");
      credits = String(k.credits);
      if (!/^-?\d+(\.\d+)?$/.test(credits)) fail(`${path}.credits`, "must be a decimal number");
    }
    return { key, account, credits, name: optionalString(k.name, `${path}.name`, fail) };
  });
}

function asObject(v: unknown, path: string, fail: Fail): Obj {
  if (v === null || typeof v !== "object" || Array.isArray(v)) return fail(path, "must be a mapping");
  return v as Obj;
}
function optionalObject(v: unknown, path: string, fail: Fail): Obj {
  return v === undefined || v === null ? {} : asObject(v, path, fail);
}
function asArray(v: unknown, path: string, fail: Fail): unknown[] {
  if (!Array.isArray(v)) return fail(path, "must be a list");
  return v;
}
function asBoolean(v: unknown, path: string, fail: Fail): boolean {
  if (typeof v !== "boolean") return fail(path, "must be true or false");
  return v;
}
function optionalString(v: unknown, path: string, fail: Fail): string | undefined {
  if (v === undefined || v === null) return undefined;
  if (typeof v !== "string") return fail(path, "must be a string");
  return v;
}
function requiredString(v: unknown, path: string, fail: Fail): string {
  const s = optionalString(v, path, fail);
  if (!s) return fail(path, "is required");
  return s;
}
function optionalInt(v: unknown, path: string, fail: Fail, min: number, max = Number.MAX_SAFE_INTEGER) {
  if (v === undefined || v === null) return undefined;
  const n = typeof v === "string" && /^\d+$/.test(v) ? Number(v) : v;
  if (typeof n !== "number" || !Number.isInteger(n)) return fail(path, "must be an integer");
  if (n < min || n > max) return fail(path, `must be between ${min} and ${max}`);
  return n;
}
