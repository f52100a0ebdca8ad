// Rating: normalized usage × the model's pricings → the amounts of the generation record's
// `ratingResponses` (docs/architecture.md §6), as exact decimal strings.
//
// Rules (docs/architecture.md §6, and the usage traps of §10):
// - Every token, request and second lands in exactly one fee item (feeItemCode = pricing key):
//     uncached prompt tokens      → prompt
//     cache reads                 → input_cache_read, else prompt
//     5-minute cache writes       → input_cache_write_5_min, else input_cache_write, else prompt
//     1-hour cache writes         → input_cache_write_1_h, else input_cache_write, else prompt
//     completion minus reasoning  → completion
//     reasoning tokens            → internal_reasoning, else completion
//     web search requests         → web_search;  image outputs → image
//     seconds of video with sound → audio_and_video when priced, the rest of video → video,
//                                   the rest of audio → audio (see mediaCharges)
//   "else" means: the category has no item that applies to this request (absent, or no tier matches).
//   A charge whose whole chain has no applicable item is not billed, and has no ratingDetails item.
// - The tier is chosen once per category from the request's totals (prompt tokens with cached ones,
//   completion tokens with reasoning), so a >200k prompt moves prompt, completion and cache reads alike
//   to their >200k items.
// - Arithmetic by the item's unit: perMTokens = quantity × value / 1,000,000; perCount and perSecond =
//   quantity × value. No rounding anywhere: products and sums of finite decimals are exact.
// - discountAmount = originAmount × discount; billAmount = originAmount − discountAmount; totals are
//   sums of the items; `usage` (credits, 1 credit = 1 USD) is the total billAmount.

import type { PricingCategory, PricingItem, Pricings } from "../catalog/types.ts";
import { type Usage, uncachedPromptTokens } from "../ir/usage.ts";
import { type Decimal, decimalFromNumber, formatDecimal, parseDiscount, ZERO } from "./money.ts";
import { selectItem, type TierCounts } from "./pricing.ts";
import type { Rating } from "./rating.ts";

export interface RateOptions {
  /** Names the catalog version whose prices were used; copied into the rating. */
  priceVersion: string;
  /** Discount fraction as decimal text ("0.1" = 10 % off); none when absent. */
  discount?: string;
}

/** The order of ratingDetails: input before output, then per-call and media fees. */
const FEE_ITEM_ORDER: readonly PricingCategory[] = [
  "prompt",
  "input_cache_read",
  "input_cache_write_5_min",
  "input_cache_write_1_h",
  "input_cache_write",
  "completion",
  "internal_reasoning",
  "web_search",
  "image",
  "audio",
  "video",
  "audio_and_video",
];

const PER_MILLION = decimalFromNumber(0.000001);

const NO_ITEMS: readonly PricingItem[] = [];

/** A quantity of usage and the categories that may price it, most specific first. */
interface Charge {
  chain: readonly PricingCategory[];
  /** The quantity in this usage; `withSound` is the seconds of video with sound (secondsWithSound). */
  quantity(usage: Usage, withSound: number): number;
}

/** The item that prices a fee item and the quantity it bills. */
interface Billed {
  item: PricingItem;
  quantity: Decimal;
}

/** One fee item of the rating, before its amounts are written as text. */
interface Detail {
  category: PricingCategory;
  rateText: string;
  origin: Decimal;
  off: Decimal;
  bill: Decimal;
}

export function rate(usage: Usage, pricings: Pricings, opts: RateOptions): Rating {
  const discount = opts.discount === undefined ? ZERO : parseDiscount(opts.discount, "discount");
  const counts: TierCounts = { promptTokens: usage.promptTokens, completionTokens: usage.completionTokens };
  const applicable = (category: PricingCategory): PricingItem | undefined =>
    selectItem(pricings[category] ?? NO_ITEMS, counts);

  const quantities = billedQuantities(usage, applicable);
  const details: Detail[] = [];
  for (const category of FEE_ITEM_ORDER) {
    const entry = quantities.get(category);
    if (entry) details.push(detailFor(category, entry.item, entry.quantity, discount));
  }

  const totals = totalsOf(details);
  const originText = formatDecimal(totals.origin);
  const billText = totals.bill === totals.origin ? originText : formatDecimal(totals.bill);
  return {
    usage: billText,
    billAmount: billText,
    discountAmount: formatDecimal(totals.off),
    originAmount: originText,
    priceVersion: opts.priceVersion,
    ratingDetails: details.map(detailToText),
  };
}

/**
 * Sums of the details' amounts. Each bill is origin − off, so their sum is the sums' difference (exact
 * arithmetic); without a discount it is origin itself, which then needs writing out only once.
 */
function totalsOf(details: readonly Detail[]): { origin: Decimal; off: Decimal; bill: Decimal } {
  let origin = ZERO;
  let off = ZERO;
  for (const detail of details) {
    origin = origin.plus(detail.origin);
    off = off.plus(detail.off);
  }
  return { origin, off, bill: off.units === 0n ? origin : origin.minus(off) };
}

/** Quantity per fee item; charges that fall back to the same category add up in one item. */
function billedQuantities(
  usage: Usage,
  applicable: (category: PricingCategory) => PricingItem | undefined,
): Map<PricingCategory, Billed> {
  const quantities = new Map<PricingCategory, Billed>();
  const withSound = secondsWithSound(usage, applicable);
  for (const charge of CHARGES) {
    const count = charge.quantity(usage, withSound);
    checkQuantity(count, charge);
    if (count === 0) continue;
    for (const category of charge.chain) {
      const item = applicable(category);
      if (!item) continue;
      const quantity = decimalFromNumber(count);
      const entry = quantities.get(category);
      if (entry) entry.quantity = entry.quantity.plus(quantity);
      else quantities.set(category, { item, quantity });
      break;
    }
  }
  return quantities;
}

