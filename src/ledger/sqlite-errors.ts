// Which SQLite failures mean "not now" (the store is unavailable: a 503, and the write queue tries
// again) rather than "not this".

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
