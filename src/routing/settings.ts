// The configuration file's `routing` section: the routing default for every model (the fields of
// `provider.routing`; a model's own `routing` and the request override it field by field) and the
// health rules (circuit breaker, how long latency statistics stay current). The file's section is
// validated by the configuration schema (src/config/schema.ts), which takes its defaults from here.
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
