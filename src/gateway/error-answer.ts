// An error as its caller's protocol writes it. The one place an error becomes a status, headers and
// a body, and the one writer of that answer: the pipeline, the token counter, the raw inference
// routes and fastify's routes all answer through writeError, so they cannot disagree (on
// `retry-after`, for one). Only a request node:http could not parse is answered on the bare socket
// (src/server/app.ts answerClientError), from errorAnswer too.

import { type GatewayError, invalid, PROMPT } from "../ir/errors.ts";
import type { Protocol } from "../protocols/types.ts";
import type { HeaderMap, Responder } from "./responder.ts";

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

/**
 * Writes the error as the caller's protocol answers it, after the headers the request had gathered
 * (its generation id, its limits): a Responder's `json`, or fastify's reply made to look like one.
 */
export function writeError(
  out: Pick<Responder, "json">,
  protocol: Protocol,
  error: GatewayError,
  headers: HeaderMap = {},
): void {
  const answer = errorAnswer(protocol, error);
  out.json(answer.status, { ...headers, ...answer.headers }, answer.body);
}
