// The agent session a request belongs to, as the client names it: Claude Code sends
// `X-Claude-Code-Session-Id` (a UUID) on every call of one session. Recorded with each generation
// and shown in its lookup, so that a user can add up what one session cost. It comes from the
// client, so it is bounded and kept to printable characters, and it is never put in a response header.

import type { IncomingHeaders } from "../protocols/types.ts";

/** Longer values are cut here: a UUID is 36 characters, and a ledger row should stay small. */
export const MAX_SESSION_ID_LENGTH = 128;

export function sessionIdOf(headers: IncomingHeaders): string | undefined {
  const raw = headers["x-claude-code-session-id"];
  const value = Array.isArray(raw) ? raw[0] : raw;
  if (value === undefined) return undefined;
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what must go
  const printable = value.replace(/[\u0000-\u001f\u007f]/g, "").trim();
  return printable === "" ? undefined : printable.slice(0, MAX_SESSION_ID_LENGTH);
}
