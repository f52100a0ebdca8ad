// An error as its caller's protocol writes it. The one place an error becomes a status, headers and
// a body: the pipeline, the token counter, the raw inference routes and fastify's routes all answer
// through it, so they cannot disagree (on `retry-after`, for one).

import { type GatewayError, invalid, PROMPT } from "../ir/errors.ts";
import type { Protocol } from "../protocols/types.ts";
import type { HeaderMap } from "./responder.ts";

export interface ErrorAnswer {
  status: number;
  /** `retry-after` (seconds) when the error says when to come back; nothing else. */
  headers: HeaderMap;
  body: unknown;
}

export function errorAnswer(protocol: Protocol, error: GatewayError): ErrorAnswer {
  const { status, body } = protocol.encodeError(
    error.param === PROMPT ? invalid(protocol.promptField, error.message) : error,
  );
  const headers: HeaderMap = {};
  if (error.retryAfter !== undefined) headers["retry-after"] = String(error.retryAfter);
  // What the error brings of its own (a rate limit's x-ratelimit-*, a budget's x-should-retry).
  if (error.headers) Object.assign(headers, error.headers);
  return { status, headers, body };
}
