// A translated call: what a call to an upstream of another protocol than the client's must do to the
// request and to the answer, between the route (src/gateway/route.ts) and the transport
// (src/providers/http/transport.ts). The upstream's protocol module encodes the IR request and
// decodes the answer; around it, this layer refuses a prompt the upstream would refuse under its own
// field names, fits tool names to the protocol and names the answer's calls back, cuts the answer at
// stop sequences the upstream cannot take, and leaves out members the model refused, asking again
// (refusals.ts). What the upstream does not get is named in the attempt's collector (`Unsent`): the
// encoder adds to it as it leaves a field out, the refits as they leave out what a model refused.

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
import type { IncomingHeaders, SseEvent, UpstreamCall } from "../../protocols/types.ts";
import type { UpstreamBody } from "../http/exchange.ts";
import type { HttpTransport, UpstreamAnswer } from "../http/transport.ts";
import { errorBody } from "../http/transport.ts";
import { malformedAnswer, transportError } from "../http/transport-errors.ts";
import { type ErrorSource, failedAnswer, upstreamError } from "../http/upstream-error.ts";
import type { ProviderQuirks } from "../quirks.ts";
import type { CallReport, Target, UpstreamProtocol } from "../types.ts";
import { FittedBody, MAX_REFITS, ModelRefusals } from "./refusals.ts";

export class TranslatedCall {
  private readonly provider: ProviderConfig;
  private readonly protocol: UpstreamProtocol;
  private readonly transport: HttpTransport;
  private readonly errors: ErrorSource;
  private readonly quirks: ProviderQuirks | undefined;
  /** What each of this provider's models refused (refusals.ts). */
  private readonly refusals = new ModelRefusals();

  constructor(
    transport: HttpTransport,
    errors: ErrorSource & { protocol: UpstreamProtocol },
    quirks: ProviderQuirks | undefined,
  ) {
    this.provider = errors.provider;
    this.protocol = errors.protocol;
    this.transport = transport;
    this.errors = errors;
    this.quirks = quirks;
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
   * The protocol's embedding calls: the inputs cut to its batch limit, the batches sent a few at a
   * time (EMBEDDING_CALLS_AT_ONCE) and their vectors joined back in order. Its token counts are summed when every batch reports one.
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
      call: codec.encodeEmbedRequest(request, inputs, { model: target.upstreamModel }, report),
    }));
    const answers = await inTurns(calls, EMBEDDING_CALLS_AT_ONCE, async ({ inputs, call }) => {
      const res = await this.send(call.path, JSON.stringify(call.body), false, signal);
      const text = await res.body.text();
      let answer: EmbeddingResponse;
      try {
        answer = codec.decodeEmbedResponse(JSON.parse(text));
      } catch {
        throw malformedAnswer(this.provider.id);
      }
      if (answer.vectors.length !== inputs.length) throw malformedAnswer(this.provider.id);
      return answer;
    });
    const vectors = answers.flatMap((answer) => answer.vectors);
    if (answers.some((answer) => answer.promptTokens === undefined)) return { vectors };
    return { vectors, promptTokens: answers.reduce((sum, answer) => sum + (answer.promptTokens ?? 0), 0) };
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
    const call = this.encode(named?.request ?? req, target, stream, report);
    const { optionalMembers: optional, limitedMembers: limited } = this.protocol;
    const fitted = new FittedBody(call.body, { optional, limited }, canCutAtStops(req), report);
    const model = target.upstreamModel;
    fitted.leaveOutRefused(this.refusals.of(model));
    for (let refits = 0; ; refits++) {
      const res = await this.transport.post(
        { path: call.path, body: JSON.stringify(fitted.body), stream },
        signal,
      );
      if (res.statusCode < 400) return { res, fitted, names: named?.names };
      const error = await errorBody(res);
      const refusal = this.protocol.refusedMember?.(res.statusCode, error);
      const leftOut = refusal && refits < MAX_REFITS ? fitted.leaveOutRefusal(refusal) : [];
      if (!refusal || leftOut.length === 0)
        throw upstreamError(res.statusCode, error, res.headers as IncomingHeaders, this.errors);
      for (const member of leftOut) this.refusals.learn(model, member);
    }
  }

  /** The upstream call for this request, as the protocol encodes it, naming what it leaves out in `report`. */
  private encode(
    req: Request,
    target: Target,
    stream: boolean,
    report: CallReport | undefined,
  ): UpstreamCall {
    // Refused here rather than by the upstream, whose 400 would name its own field, not the client's.
    // Such an upstream's encoder leaves out a turn holding nothing (no block, or empty text only).
    const empty = this.protocol.needsTurn
      ? !req.messages.some(holdsSomething)
      : req.messages.length === 0 && req.system.length === 0;
    if (empty) throw emptyPrompt(req.system.length > 0);
    return this.protocol.encodeRequest(
      req,
      {
        model: target.upstreamModel,
        stream,
        maxOutputTokens: target.model.maxOutputTokens,
        reasoningModel: target.model.reasoning,
        quirks: this.quirks,
      },
      report,
    );
  }

  /** POSTs and returns the answer once its status is known; an error status is decoded and thrown. */
  private async send(
    path: string,
    body: string,
    stream: boolean,
    signal: AbortSignal,
  ): Promise<UpstreamAnswer> {
    const res = await this.transport.post({ path, body, stream }, signal);
    if (res.statusCode < 400) return res;
    throw await failedAnswer(res, this.errors);
  }
}

/** A provider whose protocol has no embedding API (messages, Responses): the next endpoint may be tried. */
export function noEmbeddings(provider: string): GatewayError {
  return new GatewayError("api_error", `Provider '${provider}' serves no embeddings.`, { status: 502 });
}

/**
 * How many of one request's embedding calls are at the upstream at once. A batch of thousands of
 * inputs cut to a small per-call limit (Gemini's 100, Vertex's one) would otherwise open that many
 * connections at once: one client's request would take the provider's pool and its rate limit from
 * everyone else's, and trip the upstream's own concurrency limits with 429s.
 */
const EMBEDDING_CALLS_AT_ONCE = 4;

/**
 * `work` over `items`, at most `atOnce` of them running at a time, the results in the items' order.
 * Once one fails no further item is started, and the failure is thrown.
 */
async function inTurns<T, R>(
  items: readonly T[],
  atOnce: number,
  work: (item: T) => Promise<R>,
): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  let failed = false;
  const worker = async () => {
    while (!failed && next < items.length) {
      const i = next++;
      try {
        results[i] = await work(items[i]!);
      } catch (err) {
        failed = true;
        throw err;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(atOnce, items.length) }, worker));
  return results;
}

/** The request has stop sequences the gateway can cut an answer at itself (src/ir/stop-sequences.ts). */
function canCutAtStops(req: Request): boolean {
  return req.stopSequences.length > 0 && canEmulateStops(req.stopSequences);
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
