// `primary_factor`: what "best" means when several models may answer (model-level fallback through
// `model_routing_config.available_models`).
//   cost     cheapest first, by the catalog's base prompt + completion price per million tokens
//   quality  highest configured `quality_rank` first
//   speed    fastest first, by the best recent throughput measured on the model's endpoints
// A model without the figure (no price, no rank, never measured) goes after those that have it.
// The endpoints of one model share its price and rank, so within a model only `speed` reorders
// (see strategies.ts).

import type { CatalogModel, PricingItem } from "../catalog/types.ts";
import type { PrimaryFactor } from "./choice.ts";

/** Base price of prompt + completion per million tokens, for ranking only (not money). */
export function blendedPrice(model: CatalogModel): number | undefined {
  const prompt = basePerMillion(model.pricings.prompt);
  const completion = basePerMillion(model.pricings.completion);
  if (prompt === undefined && completion === undefined) return undefined;
  return (prompt ?? 0) + (completion ?? 0);
}

/** The unconditioned item (or the first tier) of a category, when it is priced per token. */
function basePerMillion(items: PricingItem[] | undefined): number | undefined {
  const item = items?.find((i) => !i.conditions) ?? items?.[0];
  return item?.unit === "perMTokens" ? item.value : undefined;
}

/**
 * Models in the order the factor prefers, ties (and models without the figure) kept in the order
 * given. `preference` (the client's preferred model) stays first whatever the factor says.
 */
export function orderModels(
  models: CatalogModel[],
  factor: PrimaryFactor | undefined,
  opts: { preference?: string; throughputOf: (model: CatalogModel) => number | undefined },
): CatalogModel[] {
  const pinned = models.filter((m) => m.id === opts.preference);
  const rest = models.filter((m) => m.id !== opts.preference);
  if (factor === undefined) return [...pinned, ...rest];
  // Lower score is better; undefined sorts last.
  const score = (m: CatalogModel): number | undefined => {
    if (factor === "cost") return blendedPrice(m);
    if (factor === "quality") return m.qualityRank === undefined ? undefined : -m.qualityRank;
    const tps = opts.throughputOf(m);
    return tps === undefined ? undefined : -tps;
  };
  return [...pinned, ...stableSortBy(rest, score)];
}

/** Sorts by a score (lower first), keeping the given order among equals; undefined scores go last. */
export function stableSortBy<T>(items: T[], score: (item: T) => number | undefined): T[] {
  return items
    .map((item, index) => ({ item, index, score: score(item) }))
    .sort((a, b) => {
      if (a.score === undefined || b.score === undefined) {
        if (a.score === b.score) return a.index - b.index;
        return a.score === undefined ? 1 : -1;
      }
      return a.score - b.score || a.index - b.index;
    })
    .map((x) => x.item);
}
