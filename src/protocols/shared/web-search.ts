// Web search settings (IR `WebSearchSettings`, src/ir/request.ts) as the protocols share them: an
// approximate user location is `{city, region, country, timezone}` in each (chat nests it under
// `approximate`), and what a target's search tool cannot limit is named dropped
// (docs/translation.md §13c).

import { invalid } from "../../ir/errors.ts";
import type { WebSearchSettings } from "../../ir/request.ts";
import type { Unsent } from "./dropped-fields.ts";
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

/** What a target's search cannot limit, among the settings the request used. */
export function dropUnsupported(
  dropped: Unsent,
  search: WebSearchSettings | undefined,
  supports: Partial<Record<keyof WebSearchSettings, boolean>>,
): void {
  if (!search) return;
  dropped.add("web_search.max_uses", search.maxUses !== undefined && !supports.maxUses);
  dropped.add("web_search.allowed_domains", search.allowedDomains !== undefined && !supports.allowedDomains);
  dropped.add("web_search.blocked_domains", search.blockedDomains !== undefined && !supports.blockedDomains);
  dropped.add("web_search.user_location", search.userLocation !== undefined && !supports.userLocation);
  dropped.add("web_search.search_context_size", search.contextSize !== undefined && !supports.contextSize);
}

/** The request member for decoded settings (none when the request has no search tool). */
export function withWebSearch(search: WebSearchSettings | undefined): { webSearch?: WebSearchSettings } {
  return search ? { webSearch: search } : {};
}
