// Where each endpoint family takes its credential from (docs/architecture.md §8).

import type { IncomingHeaders } from "../protocols/types.ts";

export type Face = "openai-chat" | "openai-responses" | "anthropic" | "gemini" | "lookup";

function first(value: string | string[] | undefined): string | undefined {
  const v = Array.isArray(value) ? value[0] : value;
  return v === undefined || v === "" ? undefined : v;
}

function bearer(headers: IncomingHeaders): string | undefined {
  const auth = first(headers.authorization);
  const match = auth ? /^Bearer\s+(.+)$/i.exec(auth.trim()) : null;
  return match ? match[1].trim() : undefined;
}

/** The API key the caller presented, or undefined when none was. */
export function presentedKey(
  face: Face,
  headers: IncomingHeaders,
  query: Record<string, unknown>,
): string | undefined {
  switch (face) {
    case "anthropic":
      return first(headers["x-api-key"]) ?? bearer(headers);
    case "gemini":
      return (
        first(headers["x-goog-api-key"]) ??
        first(headers["x-vendorb-api-key"]) ??
        bearer(headers) ??
        (typeof query.key === "string" && query.key ? query.key : undefined)
      );
    default:
      return bearer(headers);
  }
}
