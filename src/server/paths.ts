// What a request's path says before any route runs: which protocol an error to it is written in, and
// the model a path names. One home for both, shared by the raw inference routes and fastify's.

import { GatewayError } from "../ir/errors.ts";
import type { ProtocolName } from "../protocols/types.ts";

/**
 * The protocol an error is rendered in, from the path alone: content-generation for everything under
 * `/v1beta/` (a Gemini client only ever calls there), messages for `/v1/messages…`, and the chat shape
 * for the rest (chat-completions, listings, lookup, unknown paths).
 */
export function errorFaceOf(url: string): ProtocolName {
  if (url.startsWith("/v1beta/")) return "gemini";
  if (url.startsWith("/v1/messages")) return "anthropic";
  return "openai-chat";
}

/**
 * A percent-encoded path segment, decoded; an escape that is not UTF-8 (`%FF`, a cut `%E0%A4%A`) is a
 * 400 naming the segment, never the URIError that `decodeURIComponent` throws.
 */
export function decodePathSegment(raw: string, param: string): string {
  if (!raw.includes("%")) return raw;
  try {
    return decodeURIComponent(raw);
  } catch {
    throw new GatewayError(
      "invalid_request",
      `${param}: the path holds a percent-escape that is not UTF-8.`,
      {
        param,
      },
    );
  }
}
