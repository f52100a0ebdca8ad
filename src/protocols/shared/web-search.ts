// Web search settings (IR `WebSearchSettings`, src/ir/request.ts) as the protocols share them: an
// approximate user location is `{city, region, country, timezone}` in each (chat nests it under
// `approximate`), and what a target's search tool cannot limit is named dropped
// (docs/translation.md §13c) by the encoder that writes the tool.

import { invalid } from "../../ir/errors.ts";
import type { WebSearchSettings } from "../../ir/request.ts";
import type { DroppedField, Unsent } from "./dropped-fields.ts";
import { expectArray, expectObject, expectString, optionalString } from "./validate.ts";

type Location = NonNullable<WebSearchSettings["userLocation"]>;

const LOCATION_FIELDS = ["city", "region", "country", "timezone"] as const;

/** `{city?, region?, country?, timezone?}` as a client wrote it (other members, like `type`, aside). */
export function decodeLocation(value: unknown, at: string): Location | undefined {
  if (value === undefined || value === null) return undefined;
  const object = expectObject(value, at);
  const location: Location = {};
  for (const field of LOCATION_FIELDS) {
    const text = optionalString(object[field], `${at}.${field}`);
    if (text !== undefined) location[field] = text;
  }
  return location;
}

/** The location as written upstream: the approximate kind and the fields that are known. */
export function approximateLocation(location: Location): Record<string, string> {
  const out: Record<string, string> = { type: "approximate" };
  for (const field of LOCATION_FIELDS) if (location[field] !== undefined) out[field] = location[field];
  return out;
}

export function decodeDomains(value: unknown, at: string): string[] | undefined {
  if (value === undefined || value === null) return undefined;
  return expectArray(value, at).map((item, i) => expectString(item, `${at}[${i}]`));
}

const CONTEXT_SIZES = ["low", "medium", "high"] as const;

export function decodeContextSize(value: unknown, at: string): WebSearchSettings["contextSize"] {
  const size = optionalString(value, at);
  if (size === undefined) return undefined;
  const known = CONTEXT_SIZES.find((s) => s === size);
  if (!known) throw invalid(at, "must be one of low, medium, high");
  return known;
}

const LIMIT_NAMES: Readonly<Record<keyof WebSearchSettings, DroppedField>> = {
  maxUses: "web_search.max_uses",
  allowedDomains: "web_search.allowed_domains",
  blockedDomains: "web_search.blocked_domains",
  userLocation: "web_search.user_location",
  contextSize: "web_search.search_context_size",
};

/** Every limit a search may have: the ones a target without any leaves out. */
export const SEARCH_LIMITS = Object.keys(LIMIT_NAMES) as ReadonlyArray<keyof WebSearchSettings>;

/** Names those of `limits`, which the target's search tool has no member for, that the request set. */
export function leaveOutLimits(
  unsent: Unsent,
  search: WebSearchSettings,
  limits: ReadonlyArray<keyof WebSearchSettings>,
): void {
  for (const limit of limits) unsent.add(LIMIT_NAMES[limit], search[limit] !== undefined);
}

/** The request member for decoded settings (none when the request has no search tool). */
export function withWebSearch(search: WebSearchSettings | undefined): { webSearch?: WebSearchSettings } {
  return search ? { webSearch: search } : {};
}
