// How an HTTP upstream call is authorized: the transport (src/providers/http/transport.ts) hands each
// request, exactly as it will send it, to its provider's UpstreamAuth and sends the headers it gets
// back. A plain provider's key is a fixed header; a cloud platform's credential is a token that
// expires (Google, Entra ID) or a signature over the very bytes sent (AWS SigV4). docs/clouds.md.

import { GatewayError } from "../../ir/errors.ts";

/** One request as it goes on the wire. */
export interface OutgoingRequest {
  /** The whole URL, with its query. */
  url: string;
  /** Every header to send but the authorization; never changed by the auth. */
  headers: Record<string, string>;
  /** The body, sent as its UTF-8 bytes. */
  body: string;
}

export interface UpstreamAuth {
  /**
   * The headers to send with this request: its own and the authorization. A credential that cannot
   * be had throws a GatewayError naming the provider and the cause, never the secret.
   */
  authorize(request: OutgoingRequest): Promise<Record<string, string>>;
  /**
   * The platform refused the credential last sent (revoked, expired early): it is forgotten, so the
   * next call gets a new one instead of sending it again until it would have expired.
   */
  refused?(): void;
}

/** Tokens are renewed this long before they expire, so none goes out about to lapse. */
export const REFRESH_MARGIN_MS = 5 * 60_000;

/**
 * A credential that could not be had (none found, expired, refused by the token service): a 502 the
 * router may retry on another endpoint, naming the provider and the cause. Only the error's first
 * line is kept, and no part of it that looks like a token.
 */
export function credentialError(providerId: string, err: unknown): GatewayError {
  const raw = err instanceof Error ? `${err.name}: ${err.message}` : String(err);
  const cause = (raw.split("\n")[0] ?? "").replace(/[A-Za-z0-9+_=.-]{32,}/g, "[redacted]").slice(0, 300);
  return new GatewayError(
    "api_error",
    `Provider '${providerId}' has no usable credentials (${cause}); see docs/clouds.md.`,
    { status: 502 },
  );
}

/** A bearer token source whose tokens are kept until shortly before they expire. */
export class CachedToken {
  private readonly fetchToken: () => Promise<{ token: string; expiresAt: number }>;
  private current: { token: string; expiresAt: number } | undefined;
  private pending: Promise<string> | undefined;

  constructor(fetchToken: () => Promise<{ token: string; expiresAt: number }>) {
    this.fetchToken = fetchToken;
  }

  /** Forgets the cached token: the next `get` fetches one. */
  forget(): void {
    this.current = undefined;
  }

  /** The cached token, or a new one when it is about to expire (one fetch however many callers wait). */
  get(): Promise<string> {
    const current = this.current;
    if (current && current.expiresAt - REFRESH_MARGIN_MS > Date.now()) return Promise.resolve(current.token);
    this.pending ??= this.fetchToken().then(
      (fetched) => {
        this.current = fetched;
        this.pending = undefined;
        return fetched.token;
      },
      (err) => {
        this.pending = undefined;
        throw err;
      },
    );
    return this.pending;
  }
}
