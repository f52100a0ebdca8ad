// The configuration file's `routing` section: the routing default for every model (the fields of
// `provider.routing`; a model's own `routing` and the request override it field by field) and the
// health rules (circuit breaker, how long latency statistics stay current).
//
//   routing:
//     type: priority            # priority | round_robin | least_latency
//     primary_factor: cost      # cost | speed | quality (optional)
//     fallback: "true"          # "true" | "false" | a provider id
//     health: { failure_threshold: 5, cooldown_ms: 30000, stats_ttl_ms: 300000 }

import type { RoutingDefaults } from "../catalog/types.ts";

export interface HealthSettings {
  /** Consecutive failures of one endpoint that open its breaker. */
  failureThreshold: number;
  /** How long an open breaker keeps traffic away before one probe request is let through. */
  cooldownMs: number;
  /** Latency statistics older than this no longer count: the endpoint is measured afresh. */
  statsTtlMs: number;
}

export interface RoutingSettings {
  defaults: RoutingDefaults;
  health: HealthSettings;
}

export const DEFAULT_HEALTH: HealthSettings = {
  failureThreshold: 5,
  cooldownMs: 30_000,
  statsTtlMs: 300_000,
};

export const DEFAULT_ROUTING: RoutingSettings = { defaults: {}, health: DEFAULT_HEALTH };

type Fail = (path: string, problem: string) => never;

const KEYS = ["type", "primary_factor", "providers", "fallback", "health"];
const HEALTH_KEYS = ["failure_threshold", "cooldown_ms", "stats_ttl_ms"];

/** Reads the `routing` section; every problem goes to `fail` with the key path at fault. */
export function parseRoutingSettings(raw: unknown, fail: Fail): RoutingSettings {
  if (raw === undefined || raw === null) return DEFAULT_ROUTING;
  const obj = mapping(raw, "routing", fail);
  for (const key of Object.keys(obj))
    if (!KEYS.includes(key)) fail(`routing.${key}`, `unknown key (expected one of ${KEYS.join(", ")})`);
  const defaults: RoutingDefaults = {};
  if (obj.type !== undefined)
    defaults.type = oneOf(
      obj.type,
      ["priority", "round_robin", "least_latency"] as const,
      "routing.type",
      fail,
    );
  if (obj.primary_factor !== undefined)
    defaults.primary_factor = oneOf(
      obj.primary_factor,
      ["cost", "speed", "quality"] as const,
      "routing.primary_factor",
      fail,
    );
  if (obj.providers !== undefined) {
    if (!Array.isArray(obj.providers)) fail("routing.providers", "must be a list of provider ids");
    defaults.providers = (obj.providers as unknown[]).map((p, i) =>
      typeof p === "string" && p !== "" ? p : fail(`routing.providers[${i}]`, "must be a provider id"),
    );
  }
  if (obj.fallback !== undefined) {
    if (typeof obj.fallback !== "boolean" && (typeof obj.fallback !== "string" || obj.fallback === ""))
      fail("routing.fallback", 'must be "true", "false" or a provider id');
    defaults.fallback = obj.fallback as string | boolean;
  }
  const h =
    obj.health === undefined || obj.health === null ? {} : mapping(obj.health, "routing.health", fail);
  for (const key of Object.keys(h))
    if (!HEALTH_KEYS.includes(key))
      fail(`routing.health.${key}`, `unknown key (expected one of ${HEALTH_KEYS.join(", ")})`);
  const health: HealthSettings = {
    failureThreshold:
      int(h.failure_threshold, "routing.health.failure_threshold", 1, fail) ??
      DEFAULT_HEALTH.failureThreshold,
    cooldownMs: int(h.cooldown_ms, "routing.health.cooldown_ms", 1, fail) ?? DEFAULT_HEALTH.cooldownMs,
    statsTtlMs: int(h.stats_ttl_ms, "routing.health.stats_ttl_ms", 1, fail) ?? DEFAULT_HEALTH.statsTtlMs,
  };
  return { defaults, health };
}

function mapping(v: unknown, path: string, fail: Fail): Record<string, unknown> {
  if (v === null || typeof v !== "object" || Array.isArray(v)) return fail(path, "must be a mapping");
  return v as Record<string, unknown>;
}

function oneOf<T extends string>(v: unknown, allowed: readonly T[], path: string, fail: Fail): T {
  if (!allowed.includes(v as T)) fail(path, `must be one of ${allowed.join(", ")}`);
  return v as T;
}

function int(v: unknown, path: string, min: number, fail: Fail): number | undefined {
  if (v === undefined || v === null) return undefined;
  if (typeof v !== "number" || !Number.isInteger(v) || v < min)
    return fail(path, `must be an integer ≥ ${min}`);
  return v;
}
