// A provider reached over HTTP in its own protocol: its relayed calls (same protocol in and out:
// the client's bytes, edited by src/gateway/route.ts) and its translated calls (another protocol's
// client: src/providers/translated/call.ts) go over one transport (transport.ts), which only moves
// bytes and keeps time. A cloud platform's hooks and authorization are the transport's.

import type { ProviderConfig } from "../../config/providers.ts";
import type { UpstreamCounting } from "../../protocols/types.ts";
import { type ProviderQuirks, quirksOf } from "../quirks.ts";
import { TranslatedCall } from "../translated/call.ts";
import type { ProviderAdapter, RelayedAnswer, RelayingAdapter, UpstreamProtocol } from "../types.ts";
import { HttpTransport, type PlatformTransport, type TransportCall } from "./transport.ts";
import { type ErrorSource, failedAnswer } from "./upstream-error.ts";

export class HttpProvider implements RelayingAdapter {
  readonly provider: ProviderConfig;
  readonly protocol: UpstreamProtocol;
  readonly relayProtocol: string;
  readonly counting?: UpstreamCounting;
  readonly quirks: ProviderQuirks | undefined;
  private readonly transport: HttpTransport;
  private readonly errors: ErrorSource;
  private readonly translated: TranslatedCall;

  /**
   * `platform`: a cloud platform's paths, bodies and answers (src/providers/platforms/) and its
   * authorization (src/providers/auth/), which the transport applies to every call.
   */
  constructor(provider: ProviderConfig, protocol: UpstreamProtocol, platform?: PlatformTransport) {
    this.provider = provider;
    this.protocol = protocol;
    this.relayProtocol = protocol.name;
    this.counting = protocol.tokenCounting ?? protocol.countTokens;
    this.quirks = quirksOf(provider);
    this.transport = new HttpTransport(provider, platform);
    const errors = { provider, protocol, platform };
    this.errors = errors;
    this.translated = new TranslatedCall(this.transport, errors, this.quirks);
  }

  /** Closes the pooled connections once the requests using them are done. */
  close(): Promise<void> {
    return this.transport.close();
  }

  // The translated calls (another protocol's client), as the translated call makes them.
  readonly complete: ProviderAdapter["complete"] = (req, target, signal, report) =>
    this.translated.complete(req, target, signal, report);
  readonly stream: ProviderAdapter["stream"] = (req, target, signal, report) =>
    this.translated.stream(req, target, signal, report);
  readonly embed: NonNullable<ProviderAdapter["embed"]> = (request, target, signal, report) =>
    this.translated.embed(request, target, signal, report);

  async relay(
    call: TransportCall & { headers: Record<string, string> },
    signal: AbortSignal,
  ): Promise<RelayedAnswer> {
    const res = await this.transport.post(call, signal);
    if (res.statusCode >= 400) throw await failedAnswer(res, this.errors);
    // Only the body is kept: the answer's head (its headers' strings) is not needed while it streams.
    return res.body;
  }
}
