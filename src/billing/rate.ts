// Rating: normalized usage × the model's pricings → the amounts of the generation record's
// `ratingResponses` (spec 1), as exact decimal strings.
//
// Rules (DESIGN §3, TRAPS "Usage and money"):
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
import type { Rating } from "../ledger/types.ts";
import { type Decimal, decimalFromNumber, formatDecimal, parseDiscount, sum, ZERO } from "./money.ts";
import { selectItem, type TierCounts } from "./pricing.ts";

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

/** A quantity of usage and the categories that may price it, most specific first. */
interface Charge {
  quantity: number;
  chain: readonly PricingCategory[];
}

export function rate(usage: Usage, pricings: Pricings, opts: RateOptions): Rating {
  const discount = opts.discount === undefined ? ZERO : parseDiscount(opts.discount, "discount");
  const counts: TierCounts = { promptTokens: usage.promptTokens, completionTokens: usage.completionTokens };
  const applicable = (category: PricingCategory): PricingItem | undefined =>
    selectItem(pricings[category] ?? [], counts);

  // Quantity per fee item; charges that fall back to the same category add up in one item.
  const quantities = new Map<PricingCategory, { item: PricingItem; quantity: Decimal }>();
  for (const charge of [...tokenCharges(usage), ...countCharges(usage), ...mediaCharges(usage, applicable)]) {
    checkQuantity(charge);
    if (charge.quantity === 0) continue;
    for (const category of charge.chain) {
      const item = applicable(category);
      if (!item) continue;
      const entry = quantities.get(category) ?? { item, quantity: ZERO };
      entry.quantity = entry.quantity.plus(decimalFromNumber(charge.quantity));
      quantities.set(category, entry);
      break;
    }
  }

  const details = FEE_ITEM_ORDER.flatMap((category) => {
    const entry = quantities.get(category);
    if (!entry) return [];
    const origin = amountFor(entry.item, entry.quantity, category);
    const off = origin.times(discount);
    return [{ category, rate: decimalFromNumber(entry.item.value), origin, off, bill: origin.minus(off) }];
  });

  const billAmount = sum(details.map((d) => d.bill));
  return {
    usage: formatDecimal(billAmount),
    billAmount: formatDecimal(billAmount),
    discountAmount: formatDecimal(sum(details.map((d) => d.off))),
    originAmount: formatDecimal(sum(details.map((d) => d.origin))),
    priceVersion: opts.priceVersion,
    ratingDetails: details.map((d) => ({
      feeItemCode: d.category,
      rate: formatDecimal(d.rate),
      originAmount: formatDecimal(d.origin),
      discountAmount: formatDecimal(d.off),
      billAmount: formatDecimal(d.bill),
    })),
  };
}

/** Prompt tokens split by cache use, completion tokens split by reasoning; none counted twice. */
function tokenCharges(usage: Usage): Charge[] {
  return [
    { quantity: uncachedPromptTokens(usage), chain: ["prompt"] },
    { quantity: usage.cacheReadTokens, chain: ["input_cache_read", "prompt"] },
    { quantity: usage.cacheWrite5mTokens, chain: ["input_cache_write_5_min", "input_cache_write", "prompt"] },
    { quantity: usage.cacheWrite1hTokens, chain: ["input_cache_write_1_h", "input_cache_write", "prompt"] },
    // When internal_reasoning has no price, the reasoning part rejoins completion: together they are
    // completionTokens again.
    { quantity: Math.max(0, usage.completionTokens - usage.reasoningTokens), chain: ["completion"] },
    { quantity: usage.reasoningTokens, chain: ["internal_reasoning", "completion"] },
  ];
}

function countCharges(usage: Usage): Charge[] {
  return [
    { quantity: usage.webSearchRequests, chain: ["web_search"] },
    { quantity: usage.imageOutputs ?? 0, chain: ["image"] },
  ];
}

/**
 * Usage has audio seconds and video seconds but no "video with sound" count. A video with sound is
 * reported as both (its length in videoSeconds and in audioSeconds), so the overlap is the seconds of
 * video with sound: billed under audio_and_video when the model prices it (spec 1: silent video uses
 * `video`, video with audio uses `audio_and_video`), and the remainders under video and audio. A model
 * without an audio_and_video price bills the video seconds as video and the audio seconds as audio.
 */
function mediaCharges(usage: Usage, applicable: (c: PricingCategory) => PricingItem | undefined): Charge[] {
  const audio = usage.audioSeconds ?? 0;
  const video = usage.videoSeconds ?? 0;
  const withSound = applicable("audio_and_video") ? Math.min(audio, video) : 0;
  return [
    { quantity: withSound, chain: ["audio_and_video"] },
    { quantity: video - withSound, chain: ["video"] },
    { quantity: audio - withSound, chain: ["audio"] },
  ];
}

function amountFor(item: PricingItem, quantity: Decimal, category: PricingCategory): Decimal {
  const value = decimalFromNumber(item.value);
  switch (item.unit) {
    case "perMTokens":
      return quantity.times(value).times(PER_MILLION);
    case "perCount":
    case "perSecond":
      return quantity.times(value);
    default:
      // The catalog loader validates units; reaching this is a catalog bug, not a client error.
      throw new RangeError(`pricings.${category}: unknown unit ${JSON.stringify(item.unit)}`);
  }
}

// Usage is produced by our own protocol decoders; a negative or non-finite count is a bug upstream of
// rating, and billing it would be wrong either way.
function checkQuantity(charge: Charge): void {
  if (!Number.isFinite(charge.quantity) || charge.quantity < 0) {
    throw new RangeError(`usage for ${charge.chain[0]}: not a count: ${charge.quantity}`);
  }
}
