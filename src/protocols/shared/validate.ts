// Small checks for decoding client bodies. Each failure is a 400 naming the field as the client wrote it.

import { invalid } from "../../ir/errors.ts";

export type Json = Record<string, unknown>;

export function isObject(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

export function expectObject(value: unknown, param: string): Json {
  if (!isObject(value)) throw invalid(param, "must be an object");
  return value;
}

export function expectArray(value: unknown, param: string): unknown[] {
  if (!Array.isArray(value)) throw invalid(param, "must be an array");
  return value;
}

export function expectString(value: unknown, param: string): string {
  if (typeof value !== "string") throw invalid(param, "must be a string");
  return value;
}

/** Given at all: JSON's null counts as absent, as every optional field of the four protocols reads it. */
export function present(value: unknown): boolean {
  return value !== undefined && value !== null;
}

/** Sets an optional IR field only when the client gave it, so an absent one stays absent (not `undefined`). */
export function setIfDefined<T extends object, K extends keyof T>(
  target: T,
  key: K,
  value: T[K] | undefined,
): void {
  if (value !== undefined) target[key] = value;
}

export function optionalString(value: unknown, param: string): string | undefined {
  return value === undefined || value === null ? undefined : expectString(value, param);
}

export function optionalBoolean(value: unknown, param: string): boolean | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== "boolean") throw invalid(param, "must be a boolean");
  return value;
}

export interface NumberRange {
  min?: number;
  max?: number;
  /** Upper bound excluded (Gemini penalties: -2.0 up to but excluding 2.0). */
  maxExclusive?: number;
  integer?: boolean;
}

export function expectNumber(value: unknown, param: string, range: NumberRange = {}): number {
  if (typeof value !== "number" || !Number.isFinite(value)) throw invalid(param, "must be a number");
  if (range.integer && !Number.isInteger(value)) throw invalid(param, "must be an integer");
  if (range.min !== undefined && value < range.min) throw invalid(param, `must be >= ${range.min}`);
  if (range.max !== undefined && value > range.max) throw invalid(param, `must be <= ${range.max}`);
  if (range.maxExclusive !== undefined && value >= range.maxExclusive)
    throw invalid(param, `must be < ${range.maxExclusive}`);
  return value;
}

export function optionalNumber(value: unknown, param: string, range: NumberRange = {}): number | undefined {
  return value === undefined || value === null ? undefined : expectNumber(value, param, range);
}

/** First value of a header that may repeat. */
export function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

/** All comma-separated values of a header that may also repeat (`anthropic-beta`). */
export function headerList(value: string | string[] | undefined): string[] {
  if (value === undefined) return [];
  const joined = Array.isArray(value) ? value.join(",") : value;
  return joined
    .split(",")
    .map((v) => v.trim())
    .filter((v) => v.length > 0);
}
