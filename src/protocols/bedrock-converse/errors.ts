// Bedrock Runtime's errors → GatewayError. An error answer names its exception in the
// `x-amzn-errortype` header (`ThrottlingException:http://internal.amazon.com/coral/…`) and, from
// some front ends, as the body's `__type` (`com.amazon.coral.service#UnrecognizedClientException`);
// its body is `{"message": …}` (`Message` from the authentication layer). Within a stream the same
// exceptions arrive as event-stream exception frames named in lowerCamelCase
// (`throttlingException`, `modelStreamErrorException`), with the same body.
//
// Retryable, so the next endpoint is tried (src/routing/retryable.ts): ThrottlingException (429),
// ModelNotReadyException (429), ServiceQuotaExceededException (which Bedrock sends as a 400 but is a
// quota, not a bad request: 429 here), InternalServerException (500), ServiceUnavailableException
// (503), ModelTimeoutException (408), ModelErrorException and ModelStreamErrorException (a 424 from
// Bedrock, the model failing: 502 here). The caller's own 4xx: ValidationException (400),
// AccessDeniedException (403), ResourceNotFoundException (404), ConflictException (400).

import { type ErrorKind, GatewayError, kindForStatus } from "../../ir/errors.ts";
import { retryAfterSeconds } from "../shared/openai-errors.ts";
import { headerValue, isObject } from "../shared/validate.ts";
import type { IncomingHeaders } from "../types.ts";

const EXCEPTIONS: Record<string, { kind: ErrorKind; status?: number }> = {
  throttlingexception: { kind: "rate_limit", status: 429 },
  modelnotreadyexception: { kind: "overloaded", status: 429 },
  servicequotaexceededexception: { kind: "rate_limit", status: 429 },
  internalserverexception: { kind: "api_error", status: 500 },
  serviceunavailableexception: { kind: "overloaded", status: 503 },
  modeltimeoutexception: { kind: "timeout", status: 408 },
  modelerrorexception: { kind: "api_error", status: 502 },
  modelstreamerrorexception: { kind: "api_error", status: 502 },
  validationexception: { kind: "invalid_request", status: 400 },
  conflictexception: { kind: "invalid_request", status: 400 },
  accessdeniedexception: { kind: "permission", status: 403 },
  resourcenotfoundexception: { kind: "not_found", status: 404 },
  unrecognizedclientexception: { kind: "authentication" },
  invalidsignatureexception: { kind: "authentication" },
  expiredtokenexception: { kind: "authentication" },
  incompletesignatureexception: { kind: "authentication" },
};

/** An HTTP error answer from Bedrock Runtime. */
export function decodeError(status: number, body: unknown, headers: IncomingHeaders): GatewayError {
  const name = exceptionName(headerValue(headers["x-amzn-errortype"]), body);
  const known = name ? EXCEPTIONS[name.toLowerCase()] : undefined;
  const message = messageOf(body) ?? `upstream answered HTTP ${status}${name ? ` (${name})` : ""}`;
  const retryAfter = retryAfterSeconds(headers);
  return new GatewayError(known?.kind ?? kindForStatus(status), message, {
    status: known?.status ?? status,
    retryAfter,
  });
}

/** An exception frame in the middle of a stream (`exceptionType`, its JSON payload as text). */
export function streamException(exceptionType: string, data: string): GatewayError {
  let body: unknown;
  try {
    body = JSON.parse(data);
  } catch {
    body = data;
  }
  const known = EXCEPTIONS[exceptionType.toLowerCase()];
  const message = messageOf(body) ?? `upstream stream failed (${exceptionType})`;
  return new GatewayError(known?.kind ?? "api_error", message, { status: known?.status ?? 502 });
}

/** The exception's short name: the header's part before `:`, or the `__type`'s after `#`. */
function exceptionName(header: string | undefined, body: unknown): string | undefined {
  const fromHeader = header?.split(":")[0].trim();
  if (fromHeader) return fromHeader;
  const type = isObject(body) ? body.__type : undefined;
  return typeof type === "string" && type !== "" ? type.split("#").pop() : undefined;
}

function messageOf(body: unknown): string | undefined {
  if (typeof body === "string") return body.trim() || undefined;
  if (!isObject(body)) return undefined;
  const message = body.message ?? body.Message;
  if (typeof message !== "string" || message === "") return undefined;
  // A model's own failure quotes what the model said.
  return typeof body.originalMessage === "string" && body.originalMessage !== ""
    ? `${message}: ${body.originalMessage}`
    : message;
}
