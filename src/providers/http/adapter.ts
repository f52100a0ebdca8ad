// Calls an upstream over pooled keep-alive HTTP (undici; the pool is built in dispatcher.ts) in its own
// protocol: the protocol module encodes the IR request and decodes the answer; this file only moves
// bytes and keeps time.

import type { Dispatcher } from "undici";
import type { ProviderConfig } from "../../config/providers.ts";
import { batchesOf, type EmbeddingRequest, type EmbeddingResponse } from "../../ir/embeddings.ts";
import { emptyPrompt, GatewayError } from "../../ir/errors.ts";
import type { Message, Request } from "../../ir/request.ts";
import type { Response } from "../../ir/response.ts";
import {
  canEmulateStops,
  cutResponse,
  cutsStopsItself,
  StopSequenceCutter,
} from "../../ir/stop-sequences.ts";
import type { StreamEvent } from "../../ir/stream.ts";
import { ToolNames } from "../../ir/tool-names.ts";
import { SseReader } from "../../protocols/shared/sse-reader.ts";
import type {
  IncomingHeaders,
  SseEvent,
  UpstreamCall,
  UpstreamCounting,
  UpstreamEmbeddings,
  UpstreamFace,
} from "../../protocols/types.ts";
import type { UpstreamAuth } from "../auth/types.ts";
import type { PlatformHooks } from "../platforms/types.ts";
import type { CallReport, RelayedAnswer, RelayingAdapter, Target } from "../types.ts";
import { upstreamHeaders } from "./auth-headers.ts";
import { upstreamDispatcher } from "./dispatcher.ts";
import { invalidUrl, post, type UpstreamBody } from "./exchange.ts";
import { FittedBody, MAX_REFITS, ModelRefusals } from "./refusals.ts";
import { malformedAnswer, transportError } from "./transport-errors.ts";

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

export class HttpProvider implements RelayingAdapter {
  readonly provider: ProviderConfig;
  readonly protocol: UpstreamProtocol;
  readonly relayProtocol: string;
  readonly counting?: UpstreamCounting;
  readonly dispatcher: Dispatcher;
  private readonly headers: Record<string, string>;
  private readonly targets = new Map<string, { origin: string; path: string } | null>();
  /** What each of this provider's models refused (refusals.ts). */
  private readonly refusals = new ModelRefusals();
  /** A cloud platform's: its paths, bodies and answers (src/providers/platforms/), its authorization (src/providers/auth/). */
  private readonly platform?: PlatformHooks & { auth: UpstreamAuth };

  constructor(
    provider: ProviderConfig,
    protocol: UpstreamProtocol,
    platform?: PlatformHooks & { auth: UpstreamAuth },
  ) {
    this.provider = provider;
    this.protocol = protocol;
    this.relayProtocol = protocol.name;
    this.counting = protocol.tokenCounting ?? protocol.countTokens;
    this.platform = platform;
    // A platform's authorization is its auth's; the protocol's key headers would not apply.
    this.headers = platform ? { "content-type": "application/json" } : upstreamHeaders(provider);
    this.dispatcher = upstreamDispatcher(provider);
  }

  /** Closes the pooled connections once the requests using them are done. */
  close(): Promise<void> {
    return this.dispatcher.close();
  }

