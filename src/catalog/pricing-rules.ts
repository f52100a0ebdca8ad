// What the schema of `pricings` cannot say by shape alone: a condition's bounds must admit some
// token count, no item may hide behind an unconditional one, and tiers on one token count must leave
// no count unpriced. Each check returns the problem to report, or undefined.

import type { PricingCondition, PricingItem } from "./types.ts";

type ConditionKey = "prompt_tokens" | "completion_tokens";

/** A condition needs a bound, and its bounds must admit at least one token count. */
export function checkCondition(condition: PricingCondition): string | undefined {
  const bounds = [condition.gte, condition.lte, condition.gt, condition.lt].filter(
    (b) => typeof b === "number",
  );
  if (bounds.length === 0) return "needs at least one bound (gte, lte, gt or lt)";
  if (isEmpty(rangeOf(condition))) return "its bounds exclude every token count, so the item never applies";
  return undefined;
}

/** The items of one category, in order; `index` names the item at fault (none: the whole list). */
export function checkTiers(items: readonly PricingItem[]): { index?: number; message: string } | undefined {
  const unconditional = items.findIndex((item) => !item.conditions);
  if (unconditional !== -1 && unconditional < items.length - 1) {
    // The biller takes the first item that applies, so nothing after a catch-all is ever charged.
    return {
      index: unconditional + 1,
      message: `never applies: item [${unconditional}] has no conditions and always applies`,
    };
  }
  const gap = coverageGap(items);
  return gap ? { message: gap } : undefined;
}

/** The token counts (in kTokens) a condition admits; counts are never negative. */
interface Range {
  lo: number;
  loIncl: boolean;
  hi: number;
  hiIncl: boolean;
}

function rangeOf(c: PricingCondition): Range {
  const range: Range = { lo: 0, loIncl: true, hi: Number.POSITIVE_INFINITY, hiIncl: false };
  if (c.gte !== undefined && c.gte >= range.lo) Object.assign(range, { lo: c.gte, loIncl: true });
  if (c.gt !== undefined && c.gt >= range.lo) Object.assign(range, { lo: c.gt, loIncl: false });
  if (c.lte !== undefined && c.lte <= range.hi) Object.assign(range, { hi: c.lte, hiIncl: true });
  if (typeof c.lt === "number" && c.lt <= range.hi) Object.assign(range, { hi: c.lt, hiIncl: false });
  return range;
}

function isEmpty(r: Range): boolean {
  return r.lo > r.hi || (r.lo === r.hi && !(r.loIncl && r.hiIncl));
}

/**
 * When every item of a category is tiered on the same single count (the usual ≤200k / >200k split),
 * the tiers together must price every count from 0 up; a gap would leave some requests unpriced.
 * Mixed conditions are left alone: the biller's first-match rule decides those.
 */
function coverageGap(items: readonly PricingItem[]): string | undefined {
  const keys = new Set(items.flatMap((item) => Object.keys(item.conditions ?? { none: true })));
  if (keys.size !== 1 || keys.has("none")) return undefined;
  const key = [...keys][0] as ConditionKey;
  const ranges = items
    .map((item) => rangeOf(item.conditions![key]!))
    .sort((a, b) => a.lo - b.lo || Number(b.loIncl) - Number(a.loIncl));
  // Covered so far: [0, end) or [0, end], growing as each range joins on.
  let end = 0;
  let endIncl = false;
  for (const r of ranges) {
    const joins = r.lo < end || (r.lo === end && (r.loIncl || endIncl));
    if (!joins) break;
    if (r.hi > end || (r.hi === end && r.hiIncl && !endIncl)) {
      end = r.hi;
      endIncl = r.hiIncl;
    }
  }
  if (end === Number.POSITIVE_INFINITY) return undefined;
  const from = endIncl ? `above ${end}` : `from ${end}`;
  return `tiers on ${key} leave counts ${from} kTokens unpriced`;
}
