// Exact decimal money. Prices, quantities and sums never pass through binary floating point: a
// catalog number becomes a decimal through its shortest round-trip string (String(0.15) === "0.15"),
// and all arithmetic happens on integers (BigInt) scaled by a power of ten.

import { invalid } from "../ir/errors.ts";

/**
 * An exact decimal: `units` × 10^-`scale` (units 1875, scale 9 is 0.000001875). Only multiplication,
 * addition and subtraction are offered, so results stay exact. The scale may be negative ("1e21" is
 * units 1, scale -21), so a large exponent costs nothing until arithmetic needs its digits. Values are
 * not normalized (1.50 may be units 150, scale 2): compare with cmp, write text with formatDecimal.
 */
export class Decimal {
  readonly units: bigint;
  readonly scale: number;

  constructor(units: bigint, scale: number) {
    this.units = units;
    this.scale = scale;
  }

  plus(other: Decimal): Decimal {
    // Sums start from zero: adding to or adding zero needs no aligning.
    if (this.units === 0n) return other;
    if (other.units === 0n) return this;
    if (this.scale === other.scale) return new Decimal(this.units + other.units, this.scale);
    const scale = Math.max(this.scale, other.scale);
    return new Decimal(unitsAt(this, scale) + unitsAt(other, scale), scale);
  }

  minus(other: Decimal): Decimal {
    return this.plus(other.neg());
  }

  times(other: Decimal): Decimal {
    return new Decimal(this.units * other.units, this.scale + other.scale);
  }

  neg(): Decimal {
    return new Decimal(-this.units, this.scale);
  }

  /** -1, 0 or 1 as this is less than, equal to or greater than `other`. */
  cmp(other: Decimal): -1 | 0 | 1 {
    if (this.scale === other.scale) return compareUnits(this.units, other.units);
    const sign = signOf(this.units);
    const otherSign = signOf(other.units);
    if (sign !== otherSign) return sign < otherSign ? -1 : 1;
    if (sign === 0) return 0;
    // Same sign: the position of the leading digit decides when it differs, without aligning digits
    // (so "1e999999999" against "1" needs no billion-digit number).
    const magnitude = leadingDigitPosition(this) - leadingDigitPosition(other);
    // Further from zero is larger when positive, smaller when negative.
    if (magnitude !== 0) return magnitude * sign > 0 ? 1 : -1;
    const scale = Math.max(this.scale, other.scale);
    return compareUnits(unitsAt(this, scale), unitsAt(other, scale));
  }

  lt(other: Decimal): boolean {
    return this.cmp(other) < 0;
  }

  lte(other: Decimal): boolean {
    return this.cmp(other) <= 0;
  }

  gt(other: Decimal): boolean {
    return this.cmp(other) > 0;
  }

  gte(other: Decimal): boolean {
    return this.cmp(other) >= 0;
  }

  toString(): string {
    return formatDecimal(this);
  }

  /** Logged or serialized, a decimal reads as its text (JSON.stringify cannot write a BigInt). */
  toJSON(): string {
    return formatDecimal(this);
  }
}

// 10^0 … 10^40 ready-made: aligning the scales of prices and quantities only ever needs small powers.
const POWERS_OF_TEN: readonly bigint[] = Array.from({ length: 41 }, (_, n) => 10n ** BigInt(n));

/** The units of `value` at a scale at least its own (the same number, more digits). */
function unitsAt(value: Decimal, scale: number): bigint {
  const shift = scale - value.scale;
  if (shift === 0) return value.units;
  return value.units * (POWERS_OF_TEN[shift] ?? 10n ** BigInt(shift));
}

function compareUnits(a: bigint, b: bigint): -1 | 0 | 1 {
  return a < b ? -1 : a > b ? 1 : 0;
}

function signOf(units: bigint): -1 | 0 | 1 {
  return units < 0n ? -1 : units > 0n ? 1 : 0;
}

/** For a non-zero value, the power of ten just above its leading digit: 0.05 → -1, 7 → 1, 12 → 2. */
function leadingDigitPosition(value: Decimal): number {
  const digits = (value.units < 0n ? -value.units : value.units).toString().length;
  return digits - value.scale;
}

export const ZERO: Decimal = new Decimal(0n, 0);
const ONE: Decimal = new Decimal(1n, 0);

// Sign, integer digits, fraction digits (two spellings: "1.5" / ".5") and exponent. No leading "+":
// The decimal library this replaced (big.js) never read one either; it is a 400 naming the field.
const DECIMAL_TEXT = /^(-?)(?:(\d+)(?:\.(\d*))?|\.(\d+))(?:[eE]([+-]?\d+))?$/;

