// How one attempt reaches its endpoint. Two implementations of one interface, chosen per attempt:
// - relayed: the client speaks the upstream's protocol, so its bytes go upstream with targeted edits
//   and the upstream's bytes come back the same way (src/protocols/<name>/relay.ts), a tap reading
//   usage and the finish reason;
// - translated: the IR request is encoded for the upstream by its adapter, and its answer (IR
//   events) is encoded for the client by the client's protocol.
// The pipeline (src/gateway/inference.ts) knows only this interface: a protocol is added as a module
// under src/protocols/ and a line in its tables, never as another branch of the request path.

import { GatewayError, invalid } from "../ir/errors.ts";
import type { Request } from "../ir/request.ts";
import type { Response } from "../ir/response.ts";
import type { StreamEvent } from "../ir/stream.ts";
import { relays } from "../protocols/relays.ts";
import { Unsent } from "../protocols/shared/dropped-fields.ts";
import type {
  EncodeContext,
  IncomingHeaders,
  Protocol,
  ProtocolName,
  Relay,
  StreamEncoder,
  UpstreamTarget,
} from "../protocols/types.ts";
import { malformedAnswer } from "../providers/http/transport-errors.ts";
import { canRelay, type ProviderAdapter, type RelayingAdapter, type Target } from "../providers/types.ts";
import { RelayStream } from "./relay-stream.ts";
import type { HeaderMap, Responder } from "./responder.ts";

/** What a route needs of the inference it serves. */
export interface RouteCall {
  face: ProtocolName;
  protocol: Protocol;
  /**
   * The client's body as received: relays forward it with targeted edits only. Released (undefined)
   * once an endpoint has answered, when no further attempt can need it.
   */
  rawBody: string | undefined;
  /** The client's request headers. */
  clientHeaders: IncomingHeaders;
  request: Request;
  ctx: EncodeContext;
}

/** A piece of the client's stream and the IR events it stands for (the meter's tap). */
export interface Piece {
  /** The client's bytes: text, or a relay's upstream bytes passed on (relay-stream.ts). */
  text: string | Buffer;
  /**
   * `text` spells bytes one character per byte (a relay's: relay-stream.ts), written as latin1;
   * otherwise a string is text, written as UTF-8.
   */
  latin1?: boolean;
  events: StreamEvent[];
  /** A relay passed on content it did not decode (Relay.contentOnly): tokens are flowing. */
  content?: boolean;
}

/** What the meter reads from a whole answer. */
export type Tapped = Pick<Response, "usage" | "finishReason">;

/** A whole answer, read and metered, not yet written. */
export interface WholeAnswer {
  tapped: Tapped;
  /** A translated answer's blocks (a relay reads only what the meter needs). */
  content?: Response["content"];
  /** Writes the answer to the client (encoded only now: after the overhead is measured). */
  send(out: Responder, headers: HeaderMap): void;
}

export interface Route {
  /**
   * The client's bytes go to the upstream and back with targeted edits: the pieces' events are
   * what the meter needs, not the whole answer (a translated route's are the whole answer).
   */
  readonly relayed: boolean;
  /**
   * The request fields the answering upstream never saw (`x-switchyard-ignored`): complete once
   * `complete` resolves or `stream` has yielded its first piece.
   */
  unsent(): string[];
  complete(signal: AbortSignal): Promise<WholeAnswer>;
  /**
   * The client's stream as pieces of its wire text, each with the IR events it stands for. Failures
   * before the first piece are thrown; an upstream error after that is a piece of its own (its
   * events hold the `error`), written in the client's protocol, and ends the stream.
   */
  stream(signal: AbortSignal): AsyncIterable<Piece>;
  /**
   * The piece that ends a stream which failed other than by an upstream error `stream` met itself
   * (a fault of the gateway's): written by the stream's own encoder, so the client sees one stream
   * that ends in an error, never the opening of a second one.
   */
  failStream(error: GatewayError): Piece;
  /**
   * The output tokens of what the stream passed on without decoding it (a relay's content events),
   * estimated: the meter saw no text of them. For a stream cut before its usage (Meter.estimate).
   */
  undecodedOutputTokens?(): number;
}

export function routeFor(platformOrAdapter: ProviderAdapter, target: Target, call: RouteCall): Route {
  const adapter = platformOrAdapter.select?.(target.upstreamModel, call.face) ?? platformOrAdapter;
  return canRelay(adapter, call.face)
    ? new RelayedRoute(adapter, target, call, relays[call.face])
    : new TranslatedRoute(adapter, target, call);
}

/** Same protocol in and out: bytes relayed with targeted edits. */
class RelayedRoute implements Route {
  readonly relayed = true;
  private readonly adapter: RelayingAdapter;
  private readonly target: Target;
  private readonly call: RouteCall;
  private readonly relay: Relay;
  /** What the upstream did not get: what the relay removed of the client's body (Relay.request). */
  private readonly unsentFields = new Unsent();
  /** The stream under way, once the upstream has answered. */
  private under: RelayStream | undefined;

  constructor(adapter: RelayingAdapter, target: Target, call: RouteCall, relay: Relay) {
    this.adapter = adapter;
    this.target = target;
    this.call = call;
    this.relay = relay;
  }

  unsent(): string[] {
    return this.unsentFields.list();
  }

  undecodedOutputTokens(): number {
    return this.under?.undecodedOutputTokens() ?? 0;
  }

