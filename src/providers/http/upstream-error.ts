// What an upstream's error answer is to the caller: the protocol's (or a cloud platform's) error,
// except that a refused credential is the gateway's fault, not the client's, and that no message
// goes back holding the provider's key.

import type { ProviderConfig } from "../../config/providers.ts";
import { GatewayError } from "../../ir/errors.ts";
import type { IncomingHeaders, UpstreamFace } from "../../protocols/types.ts";
import { errorBody, type PlatformTransport, type UpstreamAnswer } from "./transport.ts";

/** Who answered: the provider, the protocol that reads its errors, the platform if it has one. */
export interface ErrorSource {
  provider: ProviderConfig;
  protocol: Pick<UpstreamFace, "decodeError">;
  platform?: PlatformTransport;
}

/** An answer with an error status as the GatewayError to throw (its body read). */
export async function failedAnswer(res: UpstreamAnswer, source: ErrorSource): Promise<GatewayError> {
  return upstreamError(res.statusCode, await errorBody(res), res.headers as IncomingHeaders, source);
}

/**
 * An upstream's error answer in the caller's terms. A 401 or 403 means the gateway's own credential
 * for this provider was refused: the client's key is fine, so the client gets a 502 naming the
 * provider, and never the upstream's message (it may quote part of that credential).
 */
export function upstreamError(
  status: number,
  body: unknown,
  headers: IncomingHeaders,
  { provider, protocol, platform }: ErrorSource,
): GatewayError {
  const platformError = platform?.decodeError?.(status, body, headers);
  if (platformError ? platformError.kind === "authentication" : status === 401 || status === 403) {
    platform?.auth.refused?.();
    return new GatewayError(
      "api_error",
      `Provider '${provider.id}' refused the gateway's credentials (HTTP ${status}); check its ${platform ? "credentials (docs/clouds.md)" : "api_key"}.`,
      { status: 502 },
    );
  }
  const error = platformError ?? protocol.decodeError(status, body, headers);
  const key = provider.apiKey;
  if (!key || !error.message.includes(key)) return error;
  return new GatewayError(error.kind, error.message.replaceAll(key, "[redacted]"), {
    status: error.status,
    param: error.param,
    retryAfter: error.retryAfter,
  });
}
