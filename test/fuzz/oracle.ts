// What every answer to a fuzz case must satisfy, whatever the input: no 5xx of the gateway's own,
// errors in the caller's native shape (naming the field for a bad body), only the response headers
// the gateway sends and none made from a client's CR/LF, no upstream key anywhere.

import type { FuzzCase } from "./cases.ts";
import type { Face } from "./templates.ts";
import type { Answer, Outcome } from "./transport.ts";
import { INJECTION_MARKER } from "./values.ts";

/** Every response header name the gateway (node:http, fastify and the pipeline) may send. */
export const HEADER_ALLOW_LIST = new Set([
  "content-type",
  "content-length",
  "date",
  "connection",
  "keep-alive",
  "transfer-encoding",
  "cache-control",
  "x-accel-buffering",
  "x-generation-id",
  "request-id",
  "x-switchyard-ignored",
  "x-switchyard-provider",
  "x-switchyard-overhead-ms",
  "x-switchyard-token-count",
  "retry-after",
  "deprecation",
  "link",
  // The dashboard's pages (src/admin/dashboard.ts), fixed values.
  "content-security-policy",
  "x-content-type-options",
]);

const CHAT_TYPES = new Set([
  "invalid_request_error",
  "authentication_error",
  "insufficient_quota",
  "permission_error",
  "not_found_error",
  "rate_limit_error",
  "api_error",
  "timeout_error",
  "overloaded_error",
]);

const MESSAGES_TYPES = new Set([
  "invalid_request_error",
  "authentication_error",
  "billing_error",
  "permission_error",
  "not_found_error",
  "request_too_large",
  "rate_limit_error",
  "api_error",
  "timeout_error",
  "overloaded_error",
]);

/** google.rpc.Code names, and the one each common HTTP status must carry. */
const RPC_STATUSES = new Set([
  "CANCELLED",
  "UNKNOWN",
  "INVALID_ARGUMENT",
  "DEADLINE_EXCEEDED",
  "NOT_FOUND",
  "ALREADY_EXISTS",
  "PERMISSION_DENIED",
  "RESOURCE_EXHAUSTED",
  "FAILED_PRECONDITION",
  "ABORTED",
  "OUT_OF_RANGE",
  "UNIMPLEMENTED",
  "INTERNAL",
  "UNAVAILABLE",
  "DATA_LOSS",
  "UNAUTHENTICATED",
]);
const RPC_FOR_HTTP: Record<number, string> = {
  400: "INVALID_ARGUMENT",
  401: "UNAUTHENTICATED",
  403: "PERMISSION_DENIED",
  404: "NOT_FOUND",
  429: "RESOURCE_EXHAUSTED",
  500: "INTERNAL",
  503: "UNAVAILABLE",
  504: "DEADLINE_EXCEEDED",
};

/** Statuses a failing upstream may explain (its own 5xx passed on, our 502/503/504 about it). */
const UPSTREAM_FAILURE = new Set([500, 502, 503, 504]);

export interface Verdict {
  problems: string[];
  /** Not wrong by the contract, but worth a look (printed, not failed). */
  notes: string[];
}

export function judge(c: FuzzCase, outcome: Outcome, secrets: string[]): Verdict {
  const problems: string[] = [];
  const notes: string[] = [];
  const raw = c.exchange.kind === "raw";
  if (outcome.timedOut) problems.push("hang: no complete answer within the time limit");
  if (!raw && outcome.answers.length === 0 && !outcome.timedOut) {
    if (!outcome.error?.startsWith("not sent")) problems.push(`no answer: ${outcome.error}`);
  }
  if (raw && c.exchange.kind === "raw" && outcome.answers.length > c.exchange.requests)
    problems.push(`${outcome.answers.length} answers to ${c.exchange.requests} requests`);
  const method = c.exchange.kind === "http" ? c.exchange.method : "POST";
  for (const answer of outcome.answers) judgeAnswer(c, answer, method, secrets, problems, notes);
  return { problems, notes };
}

