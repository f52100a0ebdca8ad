// What a request's path says before any route runs: which protocol an error to it is written in, and
// the model a path names. One home for both, shared by the raw inference routes and fastify's.

import { GatewayError } from "../ir/errors.ts";
import type { IncomingHeaders, ProtocolName } from "../protocols/types.ts";

/**
 * The protocol an error is rendered in, from the path alone (and, for the shared listing, who asks):
 * content-generation for `/v1beta` and everything under it and for any path ending in a `:method` (only
 * Google's APIs name methods that way, so a Gemini client is calling, whatever API version it
 * chose), and for `/v1/models…` asked with a Gemini credential; messages for `/v1/messages…`; the
 * Responses API for `/v1/responses…`; and the chat shape for the rest (chat-completions, listings,
 * lookup, unknown paths). Never throws: it also renders the error for a path that cannot be decoded.
 */
export function errorFaceOf(url: string, headers: IncomingHeaders = {}): ProtocolName {
  const q = url.indexOf("?");
  const path = servedPath(q < 0 ? url : url.slice(0, q));
  const query = q < 0 ? "" : url.slice(q + 1);
  const face = protocolOfPath(path);
  if (
    face === "openai-chat" &&
    (path === "/v1/models" || path.startsWith("/v1/models/")) &&
    isGeminiCaller(headers, query)
  )
    return "gemini";
  return face;
}

/**
 * The protocol a path (without its query) belongs to by its shape alone: the one mapping from URL to
 * protocol, read by errorFaceOf and by the inference routes (src/server/inference-routes.ts).
 */
export function protocolOfPath(rawPath: string): ProtocolName {
  const path = servedPath(rawPath);
  if (path === "/v1beta" || path.startsWith("/v1beta/") || endsInMethod(path)) return "gemini";
  if (path.startsWith("/v1/messages")) return "anthropic";
  if (path.startsWith("/v1/responses")) return "openai-responses";
  return "openai-chat";
}

/**
 * The path a request is served at: `/api/v1/…` as `/v1/…` for the inference, listing and counting
 * routes, since OpenRouter's clients are given a base URL ending in `/api/v1` and nothing else
 * (docs/architecture.md §1). The rest of `/api/v1/` (the lookup, the admin API) is the gateway's own.
 */
export function servedPath(path: string): string {
  if (!path.startsWith(OPENROUTER_BASE)) return path;
  const served = path.slice(OPENROUTER_BASE.length - "/v1/".length);
  return OPENROUTER_ROUTES.some((route) => served === route || served.startsWith(`${route}/`))
    ? served
    : path;
}

const OPENROUTER_BASE = "/api/v1/";
const OPENROUTER_ROUTES = ["/v1/chat/completions", "/v1/messages", "/v1/responses", "/v1/models"];

/** A path (without its query) that ends in a `:method` (`:generateContent`), the colon written or escaped. */
export function endsInMethod(path: string): boolean {
  return GEMINI_METHOD.test(path);
}

const GEMINI_METHOD = /(?::|%3a)[a-z]+$/i;

/**
 * A Gemini client: it sends its key as `x-goog-api-key` (or its neutral alias, docs/architecture.md §8) or as
 * the `?key=` query parameter, which no other protocol's client does.
 */
export function isGeminiCaller(headers: IncomingHeaders, query: string | Record<string, unknown>): boolean {
  if (headers["x-goog-api-key"] !== undefined || headers["x-vendorb-api-key"] !== undefined) return true;
  if (typeof query === "string") return query !== "" && new URLSearchParams(query).has("key");
  return query.key !== undefined;
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
