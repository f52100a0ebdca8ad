// Which upstream failures another endpoint may cure, and which count against an endpoint's health.
//
// Retryable: no answer at all (connect error, reset, timeout before the first byte: the adapter
// reports them as 502 / 504), 408, 429, 5xx, and the statuses that say this endpoint is
// misconfigured rather than the request wrong (401, 403 and 404 from an upstream: a revoked key, a
// model the deployment does not have). Everything else in 4xx was caused by the request itself
// (400, 413, 422, …) and would fail the same way anywhere: never retried. A cancelled request
// (499, the client went away) is never retried either.

import { GatewayError } from "../ir/errors.ts";

const ENDPOINT_SPECIFIC_4XX = new Set([401, 403, 404, 408, 429]);

export function isRetryable(error: unknown): boolean {
  if (!(error instanceof GatewayError)) return false;
  return error.status >= 500 || ENDPOINT_SPECIFIC_4XX.has(error.status);
}

/**
 * A failure that says the endpoint is unwell and feeds its circuit breaker. A 429 does not: the
 * endpoint is healthy but busy, and its `retry-after` (when given) keeps traffic away instead.
 */
export function isEndpointFault(error: unknown): boolean {
  return isRetryable(error) && (error as GatewayError).status !== 429;
}
