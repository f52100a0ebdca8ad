// Errors in the messages protocol: `{"type":"error","error":{"type","message"}}` with the HTTP status,
// both ways (our answers to clients, and an Anthropic-protocol upstream's answers to us).

import { type ErrorKind, GatewayError, kindForStatus } from "../../ir/errors.ts";
import { headerValue, isObject } from "../shared/validate.ts";
import type { IncomingHeaders } from "../types.ts";

const TYPE_FOR_KIND: Record<ErrorKind, string> = {
  invalid_request: "invalid_request_error",
  authentication: "authentication_error",
  payment_required: "billing_error",
  permission: "permission_error",
  not_found: "not_found_error",
  request_too_large: "request_too_large",
  rate_limit: "rate_limit_error",
  api_error: "api_error",
  timeout: "timeout_error",
  overloaded: "overloaded_error",
};

const KIND_FOR_TYPE: Record<string, ErrorKind> = Object.fromEntries(
  Object.entries(TYPE_FOR_KIND).map(([kind, type]) => [type, kind as ErrorKind]),
);

/** The wire `error.type` for an error. */
export function errorType(error: GatewayError): string {
  return TYPE_FOR_KIND[error.kind] ?? "api_error";
}

export function encodeError(error: GatewayError): { status: number; body: unknown } {
  return {
    status: error.status,
    body: { type: "error", error: { type: errorType(error), message: error.message } },
  };
}

/** A wire error object (`{type, message}`) as a GatewayError; `overloaded_error` is Anthropic's 529. */
export function errorFromWire(error: unknown, status?: number, retryAfter?: number): GatewayError {
  const type = isObject(error) && typeof error.type === "string" ? error.type : undefined;
  const message = isObject(error) && typeof error.message === "string" ? error.message : undefined;
  const kind = (type && KIND_FOR_TYPE[type]) || (status !== undefined ? kindForStatus(status) : "api_error");
  const finalStatus = status ?? (kind === "overloaded" ? 529 : undefined);
  return new GatewayError(kind, message ?? `upstream error${status ? ` (HTTP ${status})` : ""}`, {
    status: finalStatus,
    retryAfter,
  });
}

export function decodeError(status: number, body: unknown, headers: IncomingHeaders): GatewayError {
  let parsed = body;
  if (typeof body === "string" || body instanceof Uint8Array) {
    const text = typeof body === "string" ? body : Buffer.from(body).toString("utf8");
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = { message: text.trim() || undefined };
    }
  }
  const error = isObject(parsed) && isObject(parsed.error) ? parsed.error : parsed;
  return errorFromWire(error, status, retryAfterSeconds(headers));
}

/** `retry-after` as seconds: either a number of seconds or an HTTP date. */
function retryAfterSeconds(headers: IncomingHeaders): number | undefined {
  const key = Object.keys(headers).find((k) => k.toLowerCase() === "retry-after");
  const value = key ? headerValue(headers[key])?.trim() : undefined;
  if (!value) return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return Math.max(0, seconds);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, Math.ceil((date - Date.now()) / 1000));
}
