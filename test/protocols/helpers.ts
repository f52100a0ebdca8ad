// Shared by the protocols' encoder tests.

import { Unsent } from "../../src/protocols/shared/dropped-fields.ts";

/**
 * An encoder's call with what it named in the attempt's collector as `dropped`: the names in
 * `x-switchyard-ignored` order, absent when nothing was left out.
 */
export function withUnsent<T extends object>(encode: (unsent: Unsent) => T): T & { dropped?: string[] } {
  const unsent = new Unsent();
  const call = encode(unsent);
  const names = unsent.list();
  return names.length > 0 ? { ...call, dropped: names } : call;
}
