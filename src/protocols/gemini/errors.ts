// Errors in the content-generation shape: `{"error": {"code", "message", "status"}}`, where
// `status` is the google.rpc code name. Also reads that shape from upstreams, with the retry delay
// from `retry-after` or from a google.rpc.RetryInfo detail (`"retryDelay": "34.4s"`).

import { type ErrorKind, GatewayError, kindForStatus } from "../../ir/errors.ts";
import { headerValue, isObject } from "../shared/validate.ts";
import type { IncomingHeaders } from "../types.ts";
import type { GeminiErrorBody } from "./wire-types.ts";

const STATUS_BY_HTTP: Record<number, string> = {
  400: "INVALID_ARGUMENT",
  401: "UNAUTHENTICATED",
  403: "PERMISSION_DENIED",
  404: "NOT_FOUND",
  409: "ABORTED",
  429: "RESOURCE_EXHAUSTED",
  499: "CANCELLED",
  500: "INTERNAL",
  501: "UNIMPLEMENTED",
  503: "UNAVAILABLE",
  504: "DEADLINE_EXCEEDED",
};

const STATUS_BY_KIND: Record<ErrorKind, string> = {
  invalid_request: "INVALID_ARGUMENT",
  authentication: "UNAUTHENTICATED",
  // Out of credits: Google reports exhausted quota as RESOURCE_EXHAUSTED.
  payment_required: "RESOURCE_EXHAUSTED",
  permission: "PERMISSION_DENIED",
  not_found: "NOT_FOUND",
  request_too_large: "INVALID_ARGUMENT",
  rate_limit: "RESOURCE_EXHAUSTED",
  api_error: "INTERNAL",
  timeout: "DEADLINE_EXCEEDED",
  overloaded: "UNAVAILABLE",
};

/** The google.rpc status name for an error. */
export function rpcStatus(error: GatewayError): string {
  return STATUS_BY_HTTP[error.status] ?? STATUS_BY_KIND[error.kind];
}

export function errorBody(error: GatewayError): GeminiErrorBody {
  return { error: { code: error.status, message: error.message, status: rpcStatus(error) } };
}

export function encodeError(error: GatewayError): { status: number; body: GeminiErrorBody } {
  // 529 is the messages protocol's own "overloaded"; content-generation clients know it as 503.
  const status = error.status === 529 ? 503 : error.status;
  return {
    status,
    body: errorBody(
      status === error.status ? error : new GatewayError(error.kind, error.message, { status }),
    ),
  };
}

export function decodeError(status: number, body: unknown, headers: IncomingHeaders): GatewayError {
  // Errors are usually `{error}`; some arrive wrapped in an array (`[{error}]`).
  const root = Array.isArray(body) ? body[0] : body;
  const error = isObject(root) && isObject(root.error) ? root.error : undefined;
  let message = typeof error?.message === "string" && error.message !== "" ? error.message : undefined;
  if (message === undefined && typeof body === "string" && body.trim() !== "") message = body.trim();
  const retryAfter = retryAfterHeader(headerValue(headers["retry-after"])) ?? retryInfoDelay(error?.details);
  return new GatewayError(kindForStatus(status), message ?? `upstream answered HTTP ${status}`, {
    status,
    retryAfter,
  });
}

function retryAfterHeader(value: string | undefined): number | undefined {
  if (value === undefined || value.trim() === "") return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds) && seconds >= 0) return Math.ceil(seconds);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, Math.ceil((date - Date.now()) / 1000));
}

function retryInfoDelay(details: unknown): number | undefined {
  if (!Array.isArray(details)) return undefined;
  for (const detail of details) {
    if (!isObject(detail) || typeof detail["@type"] !== "string") continue;
    if (!detail["@type"].endsWith("google.rpc.RetryInfo")) continue;
    const delay = detail.retryDelay;
    // A protobuf Duration in JSON: "34.4s" (or, from some encoders, {seconds, nanos}).
    if (typeof delay === "string") {
      const match = /^(\d+(?:\.\d+)?)s$/.exec(delay.trim());
      if (match) return Math.ceil(Number(match[1]));
    } else if (isObject(delay)) {
      const seconds = Number(delay.seconds ?? 0) + Number(delay.nanos ?? 0) / 1e9;
      if (Number.isFinite(seconds)) return Math.ceil(seconds);
    }
  }
  return undefined;
}
