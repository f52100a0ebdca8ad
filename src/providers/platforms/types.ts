// What a cloud platform changes of a call its family's protocol made (docs/clouds.md): the path (the
// platform's own URL for the model and method), the body (Anthropic's on Bedrock and Vertex carries
// its version and betas in the body, and no model) and the headers. The HTTP transport applies it to
// every call, relayed or translated, before the call is authorized (src/providers/auth/).

import { GatewayError } from "../../ir/errors.ts";
import { topLevelMembers } from "../../protocols/shared/json-edit.ts";
import type { IncomingHeaders } from "../../protocols/types.ts";
import type { UpstreamBody } from "../http/exchange.ts";

export interface PlatformCall {
  /** The path the protocol module made, for a plain provider of that protocol. */
  path: string;
  body: string;
  headers: Record<string, string>;
  stream: boolean;
}

export type ShapeCall = (call: PlatformCall) => PlatformCall;

/** What a platform changes of an HTTP transport's calls and answers. */
export interface PlatformHooks {
  shape: ShapeCall;
  /**
   * Its error answers, when they are the platform's rather than the family protocol's (Bedrock's, an
   * Azure content filter's); undefined leaves the answer to the protocol.
   */
  decodeError?(status: number, body: unknown, headers: IncomingHeaders): GatewayError | undefined;
  /**
   * A successful answer's body as the family's protocol writes it, when the platform writes it
   * otherwise (Bedrock's event-stream frames, its token count): `call` is the call as the protocol made it.
   */
  answer?(call: PlatformCall, body: UpstreamBody): UpstreamBody;
}

/** A call the platform has no endpoint for (e.g. a token count): the gateway counts itself then. */
export function noPlatformEndpoint(providerId: string, path: string): GatewayError {
  return new GatewayError("not_found", `Provider '${providerId}' has no endpoint for ${path}.`, {
    status: 404,
  });
}

/** The model a call's body names (its `model` member), or undefined. */
export function bodyModel(body: string): string | undefined {
  const span = topLevelMembers(body, ["model"]).get("model");
  if (!span) return undefined;
  const value: unknown = JSON.parse(body.slice(span.valueStart, span.end));
  return typeof value === "string" ? value : undefined;
}
