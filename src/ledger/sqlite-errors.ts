// Which SQLite failures mean "not now" (the store is unavailable: a 503, and the write queue tries
// again) rather than "not this".

import { StoreUnavailable } from "./ledger-errors.ts";

/** SQLite primary result codes that mean "not now" rather than "not this": locked, full, I/O. */
const unavailableCodes = new Set([
  5, // SQLITE_BUSY
  6, // SQLITE_LOCKED
  7, // SQLITE_NOMEM
  8, // SQLITE_READONLY (a file or file system made read-only under us)
  10, // SQLITE_IOERR
  13, // SQLITE_FULL
  14, // SQLITE_CANTOPEN
  15, // SQLITE_PROTOCOL
]);

export function isUnavailable(error: unknown): boolean {
  const code = (error as { errcode?: unknown } | undefined)?.errcode;
  return typeof code === "number" && unavailableCodes.has(code & 0xff);
}

/** A read on the request path: a locked or failing file is a StoreUnavailable (503), as a write is. */
export function read<T>(query: () => T): T {
  try {
    return query();
  } catch (error) {
    throw isUnavailable(error) ? new StoreUnavailable(error) : error;
  }
}

export function isUniqueViolation(error: unknown): boolean {
  return error instanceof Error && /UNIQUE constraint failed/.test(error.message);
}
