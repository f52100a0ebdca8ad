// Moves bytes to and from one provider's upstream and keeps time: a POST over the provider's pooled
// connections (dispatcher.ts, exchange.ts), authorized by the provider's key (auth-headers.ts) or, on
// a cloud platform, shaped by its hooks (src/providers/platforms/) and authorized by its auth
// (src/providers/auth/) over exactly the bytes sent. What a call holds and what its answer means is
// decided above it: by the translated call (src/providers/translated/call.ts) or the relay
// (src/gateway/route.ts).

import type { Dispatcher } from "undici";
import type { ProviderConfig } from "../../config/providers.ts";
import type { UpstreamAuth } from "../auth/types.ts";
import type { PlatformHooks } from "../platforms/types.ts";
import { upstreamHeaders } from "./auth-headers.ts";
import { upstreamDispatcher } from "./dispatcher.ts";
import { invalidUrl, post } from "./exchange.ts";
import { transportError } from "./transport-errors.ts";

/** A cloud platform's part in a transport: what it changes of each call and answer, and its authorization. */
export type PlatformTransport = PlatformHooks & { auth: UpstreamAuth };

/** One call as its protocol made it: the path under the provider's base URL, the body, extra headers. */
export interface TransportCall {
  path: string;
  body: string;
  headers?: Record<string, string>;
  stream: boolean;
}

/** An upstream's answer, once its status is known: status, headers and the body still to read. */
export type UpstreamAnswer = Awaited<ReturnType<typeof post>>;

export class HttpTransport {
  readonly dispatcher: Dispatcher;
  private readonly provider: ProviderConfig;
  private readonly platform?: PlatformTransport;
  private readonly headers: Record<string, string>;
  private readonly targets = new Map<string, { origin: string; path: string } | null>();

  constructor(provider: ProviderConfig, platform?: PlatformTransport) {
    this.provider = provider;
    this.platform = platform;
    // A platform's authorization is its auth's; the protocol's key headers would not apply.
    this.headers = platform ? { "content-type": "application/json" } : upstreamHeaders(provider);
    this.dispatcher = upstreamDispatcher(provider);
  }

  /** Closes the pooled connections once the requests using them are done. */
  close(): Promise<void> {
    return this.dispatcher.close();
  }

  /** POSTs the call and returns the answer once its status is known, whatever the status. */
  post(call: TransportCall, signal: AbortSignal): Promise<UpstreamAnswer> {
    const headers =
      call.headers && hasAny(call.headers) ? { ...call.headers, ...this.headers } : this.headers;
    if (this.platform) return this.postToPlatform(this.platform, { ...call, headers }, signal);
    return this.postNow(this.provider.baseUrl + call.path, headers, call.body, call.stream, signal);
  }

  /** A cloud platform's call: on its paths, in its bodies, then authorized over exactly what is sent. */
  private async postToPlatform(
    platform: PlatformTransport,
    call: { path: string; body: string; headers: Record<string, string>; stream: boolean },
    signal: AbortSignal,
  ): Promise<UpstreamAnswer> {
    const shaped = platform.shape(call);
    const url = this.provider.baseUrl + shaped.path;
    const headers = await platform.auth.authorize({ url, headers: shaped.headers, body: shaped.body });
    const answer = await this.postNow(url, headers, shaped.body, call.stream, signal);
    // A platform that writes answers otherwise (Bedrock's event stream) gives them as the protocol's.
    if (!platform.answer || answer.statusCode >= 400) return answer;
    return { ...answer, body: platform.answer(call, answer.body) };
  }

  private postNow(
    url: string,
    headers: Record<string, string>,
    body: string,
    stream: boolean,
    signal: AbortSignal,
  ): Promise<UpstreamAnswer> {
    // A whole answer comes when the generation is done (minutes for a reasoning model); a stream's
    // first byte comes early.
    const headersTimeout = stream ? this.provider.timeouts.firstByteMs : this.provider.timeouts.requestMs;
    const target = this.targetOf(url);
    if (!target) throw this.transportError(invalidUrl());
    return post(this.dispatcher, { ...target, headers, body, headersTimeout }, signal, this.transportError);
  }

  /** An undici failure (or an abort's reason) as the GatewayError it is to the caller. */
  private readonly transportError = (err: unknown) => transportError(err, this.provider.id);

  /**
   * The origin and path of this URL as undici's dispatch takes them, worked out once per URL;
   * undefined for one that is not http(s), which `post` refuses as a transport error.
   */
  private targetOf(url: string): { origin: string; path: string } | undefined {
    let target = this.targets.get(url);
    if (target === undefined) {
      target = splitUrl(url) ?? null;
      // One URL per path the provider's protocol calls: few, but bounded all the same.
      if (this.targets.size >= 1000) this.targets.clear();
      this.targets.set(url, target);
    }
    return target ?? undefined;
  }
}

/** An error answer's body: parsed when it is JSON, else its text (the protocol reads that as the message). */
export async function errorBody(res: UpstreamAnswer): Promise<unknown> {
  const text = await res.body.text().catch(() => "");
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** An http(s) URL as origin and path (with its query); undefined for any other. */
function splitUrl(url: string): { origin: string; path: string } | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return undefined;
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:") return undefined;
  return {
    origin: parsed.origin,
    path: parsed.search ? `${parsed.pathname}${parsed.search}` : parsed.pathname,
  };
}

function hasAny(headers: Record<string, string>): boolean {
  for (const _ in headers) return true;
  return false;
}
