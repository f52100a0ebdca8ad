// Choosing the pricing item that applies to a request (docs/architecture.md §6, Conditions): conditions bound
// the request's prompt or completion token count in kTokens; every bound present must hold.

import type { PricingCondition, PricingItem } from "../catalog/types.ts";
import { type Decimal, decimalFromNumber } from "./money.ts";

/** The request's token counts that tier conditions look at: totals, cached and reasoning tokens included. */
export interface TierCounts {
  /** `prompt_tokens`: every input token of the request, cache reads and writes included. */
  promptTokens: number;
  /** `completion_tokens`: every generated token, reasoning included. */
  completionTokens: number;
}

const TOKENS_PER_KTOKEN = decimalFromNumber(1000);

/**
 * The item whose every condition holds for these counts; an item without conditions always applies.
 * When several items apply (overlapping tiers in the catalog), the first one listed wins, so a catalog
 * can put its specific tiers before a catch-all. undefined when none applies.
 */
export function selectItem(items: readonly PricingItem[], counts: TierCounts): PricingItem | undefined {
  // A loop, not find(): rating asks this several times per generation, and a closure each time shows.
  for (const item of items) if (itemApplies(item, counts)) return item;
  return undefined;
}

export function itemApplies(item: PricingItem, counts: TierCounts): boolean {
  const conditions = item.conditions;
  if (!conditions) return true;
  if (conditions.prompt_tokens && !conditionHolds(conditions.prompt_tokens, counts.promptTokens)) {
    return false;
  }
  if (
    conditions.completion_tokens &&
    !conditionHolds(conditions.completion_tokens, counts.completionTokens)
  ) {
    return false;
  }
  return true;
}

/**
 * Compares the token count with each bound × 1000 as exact decimals (no division, no float), so that
 * exactly 200,000 tokens is `lte: 200` and 200,001 is not. A null bound is no bound (`lt: null`
 * means no upper limit; other bounds are read the same way).
 */
export function conditionHolds(condition: PricingCondition, tokens: number): boolean {
  const count = decimalFromNumber(tokens);
  const bound = (value: number | null | undefined): Decimal | undefined =>
    value === undefined || value === null ? undefined : decimalFromNumber(value).times(TOKENS_PER_KTOKEN);

  const gte = bound(condition.gte);
  const lte = bound(condition.lte);
  const gt = bound(condition.gt);
  const lt = bound(condition.lt);
  if (gte && count.lt(gte)) return false;
  if (lte && count.gt(lte)) return false;
  if (gt && count.lte(gt)) return false;
  if (lt && count.gte(lt)) return false;
  return true;
}
