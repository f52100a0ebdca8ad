// Which PostgreSQL client failures mean "the server is away for now" (try again later, 503) rather
// than "this statement is wrong" (a bug or a bad value: retrying cannot help).

/** SQLSTATE classes and codes of a server that cannot serve right now. */
const unavailableStates = [
  /^08/, // connection exception
  /^53/, // insufficient resources: disk full, out of memory, too many connections
  /^57P0[1235]$/, // admin shutdown, crash shutdown, cannot connect now, idle session timeout
  /^57014$/, // query canceled (statement timeout, or the server cancelling on shutdown)
  /^40001$/, // serialization failure
  /^40P01$/, // deadlock detected
  /^25006$/, // read-only transaction: a failover left us on a standby
  /^58030$/, // I/O error
];

/** Socket-level errors from node:net and dns. */
const unavailableSocketCodes = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ECONNABORTED",
  "EPIPE",
  "ETIMEDOUT",
  "EHOSTUNREACH",
  "EHOSTDOWN",
  "ENETUNREACH",
  "ENETDOWN",
  "ENOTFOUND",
  "EAI_AGAIN",
  "ENOENT", // a unix socket path that is not there while the server is down
]);

/** The pg driver's own messages for a connection that broke or never came. */
const unavailableMessages =
  /Connection terminated|connection timeout|timeout exceeded when trying to connect|not queryable|Query read timeout|Connection closed|the database system is (?:starting up|shutting down|in recovery mode)/i;

export function isServerUnavailable(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  if (typeof code === "string") {
    if (unavailableSocketCodes.has(code)) return true;
    if (/^[0-9A-Z]{5}$/.test(code)) return unavailableStates.some((state) => state.test(code));
  }
  // A connect failing for several addresses at once (127.0.0.1 and ::1) arrives as an AggregateError.
  if (error instanceof AggregateError && error.errors.some(isServerUnavailable)) return true;
  return unavailableMessages.test(error.message);
}

/** SQLSTATE of a row refused by a unique constraint. */
export function isUniqueViolation(error: unknown): boolean {
  return (error as { code?: string } | undefined)?.code === "23505";
}
