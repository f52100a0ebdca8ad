// Exact decimal money. Prices, quantities and sums never pass through binary floating point: a
// catalog number becomes a decimal through its shortest round-trip string (String(0.15) === "0.15"),
// and all arithmetic happens on big.js decimals.

import Big from "big.js";
import { invalid } from "../ir/errors.ts";

/** An exact decimal. Only multiplication, addition and subtraction are used, so results stay exact. */
export type Decimal = Big;

// A constructor of our own, so that no other module's big.js settings can change ours.
// strict: a JS number handed to it (or to any of its methods) throws instead of being taken in
// silently; every number must come through decimalFromNumber. NE/PE: toString never uses exponents.
const Exact = Big();
Exact.strict = true;
Exact.NE = -1e6;
Exact.PE = 1e6;

export const ZERO: Decimal = new Exact("0");

const DECIMAL_TEXT = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/;

/**
 * A JS number (a catalog price, a token count, seconds) as the decimal it was written as: String()
 * gives the shortest text that reads back to the same number, so 0.15 is exactly 0.15 here.
 */
export function decimalFromNumber(value: number): Decimal {
  if (!Number.isFinite(value)) throw new RangeError(`not a finite number: ${value}`);
  return new Exact(String(value));
}

/** Decimal text ("0.1", "12", "1e-6") as a decimal; anything else is a 400 naming `param`. */
export function parseDecimal(text: string, param: string): Decimal {
  if (typeof text !== "string" || !DECIMAL_TEXT.test(text.trim())) {
    throw invalid(param, `must be a decimal number, got ${JSON.stringify(text)}`);
  }
  return new Exact(text.trim());
}

/** A discount fraction ("0.1" = 10 % off), between 0 and 1 inclusive. */
export function parseDiscount(text: string, param: string): Decimal {
  const discount = parseDecimal(text, param);
  if (discount.lt(ZERO) || discount.gt(new Exact("1"))) {
    throw invalid(param, `must be a fraction between 0 and 1, got ${JSON.stringify(text)}`);
  }
  return discount;
}

export function sum(values: Iterable<Decimal>): Decimal {
  let total = ZERO;
  for (const value of values) total = total.plus(value);
  return total;
}

/** Plain decimal text: no exponent, no trailing zeros, no "-0" (1.50 → "1.5", 1e-7 → "0.0000001"). */
export function formatDecimal(value: Decimal): string {
  // big.js keeps no trailing zeros; toFixed() without places never uses exponent notation.
  const text = value.toFixed();
  return text === "-0" ? "0" : text;
}

/** Re-renders decimal text in the plain form of formatDecimal ("2.500" → "2.5", "1e-6" → "0.000001"). */
export function normalizeDecimal(text: string, param = "amount"): string {
  return formatDecimal(parseDecimal(text, param));
}