function detailFor(
  category: PricingCategory,
  item: PricingItem,
  quantity: Decimal,
  discount: Decimal,
): Detail {
  const price = priceOf(item, category);
  const origin = quantity.times(price.perUnit);
  // Without a discount nothing is taken off: skip multiplying by zero and subtracting zero.
  const rateText = price.rateText;
  if (discount.units === 0n) return { category, rateText, origin, off: ZERO, bill: origin };
  const off = origin.times(discount);
  return { category, rateText, origin, off, bill: origin.minus(off) };
}

function detailToText(detail: Detail): Rating["ratingDetails"][number] {
  const originAmount = formatDecimal(detail.origin);
  return {
    feeItemCode: detail.category,
    rate: detail.rateText,
    originAmount,
    discountAmount: formatDecimal(detail.off),
    billAmount: detail.bill === detail.origin ? originAmount : formatDecimal(detail.bill),
  };
}

/**
 * What rating needs from a pricing item, derived once per item object: catalog items are frozen and
 * shared by every request, so parsing their value again on every call would be wasted work.
 */
interface ItemPrice {
  /** The value and unit this was derived from: an item edited since (fixtures need not be frozen) is derived again. */
  value: number;
  unit: PricingItem["unit"];
  /** The `rate` column: the item's value as plain decimal text. */
  rateText: string;
  /** The price of one unit of quantity: value / 1,000,000 for perMTokens, value for perCount and perSecond. */
  perUnit: Decimal;
}

const itemPrices = new WeakMap<PricingItem, ItemPrice>();

function priceOf(item: PricingItem, category: PricingCategory): ItemPrice {
  const cached = itemPrices.get(item);
  if (cached && cached.value === item.value && cached.unit === item.unit) return cached;
  const value = decimalFromNumber(item.value);
  const price: ItemPrice = {
    value: item.value,
    unit: item.unit,
    rateText: formatDecimal(value),
    perUnit: perUnitPrice(item, value, category),
  };
  itemPrices.set(item, price);
  return price;
}

function perUnitPrice(item: PricingItem, value: Decimal, category: PricingCategory): Decimal {
  switch (item.unit) {
    case "perMTokens":
      return value.times(PER_MILLION);
    case "perCount":
    case "perSecond":
      return value;
    default:
      // The catalog loader validates units; reaching this is a catalog bug, not a client error.
      throw new RangeError(`pricings.${category}: unknown unit ${JSON.stringify(item.unit)}`);
  }
}

/**
 * Every quantity of usage and the categories that may price it; no token, request or second is in two
 * charges. A fixed table, so that rating builds no charge lists per call.
 */
const CHARGES: readonly Charge[] = [
  // Prompt tokens split by cache use, completion tokens split by reasoning.
  { chain: ["prompt"], quantity: (usage) => uncachedPromptTokens(usage) },
  { chain: ["input_cache_read", "prompt"], quantity: (usage) => usage.cacheReadTokens },
  {
    chain: ["input_cache_write_5_min", "input_cache_write", "prompt"],
    quantity: (usage) => usage.cacheWrite5mTokens,
  },
  {
    chain: ["input_cache_write_1_h", "input_cache_write", "prompt"],
    quantity: (usage) => usage.cacheWrite1hTokens,
  },
  // When internal_reasoning has no price, the reasoning part rejoins completion: together they are
  // completionTokens again.
  { chain: ["completion"], quantity: (usage) => Math.max(0, usage.completionTokens - usage.reasoningTokens) },
  { chain: ["internal_reasoning", "completion"], quantity: (usage) => usage.reasoningTokens },
  { chain: ["web_search"], quantity: (usage) => usage.webSearchRequests },
  { chain: ["image"], quantity: (usage) => usage.imageOutputs ?? 0 },
  // Media seconds: see secondsWithSound.
  { chain: ["audio_and_video"], quantity: (_usage, withSound) => withSound },
  { chain: ["video"], quantity: (usage, withSound) => (usage.videoSeconds ?? 0) - withSound },
  { chain: ["audio"], quantity: (usage, withSound) => (usage.audioSeconds ?? 0) - withSound },
];

/**
 * Usage has audio seconds and video seconds but no "video with sound" count. A video with sound is
 * reported as both (its length in videoSeconds and in audioSeconds), so the overlap is the seconds of
 * video with sound: billed under audio_and_video when the model prices it (docs/architecture.md §6: silent
 * video uses `video`, video with audio uses `audio_and_video`), and the remainders under video and audio. A
 * model without an audio_and_video price bills the video seconds as video and the audio seconds as audio.
 */
function secondsWithSound(usage: Usage, applicable: (c: PricingCategory) => PricingItem | undefined): number {
  return applicable("audio_and_video") ? Math.min(usage.audioSeconds ?? 0, usage.videoSeconds ?? 0) : 0;
}

// Usage is produced by our own protocol decoders; a negative or non-finite count is a bug upstream of
// rating, and billing it would be wrong either way.
function checkQuantity(quantity: number, charge: Charge): void {
  if (!Number.isFinite(quantity) || quantity < 0) {
    throw new RangeError(`usage for ${charge.chain[0]}: not a count: ${quantity}`);
  }
}
