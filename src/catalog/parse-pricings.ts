// Validates a model's `pricings` (spec 1, Pricings / Pricing item / Pricing condition) and checks that
// its tiers make sense: every bound set can hold, no item hides behind an unconditional one, and tiers
// on one token count leave no count unpriced.

import { at, expectKeys, fail, isRecord, type Location } from "./catalog-error.ts";
import type { PricingCategory, PricingCondition, PricingItem, Pricings } from "./types.ts";

export const PRICING_CATEGORIES: readonly PricingCategory[] = [
  "prompt",
  "completion",
  "input_cache_read",
  "input_cache_write_5_min",
  "input_cache_write_1_h",
  "input_cache_write",
  "web_search",
  "internal_reasoning",
  "image",
  "audio",
  "video",
  "audio_and_video",
];

const UNITS: readonly PricingItem["unit"][] = ["perMTokens", "perCount", "perSecond"];
const CONDITION_KEYS = ["prompt_tokens", "completion_tokens"] as const;
type ConditionKey = (typeof CONDITION_KEYS)[number];

export function parsePricings(raw: unknown, loc: Location): Pricings {
  if (!isRecord(raw)) fail(loc, "must be a mapping of price category to a list of pricing items");
  const pricings: Pricings = {};
  for (const [key, value] of Object.entries(raw)) {
    const categoryLoc = at(loc, key);
    if (!PRICING_CATEGORIES.includes(key as PricingCategory)) {
      fail(categoryLoc, `unknown price category (allowed: ${PRICING_CATEGORIES.join(", ")})`);
    }
    pricings[key as PricingCategory] = parseCategory(value, categoryLoc);
  }
  return pricings;
}

function parseCategory(raw: unknown, loc: Location): PricingItem[] {
  if (!Array.isArray(raw) || raw.length === 0) fail(loc, "must be a non-empty list of pricing items");
  const items = raw.map((item, i) => parseItem(item, at(loc, i)));
  const unconditional = items.findIndex((item) => !item.conditions);
  if (unconditional !== -1 && unconditional < items.length - 1) {
    // The biller takes the first item that applies, so nothing after a catch-all is ever charged.
    fail(
      at(loc, unconditional + 1),
      `never applies: item [${unconditional}] has no conditions and always applies`,
    );
  }
  checkCoverage(items, loc);
  return items;
}

function parseItem(raw: unknown, loc: Location): PricingItem {
  if (!isRecord(raw)) fail(loc, "must be a mapping with value, unit and currency");
  expectKeys(raw, ["value", "unit", "currency", "conditions"], loc);
  const value = raw.value;
  if (typeof value !== "number" || !Number.isFinite(value) || value < 0) {
    fail(at(loc, "value"), "must be a number >= 0 (USD per unit; 0 means free)");
  }
  if (!UNITS.includes(raw.unit as PricingItem["unit"]))
    fail(at(loc, "unit"), `must be one of ${UNITS.join(", ")}`);
  if (raw.currency !== "USD") fail(at(loc, "currency"), "must be USD");
  const item: PricingItem = { value, unit: raw.unit as PricingItem["unit"], currency: "USD" };
  if (raw.conditions !== undefined) item.conditions = parseConditions(raw.conditions, at(loc, "conditions"));
  return item;
}

function parseConditions(raw: unknown, loc: Location): NonNullable<PricingItem["conditions"]> {
  if (!isRecord(raw)) fail(loc, "must be a mapping with prompt_tokens and/or completion_tokens");
  expectKeys(raw, CONDITION_KEYS, loc);
  const conditions: NonNullable<PricingItem["conditions"]> = {};
  for (const key of CONDITION_KEYS) {
    if (raw[key] !== undefined) conditions[key] = parseCondition(raw[key], at(loc, key));
  }
  if (Object.keys(conditions).length === 0) fail(loc, "must name prompt_tokens or completion_tokens");
  return conditions;
}

function parseCondition(raw: unknown, loc: Location): PricingCondition {
  if (!isRecord(raw)) fail(loc, "must be a mapping with unit: kTokens and bounds (gte, lte, gt, lt)");
  expectKeys(raw, ["unit", "gte", "lte", "gt", "lt"], loc);
  if (raw.unit !== "kTokens") fail(at(loc, "unit"), "must be kTokens");
  const condition: PricingCondition = { unit: "kTokens" };
  for (const bound of ["gte", "lte", "gt", "lt"] as const) {
    const value = raw[bound];
    if (value === undefined) continue;
    // Spec 1: `lt: null` means no upper bound; kept as written so listings show it as the catalog says.
    if (value === null && bound === "lt") {
      condition.lt = null;
      continue;
    }
    if (typeof value !== "number" || !Number.isFinite(value) || value < 0) {
      fail(at(loc, bound), "must be a number >= 0 (thousands of tokens)");
    }
    condition[bound] = value;
  }
  const bounds = [condition.gte, condition.lte, condition.gt, condition.lt].filter(
    (b) => typeof b === "number",
  );
  if (bounds.length === 0) fail(loc, "needs at least one bound (gte, lte, gt or lt)");
  if (isEmpty(rangeOf(condition)))
    fail(loc, "its bounds exclude every token count, so the item never applies");
  return condition;
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
function checkCoverage(items: PricingItem[], loc: Location): void {
  const keys = new Set(items.flatMap((item) => Object.keys(item.conditions ?? { none: true })));
  if (keys.size !== 1 || keys.has("none")) return;
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
  if (end !== Number.POSITIVE_INFINITY) {
    const from = endIncl ? `above ${end}` : `from ${end}`;
    fail(loc, `tiers on ${key} leave counts ${from} kTokens unpriced`);
  }
}
