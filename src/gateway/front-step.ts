// The front step every authenticated API request takes before its own work: the caller's key, read
// where its protocol puts it and authenticated; the body, refused past the size limit, and parsed
// with the front door's checks (request-body.ts). Inference, embeddings, token counting, stored
// responses, conversations and the generation lookup all come through here, so none of them can
// disagree with another on who is calling or what a body may be (docs/architecture.md §8).

import type { Authenticator, Caller } from "../auth/authenticator.ts";
import { type Face, presentedKey } from "../auth/credentials.ts";
import { GatewayError } from "../ir/errors.ts";
import type { IncomingHeaders } from "../protocols/types.ts";
import { bodyText, parseBody } from "./request-body.ts";

/** What the front step reads of a request: its credentials and, where it has one, its body. */
export interface FrontInput {
  headers: IncomingHeaders;
  query: Record<string, unknown>;
  /** The body as text (src/server/inference-routes.ts readBody); let go once read here. */
  body?: string | undefined;
}

/** The caller a request's key belongs to (a key seen lately is answered from the authenticator's cache). */
export function callerOf(auth: Authenticator, face: Face, input: FrontInput): Promise<Caller> {
  return auth.authenticate(presentedKey(face, input.headers, input.query));
}

/** A request body as JSON: refused when empty; a long one parsed in turns of the event loop. */
export function bodyJson(body: string | undefined): unknown {
  return parseBody(bodyText(body));
}

/** The caller, then the body as text (for a relay) and as JSON. */
export async function frontStep(
  auth: Authenticator,
  face: Face,
  input: FrontInput,
): Promise<{ caller: Caller; rawBody: string | undefined; json: unknown }> {
  const caller = await callerOf(auth, face, input);
  // From here the caller holds the body alone: a stream may stay open for minutes, and a prompt
  // can weigh megabytes.
  const rawBody = bodyText(input.body);
  input.body = undefined;
  return { caller, rawBody, json: await parseBody(rawBody) };
}

/** A body past the limit (`server.body_limit_bytes`), on every route: a 413 naming the body. */
export function bodyTooLarge(limit: number): GatewayError {
  return new GatewayError("request_too_large", `The request body exceeds ${limit} bytes.`, {
    param: "body",
  });
}
