// Pagination of the model listings over a list sorted by id: the messages style's id cursors
// (`limit`, `after_id`, `before_id`) and the content-generation style's opaque page tokens
// (`pageSize`, `pageToken`). Bad parameters are 400s naming the parameter.

import { invalid } from "../ir/errors.ts";

/** Query values arrive as strings (or repeated, as arrays); tests and callers may pass numbers. */
export type QueryValue = string | number | string[] | undefined | null;

export interface CursorPage<T> {
  items: T[];
  /** More items exist in the direction of travel (after the page going forward, before it going back). */
  hasMore: boolean;
}

/**
 * Anthropic's model-list paging: `after_id` gives the `limit` items right after that id, `before_id`
 * the `limit` items right before it, neither the first `limit`. An id that is not in the list is a 400
 * naming the parameter (an SDK only sends ids it was given); both at once is a 400 too.
 */
export function pageByCursor<T extends { id: string }>(
  sorted: readonly T[],
  params: { limit?: QueryValue; after_id?: QueryValue; before_id?: QueryValue },
): CursorPage<T> {
  const limit = integerParam(params.limit, "limit", { min: 1, max: 1000, fallback: 20 });
  const afterId = stringParam(params.after_id, "after_id");
  const beforeId = stringParam(params.before_id, "before_id");
  if (afterId !== undefined && beforeId !== undefined) {
    throw invalid("before_id", "cannot be combined with after_id; page in one direction at a time");
  }
  if (beforeId !== undefined) {
    const end = indexOfId(sorted, beforeId, "before_id");
    const start = Math.max(0, end - limit);
    return { items: sorted.slice(start, end), hasMore: start > 0 };
  }
  const start = afterId === undefined ? 0 : indexOfId(sorted, afterId, "after_id") + 1;
  const end = Math.min(sorted.length, start + limit);
  return { items: sorted.slice(start, end), hasMore: end < sorted.length };
}

export interface TokenPage<T> {
  items: T[];
  /** Absent on the last page, as Google's APIs do. */
  nextPageToken?: string;
}

/**
 * Google's list paging (AIP-158): `pageSize` unset or 0 → 50, above 1000 → 1000, negative → 400.
 * The token carries the last id served, so a page resumes at the right place even when the catalog
 * changed between calls (the next page starts at the first id sorting after it).
 */
export function pageByToken<T extends { id: string }>(
  sorted: readonly T[],
  params: { pageSize?: QueryValue; pageToken?: QueryValue },
): TokenPage<T> {
  const requested = integerParam(params.pageSize, "pageSize", { min: 0, fallback: 0 });
  const pageSize = requested === 0 ? 50 : Math.min(requested, 1000);
  const token = stringParam(params.pageToken, "pageToken");
  const start = token === undefined || token === "" ? 0 : firstAfter(sorted, decodeToken(token));
  const end = Math.min(sorted.length, start + pageSize);
  const page: TokenPage<T> = { items: sorted.slice(start, end) };
  if (end < sorted.length) page.nextPageToken = encodeToken(sorted[end - 1].id);
  return page;
}

const TOKEN_PREFIX = "sy1:";

function encodeToken(lastId: string): string {
  return Buffer.from(TOKEN_PREFIX + lastId, "utf8").toString("base64url");
}

function decodeToken(token: string): string {
  const text = /^[A-Za-z0-9_-]+$/.test(token) ? Buffer.from(token, "base64url").toString("utf8") : "";
  if (!text.startsWith(TOKEN_PREFIX) || text.length === TOKEN_PREFIX.length) {
    throw invalid(
      "pageToken",
      "is not a page token from this listing; pass the nextPageToken of the previous page",
    );
  }
  return text.slice(TOKEN_PREFIX.length);
}

function firstAfter<T extends { id: string }>(sorted: readonly T[], id: string): number {
  const index = sorted.findIndex((item) => item.id > id);
  return index === -1 ? sorted.length : index;
}

function indexOfId<T extends { id: string }>(sorted: readonly T[], id: string, param: string): number {
  const index = sorted.findIndex((item) => item.id === id);
  if (index === -1) throw invalid(param, `no model has the id '${id}'`);
  return index;
}

function stringParam(value: QueryValue, param: string): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (Array.isArray(value)) throw invalid(param, "must be given once");
  return String(value);
}

function integerParam(
  value: QueryValue,
  param: string,
  range: { min: number; max?: number; fallback: number },
): number {
  const text = stringParam(value, param);
  if (text === undefined) return range.fallback;
  const bounds = range.max === undefined ? `>= ${range.min}` : `between ${range.min} and ${range.max}`;
  if (!/^-?\d+$/.test(text.trim())) throw invalid(param, `must be an integer ${bounds}`);
  const n = Number(text);
  if (n < range.min || (range.max !== undefined && n > range.max)) {
    throw invalid(param, `must be an integer ${bounds}, got ${text}`);
  }
  return n;
}