/** Decimal text as a decimal, or undefined when it does not match DECIMAL_TEXT. */
function decimalFromText(text: string): Decimal | undefined {
  const parts = DECIMAL_TEXT.exec(text);
  if (!parts) return undefined;
  const sign = parts[1];
  const integer = parts[2] ?? "";
  const fraction = parts[3] ?? parts[4] ?? "";
  const exponent = parts[5] ?? "0";
  return new Decimal(BigInt(sign + integer + fraction), fraction.length - Number(exponent));
}

/**
 * A JS number (a catalog price, a token count, seconds) as the decimal it was written as: String()
 * gives the shortest text that reads back to the same number, so 0.15 is exactly 0.15 here.
 */
export function decimalFromNumber(value: number): Decimal {
  if (!Number.isFinite(value)) throw new RangeError(`not a finite number: ${value}`);
  // Token and request counts: a safe integer is exactly its own text, no need to write it out.
  if (Number.isSafeInteger(value)) return new Decimal(BigInt(value), 0);
  const decimal = decimalFromText(String(value));
  if (!decimal) throw new RangeError(`not a decimal: ${value}`);
  return decimal;
}

/** Decimal text ("0.1", "12", "1e-6") as a decimal; anything else is a 400 naming `param`. */
export function parseDecimal(text: string, param: string): Decimal {
  const decimal = typeof text === "string" ? decimalFromText(text.trim()) : undefined;
  if (!decimal) throw invalid(param, `must be a decimal number, got ${JSON.stringify(text)}`);
  return decimal;
}

/** A discount fraction ("0.1" = 10 % off), between 0 and 1 inclusive. */
export function parseDiscount(text: string, param: string): Decimal {
  const discount = parseDecimal(text, param);
  if (discount.lt(ZERO) || discount.gt(ONE)) {
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
  if (value.units === 0n) return "0";
  const negative = value.units < 0n;
  const text = plainText((negative ? -value.units : value.units).toString(), value.scale);
  return negative ? `-${text}` : text;
}

/** The digits of a positive `units` × 10^-`scale` written out in plain form. */
function plainText(digits: string, scale: number): string {
  // Trailing zeros of the fraction say nothing: 150 at scale 2 is 15 at scale 1.
  let end = digits.length;
  while (scale > 0 && digits.charCodeAt(end - 1) === ZERO_CHAR) {
    end--;
    scale--;
  }
  if (scale <= 0) return digits.slice(0, end) + "0".repeat(-scale);
  const point = end - scale;
  if (point > 0) return `${digits.slice(0, point)}.${digits.slice(point, end)}`;
  return `0.${"0".repeat(-point)}${digits.slice(0, end)}`;
}

const ZERO_CHAR = "0".charCodeAt(0);

/**
 * Canonical text of a decimal: the plain form of formatDecimal ("2.500" → "2.5", "1e-6" →
 * "0.000001"). Both stores answer in this form, so the same balance reads the same everywhere.
 */
export function canonicalDecimal(value: string | Decimal, param = "amount"): string {
  return formatDecimal(typeof value === "string" ? parseDecimal(value, param) : value);
}

/** The exact sum of two decimal texts, as canonical text (balances and costs kept as text). */
export function addDecimals(a: string, b: string): string {
  return formatDecimal(parseDecimal(a, "amount").plus(parseDecimal(b, "amount")));
}

export function negateDecimal(value: string): string {
  return formatDecimal(parseDecimal(value, "amount").neg());
}

/** A discount's canonical text: a fraction of the price taken off, "0" to "1" (see parseDiscount). */
export function canonicalDiscount(value: string, param = "discount"): string {
  return formatDecimal(parseDiscount(value, param));
}

/** Plain decimal text as written by formatDecimal: digits, at most one point, no exponent. */
const PLAIN_TEXT = /^(-?\d+)(?:\.(\d+))?$/;

/**
 * An exact running sum of decimal texts (SQLite's dec_sum): plain ones ("12.000345", the stores' own
 * form) are added as integers per number of decimals, anything else through parseDecimal; one
 * Decimal at the end. A usage query sums one cost per rollup row, tens of thousands of them.
 */
export class DecimalSum {
  private readonly byScale = new Map<number, bigint>();
  private other: Decimal = ZERO;

  add(text: string): void {
    const match = PLAIN_TEXT.exec(text);
    if (!match) {
      this.other = this.other.plus(parseDecimal(text, "cost"));
      return;
    }
    const fraction = match[2] ?? "";
    const units = BigInt(match[1] + fraction);
    this.byScale.set(fraction.length, (this.byScale.get(fraction.length) ?? 0n) + units);
  }

  /** The sum as canonical text. */
  total(): string {
    let total = this.other;
    for (const [scale, units] of this.byScale) total = total.plus(new Decimal(units, scale));
    return formatDecimal(total);
  }
}