  async complete(signal: AbortSignal): Promise<WholeAnswer> {
    const relayed = await this.adapter.relay(this.upstreamCall(false), signal);
    const text = await relayed.text();
    const tapped = this.tap(text);
    const { relay, call } = this;
    return { tapped, send: (out, headers) => out.jsonText(200, headers, relay.response(text, call.ctx)) };
  }

  async *stream(signal: AbortSignal): AsyncIterable<Piece> {
    const { relay, call } = this;
    const answer = await this.adapter.relay(this.upstreamCall(true), signal);
    // The stream's one encoder: it writes the errors that end it, after the upstream's own bytes.
    const stream = new RelayStream(
      relay,
      call.ctx,
      call.protocol.streamDecoder(),
      call.protocol.streamEncoder(call.ctx),
    );
    this.under = stream;
    // One piece per network read (two when an error cuts it, which ends the stream).
    // (`for…yield`, not `yield*`: delegating to an array from an async generator wraps every step
    // in promises of its own.)
    try {
      for await (const chunk of answer.chunks()) {
        for (const piece of stream.read(chunk)) yield piece;
        if (stream.failed) return;
      }
    } catch (err) {
      // The upstream broke off (reset, stalled: the exchange's GatewayError): as the translated
      // route's adapter does, the failure is the stream's last piece. A client that left is no
      // failure to write, and anything else is the gateway's own fault (the pipeline's to log).
      if (signal.aborted || !(err instanceof GatewayError)) throw err;
      for (const piece of stream.fail(err)) yield piece;
      return;
    }
    for (const piece of stream.end()) yield piece;
  }

  failStream(error: GatewayError): Piece {
    const events: StreamEvent[] = [{ type: "error", error }];
    const pieces = this.under?.fail(error) ?? [];
    return { text: pieces.map((p) => p.text).join(""), latin1: true, events };
  }

  private upstreamCall(stream: boolean) {
    const { call, relay } = this;
    if (call.rawBody === undefined)
      throw new Error("the client's body was released: an endpoint has answered");
    const { quirks } = this.adapter;
    const target: UpstreamTarget = { model: this.target.upstreamModel, stream };
    if (quirks) target.quirks = quirks;
    if (this.target.model.reasoning) target.reasoningModel = true;
    if (keptByMemory(call.ctx)) target.kept = true;
    const { path, body } = relay.request(call.rawBody, call.request, target, this.unsentFields);
    return { path, body, headers: relay.headers?.(call.clientHeaders) ?? {}, stream };
  }

  /** Usage and finish reason of a relayed answer, read without decoding it; malformed JSON is a 502. */
  private tap(text: string): Tapped {
    try {
      return this.relay.tap(text);
    } catch {
      throw malformedAnswer(this.target.provider.id);
    }
  }
}

/** Through the IR: the adapter encodes for its upstream, the client's protocol encodes the answer. */
class TranslatedRoute implements Route {
  readonly relayed = false;
  private readonly adapter: ProviderAdapter;
  private readonly target: Target;
  private readonly call: RouteCall;
  /**
   * What the upstream did not get: the fields the client face set aside, then what the adapter
   * leaves out as it encodes the request, before anything reaches the client.
   */
  private readonly report: Unsent;
  /** The client's encoder of the stream under way. */
  private encoder: StreamEncoder | undefined;

  constructor(adapter: ProviderAdapter, target: Target, call: RouteCall) {
    this.adapter = adapter;
    this.target = target;
    this.call = call;
    this.report = new Unsent(call.request.ignored);
  }

  unsent(): string[] {
    return this.report.list();
  }

  async complete(signal: AbortSignal): Promise<WholeAnswer> {
    const { call } = this;
    refuseCandidates(call.request);
    const response = await this.adapter.complete(call.request, this.target, signal, this.report);
    return {
      tapped: response,
      content: response.content,
      send: (out, headers) => out.json(200, headers, call.protocol.encodeResponse(response, call.ctx)),
    };
  }

  async *stream(signal: AbortSignal): AsyncIterable<Piece> {
    refuseCandidates(this.call.request);
    const encoder = this.call.protocol.streamEncoder(this.call.ctx);
    this.encoder = encoder;
    for await (const batch of this.adapter.stream(this.call.request, this.target, signal, this.report)) {
      // An error is a piece of its own, after what came before it (see the relayed route).
      const failedAt = batch.findIndex((event) => event.type === "error");
      for (const events of failedAt > 0 ? [batch.slice(0, failedAt), batch.slice(failedAt)] : [batch]) {
        let text = "";
        for (const event of events) text += encoder.encode(event);
        yield { text, events };
      }
    }
    yield { text: encoder.end(), events: [] };
  }

  failStream(error: GatewayError): Piece {
    const events: StreamEvent[] = [{ type: "error", error }];
    return { text: this.encoder?.encode(events[0]) ?? "", events };
  }
}

/** The Responses API's memory keeps the answer: stored, or appended to its conversation. */
function keptByMemory(ctx: EncodeContext): boolean {
  return ctx.memory !== undefined && (ctx.memory.store || ctx.memory.conversationId !== undefined);
}

/**
 * An IR answer has one candidate: several (content-generation `candidateCount`) are served only by
 * a relay to a content-generation upstream, which returns them all (docs/translation.md §13f).
 */
function refuseCandidates(request: Request): void {
  if (request.candidateCount !== undefined && request.candidateCount > 1)
    throw invalid(
      "generationConfig.candidateCount",
      "more than 1 candidate is served only by a content-generation upstream; this model's endpoint speaks another protocol",
    );
}
