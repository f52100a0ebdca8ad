// Errors as OpenAI writes them, on chat-completions and on the Responses API alike:
// `{"error":{"message","type","param","code"}}` with the HTTP status, both for the gateway's own
// errors (client face) and an upstream's (upstream face).

import { type ErrorKind, GatewayError, kindForStatus } from "../../ir/errors.ts";
import type { IncomingHeaders } from "../types.ts";
import { isObject } from "./validate.ts";

export interface WireErrorBody {
  error: { message: string; type: string; param: string | null; code: string | null };
}

const typeForKind: Record<ErrorKind, string> = {
  invalid_request: "invalid_request_error",
  authentication: "authentication_error",
  payment_required: "insufficient_quota",
  permission: "permission_error",
  not_found: "not_found_error",
  request_too_large: "invalid_request_error",
  rate_limit: "rate_limit_error",
  api_error: "api_error",
  timeout: "timeout_error",
  overloaded: "overloaded_error",
};

// The machine-readable `code` OpenAI puts beside the type where it has one.
const codeForKind: Partial<Record<ErrorKind, string>> = {
  authentication: "invalid_api_key",
  payment_required: "insufficient_quota",
  not_found: "not_found",
  request_too_large: "request_too_large",
  rate_limit: "rate_limit_exceeded",
  timeout: "timeout",
  overloaded: "overloaded",
};

export function errorBody(error: GatewayError): WireErrorBody {
  return {
    error: {
      message: error.message,
      type: typeForKind[error.kind],
      param: error.param ?? null,
      code: error.code ?? codeForKind[error.kind] ?? null,
    },
  };
}

export function encodeError(error: GatewayError): { status: number; body: WireErrorBody } {
  // 529 is the messages protocol's own "overloaded"; OpenAI clients know it as 503.
  return { status: error.status === 529 ? 503 : error.status, body: errorBody(error) };
}

/** An upstream error answer (any status, body parsed or raw text) → GatewayError keeping the status. */
export function decodeError(status: number, body: unknown, headers: IncomingHeaders): GatewayError {
  const detail = isObject(body) && isObject(body.error) ? body.error : undefined;
  const message = errorMessage(status, body, detail);
  // OpenAI answers an exhausted quota with 429 `insufficient_quota`: retrying will not help, so it
  // is a payment error, not a rate limit, while the status stays what the upstream said.
  const quota = detail && (detail.code === "insufficient_quota" || detail.type === "insufficient_quota");
  const kind = quota ? "payment_required" : kindForStatus(status);
  return new GatewayError(kind, message, { status, retryAfter: retryAfterSeconds(headers) });
}

/** An `error` object an upstream sent with HTTP 200 (a stream chunk's, or a whole body's) → GatewayError. */
export function decodeErrorObject(detail: unknown): GatewayError {
  const obj = isObject(detail) ? detail : {};
  const message = typeof obj.message === "string" ? obj.message : "upstream stream error";
  // OpenRouter puts the HTTP-style status in `code`; OpenAI puts a string code there.
  const status = typeof obj.code === "number" && obj.code >= 400 && obj.code < 600 ? obj.code : 502;
  return new GatewayError(kindForStatus(status), message, { status });
}

function errorMessage(status: number, body: unknown, detail: Record<string, unknown> | undefined): string {
  if (detail && typeof detail.message === "string" && detail.message) return detail.message;
  if (isObject(body) && typeof body.message === "string" && body.message) return body.message;
  if (isObject(body) && typeof body.error === "string" && body.error) return body.error;
  if (typeof body === "string" && body.trim()) return body.trim().slice(0, 1000);
  return `upstream answered HTTP ${status}`;
}

function headerNamed(headers: IncomingHeaders, name: string): string | undefined {
  for (const [key, value] of Object.entries(headers)) {
    if (key.toLowerCase() !== name) continue;
    return Array.isArray(value) ? value[0] : value;
  }
  return undefined;
}

/** `retry-after-ms` (OpenAI), then `retry-after` as seconds or an HTTP date. */
export function retryAfterSeconds(headers: IncomingHeaders): number | undefined {
  const ms = Number(headerNamed(headers, "retry-after-ms"));
  if (Number.isFinite(ms) && ms > 0) return Math.ceil(ms / 1000);
  const raw = headerNamed(headers, "retry-after")?.trim();
  if (!raw) return undefined;
  const seconds = Number(raw);
  if (Number.isFinite(seconds)) return seconds >= 0 ? seconds : undefined;
  const at = Date.parse(raw);
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, Math.ceil((at - Date.now()) / 1000));
}
