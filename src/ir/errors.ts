// Errors in one vocabulary; each protocol module renders them in its native body and status.

export type ErrorKind =
  | "invalid_request" // 400
  | "authentication" // 401
  | "payment_required" // 402
  | "permission" // 403
  | "not_found" // 404
  | "request_too_large" // 413
  | "rate_limit" // 429
  | "api_error" // 500 / upstream 5xx
  | "timeout" // 504 / upstream timeout
  | "overloaded"; // 503 / 529

const defaultStatus: Record<ErrorKind, number> = {
  invalid_request: 400,
  authentication: 401,
  payment_required: 402,
  permission: 403,
  not_found: 404,
  request_too_large: 413,
  rate_limit: 429,
  api_error: 500,
  timeout: 504,
  overloaded: 503,
};

export class GatewayError extends Error {
  readonly kind: ErrorKind;
  readonly status: number;
  /** The request field at fault, as the client wrote it (`messages[2].content`, `generationConfig.topP`). */
  readonly param?: string;
  /** Seconds, from an upstream `retry-after`. */
  readonly retryAfter?: number;
  /** Response headers that go with the error (a rate limit's `x-ratelimit-*`). */
  readonly headers?: Record<string, string>;
  /** A machine-readable code clients key on, where the API defines one (`previous_response_not_found`). */
  readonly code?: string;

  constructor(
    kind: ErrorKind,
    message: string,
    opts: {
      status?: number;
      param?: string;
      retryAfter?: number;
      headers?: Record<string, string>;
      code?: string;
    } = {},
  ) {
    super(message);
    this.name = "GatewayError";
    this.kind = kind;
    this.status = opts.status ?? defaultStatus[kind];
    this.param = opts.param;
    this.retryAfter = opts.retryAfter;
    this.headers = opts.headers;
    this.code = opts.code;
  }
}

/**
 * A stream frame from the upstream whose data is not JSON: the upstream broke its protocol, so the
 * caller gets a 502 (the same for every protocol's stream decoder).
 */
export function upstreamFrameNotJson(): GatewayError {
  return new GatewayError("api_error", "upstream sent a stream chunk that is not JSON", { status: 502 });
}

/**
 * An upstream stream that stopped before the event that ends it (`missing`): the answer is cut short,
 * so the caller gets a 502 however much came before (the same for every protocol's stream decoder).
 */
export function upstreamStreamCut(missing: string): GatewayError {
  return new GatewayError("api_error", `upstream stream ended without ${missing}`, { status: 502 });
}

/** An upstream stream event that outgrew `limitBytes` without ending (no blank line): a 502. */
export function upstreamEventTooLarge(limitBytes: number): GatewayError {
  return new GatewayError("api_error", `upstream sent a stream event longer than ${sizeText(limitBytes)}`, {
    status: 502,
  });
}

/** A size limit as people read it: whole MiB, or bytes below one. */
export function sizeText(bytes: number): string {
  return bytes >= 1024 * 1024 ? `${Math.floor(bytes / (1024 * 1024))} MiB` : `${bytes} bytes`;
}

/**
 * The param of an error about the prompt raised on the IR (invalidPrompt): each protocol keeps the
 * prompt in its own member, and the error's answer names that one (gateway/error-answer.ts,
 * Protocol.promptField). Such errors come before any answer, never within a stream.
 */
export const PROMPT = "(prompt)";

/**
 * A 400 about the prompt found after decoding (by an upstream's encoder, a local model), where only
 * the IR's positions are known: they are not the client's (a chat system message, a Responses item,
 * a content part each count differently), so the error names the caller's prompt member and its
 * message says which part (a tool call's id, the kind of block).
 */
export function invalidPrompt(message: string): GatewayError {
  return new GatewayError("invalid_request", message, { param: PROMPT });
}

/** A 400: the prompt does not fit the model's context window. */
export function promptTooLong(contextLength: number | undefined): GatewayError {
  return invalidPrompt(`The prompt is longer than this model's context window of ${contextLength} tokens.`);
}

/**
 * A 400: the prompt holds no message the upstream can take (none at all, or only a system prompt
 * for a protocol that needs a turn: UpstreamFace.needsTurn).
 */
export function emptyPrompt(systemOnly: boolean): GatewayError {
  const why = systemOnly
    ? "must hold a message with content besides the system prompt (instructions): this model's provider takes no request without one"
    : "must hold at least one message with content";
  return invalidPrompt(why);
}

/** A 400 naming the field at fault. */
export function invalid(param: string, message: string): GatewayError {
  return new GatewayError("invalid_request", `${param}: ${message}`, { param });
}

/** Maps an HTTP status (ours or an upstream's) to the error kind the protocols know. */
export function kindForStatus(status: number): ErrorKind {
  if (status === 400 || status === 422) return "invalid_request";
  if (status === 401) return "authentication";
  if (status === 402) return "payment_required";
  if (status === 403) return "permission";
  if (status === 404) return "not_found";
  if (status === 413) return "request_too_large";
  if (status === 429) return "rate_limit";
  if (status === 408 || status === 504) return "timeout";
  if (status === 503 || status === 529) return "overloaded";
  if (status >= 400 && status < 500) return "invalid_request";
  return "api_error";
}
