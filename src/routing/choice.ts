// The routing rules that apply to one request: each field of `provider.routing` from the request,
// else from the model's `routing` in the catalog/config, else from the configuration's `routing`
// section, else the built-in default (priority order, fallback on).

import type { CatalogModel, RoutingDefaults } from "../catalog/types.ts";
import type { RoutingRequest } from "../ir/request.ts";

export type RoutingType = "priority" | "round_robin" | "least_latency";
export type PrimaryFactor = "cost" | "speed" | "quality";

export interface RoutingChoice {
  type: RoutingType;
  primaryFactor?: PrimaryFactor;
  /** Only these provider ids take part (absent: all that serve the model). */
  providers?: string[];
  /** "true" | "false" | a provider id. */
  fallback: string;
  /** True when `providers` / `fallback` came from the request (a wrong one is then the caller's 400). */
  providersFromRequest: boolean;
  fallbackFromRequest: boolean;
  /** `model_routing_config.available_models`, as written by the client. */
  availableModels: string[];
  /** `model_routing_config.preference`. */
  preference?: string;
}

/** Shared defaults for what is absent (never changed: a RoutingChoice is only read). */
const NO_ROUTING: NonNullable<CatalogModel["routing"]> = Object.freeze({});
const NO_MODELS: string[] = Object.freeze([]) as unknown as string[];

export function routingChoice(
  request: RoutingRequest | undefined,
  model: CatalogModel,
  defaults: RoutingDefaults,
): RoutingChoice {
  const modelRouting = model.routing ?? NO_ROUTING;
  const fallback = request?.fallback ?? modelRouting.fallback ?? defaults.fallback ?? "true";
  return {
    type: request?.type ?? modelRouting.type ?? defaults.type ?? "priority",
    primaryFactor: request?.primaryFactor ?? modelRouting.primary_factor ?? defaults.primary_factor,
    providers: request?.providers ?? modelRouting.providers ?? defaults.providers,
    fallback: String(fallback),
    providersFromRequest: request?.providers !== undefined,
    fallbackFromRequest: request?.fallback !== undefined,
    availableModels: request?.availableModels ?? NO_MODELS,
    preference: request?.preference,
  };
}