function judgeAnswer(
  c: FuzzCase,
  answer: Answer,
  method: string,
  secrets: string[],
  problems: string[],
  notes: string[],
): void {
  const { status } = answer;
  // 529 is the messages protocol's own "overloaded".
  const explained = UPSTREAM_FAILURE.has(status) || (status === 529 && c.face === "messages");
  if (status >= 500 && !(c.upstreamFails && explained))
    problems.push(
      `status ${status}${c.upstreamFails ? " (not one an upstream failure explains)" : ""}: ${answer.body.toString("utf8").slice(0, 300)}`,
    );
  if (c.expectStatus && !c.expectStatus.includes(status))
    problems.push(`status ${status}, expected ${c.expectStatus.join(" or ")}`);
  if (status < 100 || status > 599) problems.push(`invalid status ${status}`);

  const text = answer.body.toString("utf8");
  for (const [name, value] of answer.headers) {
    if (!HEADER_ALLOW_LIST.has(name)) problems.push(`unexpected response header ${JSON.stringify(name)}`);
    // A field name holding CR/LF may be reported in x-switchyard-ignored, encoded; it must never
    // become a header of its own, nor reach a value as raw bytes.
    if (name.includes(INJECTION_MARKER) || (value.includes(INJECTION_MARKER) && /[\r\n\0]/.test(value)))
      problems.push(`header made from the request: ${JSON.stringify(`${name}: ${value}`)}`);
    if (value.includes(INJECTION_MARKER) && name !== "x-switchyard-ignored")
      problems.push(`request text in a response header: ${JSON.stringify(`${name}: ${value}`)}`);
  }
  for (const secret of secrets) {
    if (text.includes(secret) || answer.headers.some(([, v]) => v.includes(secret)))
      problems.push(`an upstream key is in the answer (${secret.slice(0, 12)}…)`);
  }
  if (text.includes("Internal error in the gateway")) problems.push("the answer reports an internal error");

  if (status >= 400 && method !== "HEAD") {
    // A raw request node:http could not parse is answered before any route: the chat shape.
    const faces: Face[] = c.exchange.kind === "raw" ? [c.face, "chat"] : [c.face];
    const shapes = faces.map((face) => shapeProblem(face, status, text));
    const fits = shapes.indexOf(undefined);
    if (fits < 0) problems.push(`error not in the ${c.face} shape: ${shapes[0]} — ${clip(text)}`);
    else if (status === 400 && c.bodyFields && !c.upstreamFails) {
      // (An upstream's own 400, passed on, says what the upstream says.)
      const named = namedField(faces[fits], text, c.bodyFields);
      if (named === undefined)
        (c.notJson ? notes : problems).push(`400 for a bad body names no field: ${clip(text)}`);
      else if (
        !c.bodyFields.includes("body") &&
        !c.bodyFields.some((f) => named.includes(f)) &&
        !named.startsWith("model")
      )
        notes.push(
          `400 names ${named}, the mutations were under ${c.bodyFields.join(", ")}: ${text.slice(0, 200)}`,
        );
    }
  }
  if (status === 200 && method !== "HEAD" && header(answer, "content-type")?.startsWith("application/json")) {
    try {
      JSON.parse(text);
    } catch {
      problems.push(`a 200 whose JSON body does not parse: ${clip(text)}`);
    }
  }
}

function header(answer: Answer, name: string): string | undefined {
  return answer.headers.find(([n]) => n === name)?.[1];
}

/** Why `text` is not an error body of `face` with this status, or undefined when it is one. */
export function shapeProblem(face: Face, status: number, text: string): string | undefined {
  let body: any;
  try {
    body = JSON.parse(text);
  } catch {
    return "not JSON";
  }
  const e = body?.error;
  if (typeof e !== "object" || e === null) return "no error object";
  if (face === "chat" || face === "responses") {
    if (Object.keys(body).length !== 1) return "members beside error";
    if (typeof e.message !== "string" || e.message === "") return "error.message";
    if (!CHAT_TYPES.has(e.type)) return `error.type ${JSON.stringify(e.type)}`;
    if (!("param" in e) || (e.param !== null && typeof e.param !== "string")) return "error.param";
    if (!("code" in e) || (e.code !== null && typeof e.code !== "string")) return "error.code";
    return undefined;
  }
  if (face === "messages") {
    if (body.type !== "error") return 'type is not "error"';
    if (typeof e.message !== "string" || e.message === "") return "error.message";
    if (!MESSAGES_TYPES.has(e.type)) return `error.type ${JSON.stringify(e.type)}`;
    return undefined;
  }
  if (e.code !== status) return `error.code ${JSON.stringify(e.code)} is not the status ${status}`;
  if (typeof e.message !== "string" || e.message === "") return "error.message";
  if (!RPC_STATUSES.has(e.status)) return `error.status ${JSON.stringify(e.status)}`;
  const expected = RPC_FOR_HTTP[status];
  if (expected && e.status !== expected) return `error.status ${e.status} for HTTP ${status}`;
  return undefined;
}

/**
 * The field an error names: the OpenAI shapes' `param`, else the path a message starts with
 * (`a.b[0].c: …`). Member names on the path may hold anything a client sent (spaces, `: `), so a
 * message that starts with one of the mutated fields is taken at its word.
 */
function namedField(face: Face, text: string, fields: string[]): string | undefined {
  const e = JSON.parse(text).error;
  if ((face === "chat" || face === "responses") && typeof e.param === "string" && e.param !== "")
    return e.param;
  const message: string = e.message;
  const mutated = fields.find((f) => new RegExp(`^${f.replace(/[^\w]/g, "\\$&")}[.[:]`).test(message));
  if (mutated)
    return message.slice(0, message.lastIndexOf(": ") > 0 ? message.lastIndexOf(": ") : mutated.length);
  const colon = message.indexOf(": ");
  const path = colon > 0 ? message.slice(0, colon) : "";
  return /^[A-Za-z_$]/.test(path) && !path.includes(". ") ? path : undefined;
}

function clip(text: string): string {
  return text.length > 300 ? `${text.slice(0, 300)}…` : text;
}