  async complete(req: Request, target: Target, signal: AbortSignal, report?: CallReport): Promise<Response> {
    const { res, fitted, names } = await this.sendFitted(req, target, false, signal, report);
    const text = await res.body.text();
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      throw malformedAnswer(this.provider.id);
    }
    const decoded = this.protocol.decodeResponse(json);
    const response = names ? names.response(decoded) : decoded;
    return this.emulatesStops(req, fitted) ? cutResponse(response, req.stopSequences) : response;
  }

  async *stream(
    req: Request,
    target: Target,
    signal: AbortSignal,
    report?: CallReport,
  ): AsyncIterable<StreamEvent[]> {
    const { res, fitted, names } = await this.sendFitted(req, target, true, signal, report);
    const { body } = res;
    const decoder = this.protocol.streamDecoder();
    const cutter = this.emulatesStops(req, fitted) ? new StopSequenceCutter(req.stopSequences) : undefined;
    // The decoded events in the client's terms: its tool names, cut at its stop sequences.
    const forClient = (decoded: StreamEvent[]) => {
      const events = names ? names.events(decoded) : decoded;
      return cutter ? cutter.cut(events) : events;
    };
    try {
      for await (const batch of sseBatches(body)) {
        const events: StreamEvent[] = [];
        for (const e of batch) for (const event of decoder.decode(e)) events.push(event);
        const passed = forClient(events);
        if (passed.length > 0) yield passed;
      }
    } catch (err) {
      if (signal.aborted) throw err;
      yield [{ type: "error", error: transportError(err, this.provider.id) }];
      return;
    }
    const tail = forClient(decoder.end());
    if (tail.length > 0) yield tail;
  }

  /**
   * The protocol's embedding calls: the inputs cut to its batch limit, the batches sent together and
   * their vectors joined back in order. Its token counts are summed when every batch reports one.
   */
  async embed(
    request: EmbeddingRequest,
    target: Target,
    signal: AbortSignal,
    report?: CallReport,
  ): Promise<EmbeddingResponse> {
    const codec = this.protocol.embeddings;
    if (!codec) throw noEmbeddings(this.provider.id);
    const calls = batchesOf(request.inputs, codec.batchLimit).map((inputs) => ({
      inputs,
      call: codec.encodeEmbedRequest(request, inputs, { model: target.upstreamModel }),
    }));
    if (report) report.dropped = [...new Set(calls.flatMap(({ call }) => call.dropped ?? []))];
    const answers = await Promise.all(
      calls.map(async ({ inputs, call }) => {
        const res = await this.send(call.path, JSON.stringify(call.body), signal, { stream: false });
        const text = await res.body.text();
        let answer: EmbeddingResponse;
        try {
          answer = codec.decodeEmbedResponse(JSON.parse(text));
        } catch {
          throw malformedAnswer(this.provider.id);
        }
        if (answer.vectors.length !== inputs.length) throw malformedAnswer(this.provider.id);
        return answer;
      }),
    );
    const vectors = answers.flatMap((answer) => answer.vectors);
    if (answers.some((answer) => answer.promptTokens === undefined)) return { vectors };
    return { vectors, promptTokens: answers.reduce((sum, answer) => sum + (answer.promptTokens ?? 0), 0) };
  }

  async relay(
    call: { path: string; body: string; headers: Record<string, string>; stream: boolean },
    signal: AbortSignal,
  ): Promise<RelayedAnswer> {
    // Only the body is kept: the answer's head (its headers' strings) is not needed while it streams.
    return (await this.send(call.path, call.body, signal, call)).body;
  }

  /**
   * The upstream's protocol has no stop sequences, or fewer than the request has, or the model
   * refused them, and the request has some the gateway can cut at.
   */
  private emulatesStops(req: Request, fitted: FittedBody): boolean {
    const { lacksStopSequences, maxStopSequences } = this.protocol;
    const unsent = lacksStopSequences === true || cutsStopsItself(req.stopSequences, maxStopSequences);
    return (unsent || fitted.stopLeftOut) && canCutAtStops(req);
  }

  /**
   * Sends the translated call once its status is known. Tool names the upstream refuses are fitted
   * to it (`names` gives the client's back: src/ir/tool-names.ts); a member the model refuses is left
   * out and the call made again (refusals.ts); what the call leaves out goes to `report` before
   * anything reaches the client. Any other error status is decoded and thrown.
   */
  private async sendFitted(
    req: Request,
    target: Target,
    stream: boolean,
    signal: AbortSignal,
    report: CallReport | undefined,
  ): Promise<{ res: UpstreamAnswer; fitted: FittedBody; names?: ToolNames }> {
    const named = ToolNames.fit(req, this.protocol.toolNames);
    const call = this.encode(named?.request ?? req, target, stream);
    const { optionalMembers: optional, limitedMembers: limited } = this.protocol;
    const fitted = new FittedBody(call.body, call.dropped, { optional, limited }, canCutAtStops(req));
    const model = target.upstreamModel;
    fitted.leaveOutRefused(this.refusals.of(model));
    for (let refits = 0; ; refits++) {
      if (report) report.dropped = fitted.droppedNames();
      const res = await this.post(call.path, JSON.stringify(fitted.body), signal, { stream });
      if (res.statusCode < 400) return { res, fitted, names: named?.names };
      const error = await errorBody(res);
      const refusal = this.protocol.refusedMember?.(res.statusCode, error);
      const leftOut = refusal && refits < MAX_REFITS ? fitted.leaveOutRefusal(refusal) : [];
      if (!refusal || leftOut.length === 0)
        throw this.upstreamError(res.statusCode, error, res.headers as IncomingHeaders);
      for (const member of leftOut) this.refusals.learn(model, member);
    }
  }

  /** The upstream call for this request, as the protocol encodes it. */
  private encode(req: Request, target: Target, stream: boolean): UpstreamCall {
    // Refused here rather than by the upstream, whose 400 would name its own field, not the client's.
    // Such an upstream's encoder leaves out a turn holding nothing (no block, or empty text only).
    const empty = this.protocol.needsTurn
      ? !req.messages.some(holdsSomething)
      : req.messages.length === 0 && req.system.length === 0;
    if (empty) throw emptyPrompt(req.system.length > 0);
    return this.protocol.encodeRequest(req, {
      model: target.upstreamModel,
      stream,
      maxOutputTokens: target.model.maxOutputTokens,
      legacyMaxTokens: target.provider.legacyMaxTokens,
      streamUsageUnasked: target.provider.streamUsageUnasked,
      requestFields: target.provider.requestFields,
      reasoningModel: target.model.reasoning,
    });
  }

  /**
   * An upstream's error answer in the caller's terms. A 401 or 403 means the gateway's own credential
   * for this provider was refused: the client's key is fine, so the client gets a 502 naming the
   * provider, and never the upstream's message (it may quote part of that credential).
   */
  private upstreamError(status: number, body: unknown, headers: IncomingHeaders): GatewayError {
    const platformError = this.platform?.decodeError?.(status, body, headers);
    if (platformError ? platformError.kind === "authentication" : status === 401 || status === 403) {
      this.platform?.auth.refused?.();
      return new GatewayError(
        "api_error",
        `Provider '${this.provider.id}' refused the gateway's credentials (HTTP ${status}); check its ${this.platform ? "credentials (docs/clouds.md)" : "api_key"}.`,
        { status: 502 },
      );
    }
    const error = platformError ?? this.protocol.decodeError(status, body, headers);
    const key = this.provider.apiKey;
    if (!key || !error.message.includes(key)) return error;
    return new GatewayError(error.kind, error.message.replaceAll(key, "[redacted]"), {
      status: error.status,
      param: error.param,
      retryAfter: error.retryAfter,
    });
  }

  /** An undici failure (or an abort's reason) as the GatewayError it is to the caller. */
  private readonly transportError = (err: unknown) => transportError(err, this.provider.id);

  /**
   * The origin and path of this URL as undici's dispatch takes them, worked out once per URL;
   * undefined for one that is not http(s), which `send` refuses as a transport error.
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

  /** POSTs and returns the answer once its status is known; an error status is decoded and thrown. */
  private async send(
    path: string,
    body: string,
    signal: AbortSignal,
    opts: { stream: boolean; headers?: Record<string, string> },
  ): Promise<UpstreamAnswer> {
    const res = await this.post(path, body, signal, opts);
    if (res.statusCode < 400) return res;
    throw this.upstreamError(res.statusCode, await errorBody(res), res.headers as IncomingHeaders);
  }

  /** POSTs and returns the answer once its status is known, whatever the status. */
  private async post(
    path: string,
    body: string,
    signal: AbortSignal,
    opts: { stream: boolean; headers?: Record<string, string> },
  ): Promise<UpstreamAnswer> {
    const headers =
      opts.headers && hasAny(opts.headers) ? { ...opts.headers, ...this.headers } : this.headers;
    if (this.platform)
      return this.postToPlatform(this.platform, { path, body, headers, stream: opts.stream }, signal);
    return this.postNow(this.provider.baseUrl + path, headers, body, opts.stream, signal);
  }

  /** A cloud platform's call: on its paths, in its bodies, then authorized over exactly what is sent. */
  private async postToPlatform(
    platform: PlatformHooks & { auth: UpstreamAuth },
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
}

