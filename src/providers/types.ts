// An upstream adapter turns an IR request into IR events (streamed) or an IR response, for one
// configured provider. The gateway pipeline knows providers only through this interface.

import type { CatalogModel } from "../catalog/types.ts";
import type { ProviderConfig } from "../config/providers.ts";
import type { EmbeddingRequest, EmbeddingResponse } from "../ir/embeddings.ts";
import type { Request } from "../ir/request.ts";
import type { Response } from "../ir/response.ts";
import type { StreamEvent } from "../ir/stream.ts";
import type { Unsent } from "../protocols/shared/dropped-fields.ts";
import type { ProtocolName, UpstreamCounting, UpstreamEmbeddings, UpstreamFace } from "../protocols/types.ts";
import type { ProviderQuirks } from "./quirks.ts";

export interface Target {
  provider: ProviderConfig;
  /** The model name the upstream knows. */
  upstreamModel: string;
  /** The catalog record (limits fill what one protocol requires and another omits). */
  model: CatalogModel;
}

/**
 * The protocol an upstream speaks: its upstream face, named (`anthropic`, `bedrock-converse`…), and
 * its token counter (a client protocol's `tokenCounting`, the upstream-only Converse's `countTokens`)
 * and its embedding calls, when its API has them.
 */
export type UpstreamProtocol = UpstreamFace & {
  readonly name: string;
  readonly tokenCounting?: UpstreamCounting;
  readonly countTokens?: UpstreamCounting;
  readonly embeddings?: UpstreamEmbeddings;
};

/**
 * What one call learned that the pipeline reports to the client: the attempt's collector of what
 * the upstream did not get. The adapter adds to it as it encodes the request, so it is complete once
 * `complete` resolves or `stream` has yielded its first event (or thrown): before any byte goes to
 * the client.
 */
export type CallReport = Unsent;

export interface ProviderAdapter {
  /**
   * Streams the answer as IR events, in batches (the events one network read completes come
   * together: one async step per read, not per event). Failures before the first batch are thrown
   * as GatewayError (so the router may fall back); failures after it arrive as an `error` event.
   */
  stream(
    request: Request,
    target: Target,
    signal: AbortSignal,
    report?: CallReport,
  ): AsyncIterable<StreamEvent[]>;
  complete(request: Request, target: Target, signal: AbortSignal, report?: CallReport): Promise<Response>;
  /**
   * Embeds every input of the request, one vector each in order (split into as many upstream calls
   * as its batch limit needs). Absent when the upstream serves no embeddings. A platform adapter
   * (Bedrock's InvokeModel, Vertex's `:predict`) plugs in by implementing this alone.
   */
  embed?(
    request: EmbeddingRequest,
    target: Target,
    signal: AbortSignal,
    report?: CallReport,
  ): Promise<EmbeddingResponse>;
  /** Closes what the adapter holds open (pooled upstream connections); called once, by App.close. */
  close?(): Promise<void>;
  /**
   * A cloud platform's adapter serves each model family in its own protocol (src/providers/platforms/):
   * the adapter for this model and client protocol, which may relay. Absent: this adapter serves all.
   */
  select?(upstreamModel: string, face?: ProtocolName): ProviderAdapter;
}

/** An upstream answer relayed as bytes (same protocol in and out). */
export interface RelayedAnswer {
  /**
   * The whole body (non-streamed), as UTF-8 text; with `latin1`, its bytes one per character, not
   * decoded (what is written back as latin1 is then the upstream's bytes).
   */
  text(encoding?: "utf8" | "latin1"): Promise<string>;
  /**
   * The streamed body's bytes read by read, cut into events by the relayed route
   * (src/gateway/relay-stream.ts). A broken connection throws a GatewayError.
   */
  chunks(): AsyncIterable<Buffer>;
}

/** An adapter that can also relay bytes for clients of its own protocol. */
export interface RelayingAdapter extends ProviderAdapter {
  /** The protocol relayed (a ProtocolName; an upstream-only protocol's name never matches a client's). */
  readonly relayProtocol: string;
  /** What the provider does otherwise than its protocol's reference API: the relay follows it too. */
  readonly quirks?: ProviderQuirks;
  /** The upstream's token counter, when it has one: its calls go through `relay`. */
  readonly counting?: UpstreamCounting;
  relay(
    call: { path: string; body: string; headers: Record<string, string>; stream: boolean },
    signal: AbortSignal,
  ): Promise<RelayedAnswer>;
}

export function canRelay(adapter: ProviderAdapter, face: ProtocolName): adapter is RelayingAdapter {
  return (adapter as Partial<RelayingAdapter>).relayProtocol === face;
}
