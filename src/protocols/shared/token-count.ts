// What the token-counting endpoints of the protocols share: the upstream's answer is one
// non-negative integer in a field each protocol names, and some counters refuse any request field
// outside their own list.

import { invalid } from "../../ir/errors.ts";
import { isObject } from "./validate.ts";

/** The count in `field` of an upstream counter's answer; anything else is a 400 naming the field. */
export function countIn(body: unknown, field: string): number {
  const count = isObject(body) ? body[field] : undefined;
  if (typeof count !== "number" || !Number.isInteger(count) || count < 0)
    throw invalid(field, "the upstream's counter answered no count");
  return count;
}

/** The fields of an encoded request body a counter takes, in the same form. */
export function countedFields(body: unknown, fields: readonly string[]): Record<string, unknown> {
  const whole = body as Record<string, unknown>;
  const counted: Record<string, unknown> = {};
  for (const field of fields) if (whole[field] !== undefined) counted[field] = whole[field];
  return counted;
}
