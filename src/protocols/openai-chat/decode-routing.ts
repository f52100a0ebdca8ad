// Client → IR: the gateway's routing fields (docs/architecture.md §8): `provider.routing` and
// `model_routing_config`. The API does not say where model_routing_config nests, so it is read both top-level
// and inside `provider` (top-level wins). Other `provider` keys (OpenRouter's `order`, `only`…) are ignored.

import { invalid } from "../../ir/errors.ts";
import type { RoutingRequest } from "../../ir/request.ts";
import { expectArray, expectObject, expectString, optionalString, present } from "../shared/validate.ts";

type Json = Record<string, unknown>;

const routingTypes = ["priority", "round_robin", "least_latency"] as const;
const primaryFactors = ["cost", "speed", "quality"] as const;

export function decodeRouting(body: Json): RoutingRequest | undefined {
  const routing: RoutingRequest = {};
  const provider = present(body.provider) ? expectObject(body.provider, "provider") : undefined;
  if (provider && present(provider.routing)) readProviderRouting(provider.routing, routing);
  if (present(body.model_routing_config)) {
    readModelRoutingConfig(body.model_routing_config, "model_routing_config", routing);
  } else if (provider && present(provider.model_routing_config)) {
    readModelRoutingConfig(provider.model_routing_config, "provider.model_routing_config", routing);
  }
  return Object.keys(routing).length > 0 ? routing : undefined;
}

function readProviderRouting(value: unknown, routing: RoutingRequest): void {
  const obj = expectObject(value, "provider.routing");
  const type = optionalString(obj.type, "provider.routing.type");
  if (type !== undefined) routing.type = oneOf(type, routingTypes, "provider.routing.type");
  const factor = optionalString(obj.primary_factor, "provider.routing.primary_factor");
  if (factor !== undefined)
    routing.primaryFactor = oneOf(factor, primaryFactors, "provider.routing.primary_factor");
  if (present(obj.providers)) routing.providers = stringList(obj.providers, "provider.routing.providers");
  if (present(obj.fallback)) {
    // The API types it as the string "true" / "false" / a provider name; JSON booleans mean the same.
    if (typeof obj.fallback === "boolean") routing.fallback = String(obj.fallback);
    else
      routing.fallback = nonEmpty(
        expectString(obj.fallback, "provider.routing.fallback"),
        "provider.routing.fallback",
      );
  }
}

function readModelRoutingConfig(value: unknown, param: string, routing: RoutingRequest): void {
  const obj = expectObject(value, param);
  if (present(obj.available_models))
    routing.availableModels = stringList(obj.available_models, `${param}.available_models`);
  const preference = optionalString(obj.preference, `${param}.preference`);
  if (preference) routing.preference = preference;
  // task_info and additional_properties are hints no strategy uses; accepted and not kept.
}

function oneOf<T extends string>(value: string, allowed: readonly T[], param: string): T {
  if (!(allowed as readonly string[]).includes(value))
    throw invalid(param, `must be one of ${allowed.join(", ")}`);
  return value as T;
}

function stringList(value: unknown, param: string): string[] {
  return expectArray(value, param).map((item, i) =>
    nonEmpty(expectString(item, `${param}[${i}]`), `${param}[${i}]`),
  );
}

function nonEmpty(value: string, param: string): string {
  if (!value) throw invalid(param, "must not be empty");
  return value;
}
