// What `serve` says at start about a configuration that is valid but worth knowing about.

import type { CatalogModel } from "../catalog/types.ts";
import type { ProviderConfig } from "./providers.ts";

/**
 * One line per served model without prices: its generations are metered but rated at 0, which an
 * operator should hear from the gateway rather than from the invoice (see docs/configuration.md).
 */
export function startNotes(models: readonly CatalogModel[], providers: readonly ProviderConfig[]): string {
  const enabled = new Set(providers.filter((p) => p.enabled).map((p) => p.id));
  return models
    .filter((m) => m.endpoints.some((e) => enabled.has(e.provider)))
    .filter((m) => Object.values(m.pricings).every((items) => !items || items.length === 0))
    .map((m) => `note: ${m.id} has no prices: its generations are rated at 0 USD\n`)
    .join("");
}
