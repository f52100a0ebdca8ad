// The generation record's billing fields as JSON (docs/architecture.md §6: `usage` number, `ratingResponses`
// with number amounts). The amounts are exact decimals; going through a JS number would print
// 0.1 + 0.2 style noise or round long decimals, so each one becomes a raw JSON number token that
// JSON.stringify writes digit for digit (JSON.rawJSON, Node 22+).

import { canonicalDecimal } from "./money.ts";
import type { Rating } from "./rating.ts";

/** A number that JSON.stringify writes as exactly the decimal text it was made from. */
export interface JsonNumber {
  readonly rawJSON: string;
}

// TypeScript's lib does not describe JSON.rawJSON yet.
const jsonWithRaw = JSON as unknown as { rawJSON(text: string): JsonNumber };

export interface RatingDetailJson {
  billAmount: JsonNumber;
  discountAmount: JsonNumber;
  feeItemCode: string;
  originAmount: JsonNumber;
  rate: JsonNumber;
}

export interface RatingJson {
  billAmount: JsonNumber;
  discountAmount: JsonNumber;
  originAmount: JsonNumber;
  priceVersion: string;
  ratingDetails: RatingDetailJson[];
}

/** Decimal text ("0.000001875", "1e-6", "2.50") as a JSON number written in plain decimal form. */
export function decimalToJson(decimal: string): JsonNumber {
  return jsonWithRaw.rawJSON(canonicalDecimal(decimal));
}

/** The lookup's `ratingResponses` object (docs/architecture.md §6), fields in the order clients see them. */
export function ratingToJson(rating: Rating): RatingJson {
  return {
    billAmount: decimalToJson(rating.billAmount),
    discountAmount: decimalToJson(rating.discountAmount),
    originAmount: decimalToJson(rating.originAmount),
    priceVersion: rating.priceVersion,
    ratingDetails: rating.ratingDetails.map((detail) => ({
      billAmount: decimalToJson(detail.billAmount),
      discountAmount: decimalToJson(detail.discountAmount),
      feeItemCode: detail.feeItemCode,
      originAmount: decimalToJson(detail.originAmount),
      rate: decimalToJson(detail.rate),
    })),
  };
}

/** The lookup's `usage` field (credits consumed, 1 credit = 1 USD). */
export function creditsToJson(usage: string): JsonNumber {
  return decimalToJson(usage);
}