type UpstreamAnswer = Awaited<ReturnType<typeof post>>;

/** A provider whose protocol has no embedding API (messages, Responses): the next endpoint may be tried. */
export function noEmbeddings(provider: string): GatewayError {
  return new GatewayError("api_error", `Provider '${provider}' serves no embeddings.`, { status: 502 });
}

/** The request has stop sequences the gateway can cut an answer at itself (src/ir/stop-sequences.ts). */
function canCutAtStops(req: Request): boolean {
  return req.stopSequences.length > 0 && canEmulateStops(req.stopSequences);
}

/** An error answer's body: parsed when it is JSON, else its text (the protocol reads that as the message). */
async function errorBody(res: UpstreamAnswer): Promise<unknown> {
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

/**
 * The SSE events of an upstream body as they arrive, in batches: the events completed by one network
 * read come together (one async step per read, not per event). A broken connection throws a
 * GatewayError.
 */
async function* sseBatches(body: UpstreamBody): AsyncIterable<SseEvent[]> {
  const reader = new SseReader();
  for await (const chunk of body.chunks()) {
    const batch = reader.read(chunk);
    if (batch.length > 0) yield batch;
  }
  const tail = reader.end();
  if (tail.length > 0) yield tail;
}

/** A turn an encoder sends: it holds a block other than empty text. */
function holdsSomething(message: Message): boolean {
  return message.content.some((block) => block.type !== "text" || block.text !== "");
}
