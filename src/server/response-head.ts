// The one place the inference path writes a response head. node:http throws on a status outside
// 100–599, on a header value holding a character outside Latin-1 or a CR/LF, and on a second head;
// thrown from a request's callbacks, any of those ends the process. Here each is impossible by
// construction: the status is checked, every value is made header-safe, and a head is written once.

import type { ServerResponse } from "node:http";
import { headerSafe, SAFE_HEADER_VALUE } from "../gateway/header-value.ts";
import type { HeaderMap } from "../gateway/responder.ts";

/** A status node:http accepts: ours are always valid; anything else is reported as a 500. */
export function validStatus(status: unknown): number {
  return Number.isInteger(status) && (status as number) >= 100 && (status as number) <= 599
    ? (status as number)
    : 500;
}

/**
 * Writes the head once; false when one was already written or the connection is gone (the caller
 * then has nothing more to say on this response). Values are made header-safe in place.
 */
export function writeHead(
  res: ServerResponse,
  status: number,
  headers: HeaderMap | Record<string, string | number>,
): boolean {
  if (res.headersSent || res.destroyed) return false;
  for (const name in headers) {
    const value = headers[name];
    if (typeof value === "string" && !SAFE_HEADER_VALUE.test(value)) headers[name] = headerSafe(value);
  }
  res.writeHead(validStatus(status), headers);
  return true;
}
