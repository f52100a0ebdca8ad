// One inference, top to bottom: authenticate, decode, resolve, route, call, translate, meter, record.

import type { Authenticator } from "../auth/authenticator.ts";
import { type CatalogModel, isEmbeddingModel } from "../catalog/types.ts";
import type { ProviderConfig } from "../config/providers.ts";
import { GatewayError, invalid } from "../ir/errors.ts";
import type { Request, RoutingRequest } from "../ir/request.ts";
import { totalTokens } from "../ir/usage.ts";
import type { Store } from "../ledger/types.ts";
import type { BudgetCheck } from "../limits/budget.ts";
import type { RateLimiter } from "../limits/rate-limiter.ts";
import type { SpendEstimate, SpendHandle, SpendReservations } from "../limits/spend-reservations.ts";
import { type Api, apiOf } from "../protocols/names.ts";
import type { EncodeContext, IncomingHeaders, Protocol, ProtocolName } from "../protocols/types.ts";
import type { ProviderAdapter, Target } from "../providers/types.ts";
import type { Answered } from "../routing/attempts.ts";
import type { LatencySample } from "../routing/health.ts";
import { Router } from "../routing/router.ts";
import type { RequestTrace, Tracing } from "../telemetry/tracing.ts";
import { compactionBody } from "./compaction.ts";
import type { CreditCheck } from "./credit.ts";
import { embeddingJob } from "./embeddings.ts";
import { writeError } from "./error-answer.ts";
import { frontStep } from "./front-step.ts";
import { ignoredList } from "./header-value.ts";
import { newGenerationId } from "./ids.ts";
import { keepsThinking, restoreKeptThinking, ThinkingCollector } from "./kept-thinking.ts";
import type { Logger, WarningLogger } from "./logger.ts";
import { Meter } from "./meter.ts";
import { Metrics } from "./metrics.ts";
import type { ModelIndex } from "./models.ts";
import { estimatePromptTokens } from "./prompt-tokens.ts";
import { GenerationRecorder, UnwrittenStarts } from "./recorder.ts";
import type { RequestFacts, RequestLog } from "./request-log.ts";
import type { HeaderMap, Responder } from "./responder.ts";
import { memoryContext, queuedResponse, type ResponseMemory, type Turn } from "./response-memory.ts";
import { type Piece, type Route, type RouteCall, routeFor, type WholeAnswer } from "./route.ts";
import { sessionIdOf } from "./session-id.ts";
import type { Settlement } from "./settlement.ts";

export interface InferenceInput {
  /** The request body as text (decoded as it arrived: src/server/inference-routes.ts readBody). */
  body: string | undefined;
  headers: IncomingHeaders;
  query: Record<string, unknown>;
  /** content-generation: model and method from the path. */
  pathModel?: string;
  pathStream?: boolean;
  /** An embedding request (src/gateway/embeddings.ts); `single`: Gemini's `:embedContent`. */
  embed?: { single: boolean };
  /** `POST /v1/responses/compact` (src/gateway/compaction.ts). */
  compact?: true;
}

export interface GatewayDeps {
  protocols: Record<ProtocolName, Protocol>;
  models: ModelIndex;
  providers: Map<string, ProviderConfig>;
  adapterFor(provider: ProviderConfig): ProviderAdapter;
  auth: Authenticator;
  store: Store;
  settlement: Settlement;
  /** Admission: pay-as-you-go accounts with no credit left are refused. */
  credit: CreditCheck;
  log: WarningLogger;
  /** Endpoint selection, fallback and health; a default in-memory router when absent. */
  router?: Router;
  /** `anthropic-version` values accepted besides 2023-06-01 (`clients.anthropic_versions`). */
  anthropicVersions?: ReadonlySet<string>;
  /** The App's metrics; a pipeline of its own when absent. */
  metrics?: Metrics;
  /** Per-key rate limits (src/limits/); none when absent. */
  limiter?: RateLimiter;
  /** Per-key budgets (src/limits/); none when absent. */
  budget?: BudgetCheck;
  /** Spend held at admission against budgets and credit (src/limits/spend-reservations.ts); none when absent. */
  spend?: SpendReservations;
  /** One line per request (`logging.level: info`); none when absent. */
  requestLog?: RequestLog;
  /** OpenTelemetry traces (`telemetry.otlp`); none when absent. */
  tracing?: Tracing;
  /** The Responses API's stored responses; the Responses API keeps nothing when absent. */
  memory?: ResponseMemory;
}

/** The status logged for a request whose client left before it was answered (nginx's convention). */
const CLIENT_CLOSED = 499;

export class InferencePipeline {
  private readonly deps: GatewayDeps & { metrics: Metrics };
  private readonly router: Router;
  private readonly credit: CreditCheck;
  private readonly unwrittenStarts = new UnwrittenStarts();

  constructor(deps: GatewayDeps) {
    this.deps = { ...deps, metrics: deps.metrics ?? new Metrics() };
    this.credit = deps.credit;
    this.router = deps.router ?? new Router({ models: deps.models });
  }

  /** One generation, or (input.embed) one embedding: the same steps, each kind decoding and calling its own way. */
  async handle(face: ProtocolName, input: InferenceInput, out: Responder): Promise<void> {
    const arrivedAt = performance.now();
    const id = newGenerationId();
    const protocol = this.deps.protocols[face];
    const headers: HeaderMap = { "x-generation-id": id };
    if (face === "anthropic") headers["request-id"] = id;
    const facts: RequestFacts = { id, face, arrivedAt, status: 200 };
    if (input.embed) facts.embedding = true;
    const trace = this.deps.tracing?.request(face, id, input.headers);
    try {
      // The body is held from here by `call` alone, which lets it go once an endpoint has answered
      // (releaseBody). (Taken apart at once: nothing here may keep the front step's answer.)
      let { caller, rawBody, json } = await frontStep(this.deps.auth, face, input);
      facts.caller = caller;
      // A compaction is a generation that summarises the window it is given.
      if (input.compact) json = compactionBody(json);
      // A continuation becomes the whole input here, before decoding: every route sends it alike.
      const turn = face === "openai-responses" && !input.embed ? this.deps.memory?.turnOf(json) : undefined;
      // Only a request that refers to stored state waits for the store.
      if (turn?.refers)
        await this.deps.memory?.resolve(turn, json as Record<string, unknown>, caller.accountId);
      if (input.compact && turn)
        out = await this.deps.memory!.compactionResponder(out, caller.accountId, turn);
      if (turn?.rewritten) {
        json = turn.rewritten;
        rawBody = JSON.stringify(json);
      }
      const job = input.embed
        ? embeddingJob(protocol, json, { headers: input.headers, pathModel: input.pathModel, ...input.embed })
        : this.generationJob(face, protocol, json, input, id, turn);
      const model = this.deps.models.resolve(job.model);
      job.resolved(model);
      const fitted = await job.fit?.(model);
      if (fitted !== undefined) rawBody = fitted;
      facts.model = model.id;
      facts.stream = job.stream;
      await this.credit.admit(caller);
      // The key's budget and limits, last: a request refused for anything else takes nothing from them.
      // (Asked only for a key that has them: a key without costs no await.)
      if (caller.budget) await this.deps.budget?.admit(caller, face);
      const admission = caller.limits
        ? await this.deps.limiter?.admit(caller, face, () => job.tokenEstimate(model))
        : undefined;
      let hold: SpendHandle | undefined;
      let generation: GenerationRecorder | undefined;
      // Its slot and token estimate are given back however the request ends, exactly once; its spend
      // hold is settled when its generation is (recorder.ts), or released if it never ends one.
      try {
        if (this.deps.spend?.applies(caller))
          hold = await this.deps.spend.reserve(caller, face, id, { ...job.spendEstimate(model), model });
        if (admission) Object.assign(headers, admission.headers);
        const api = job.api ?? apiOf(face);
        // A background run answers now (queued) and goes on into a stand-in for the client.
        out = (await job.prepare?.(caller.accountId, out, headers)) ?? out;
        generation = new GenerationRecorder(this.deps, this.unwrittenStarts, {
          id,
          caller,
          model,
          api,
          request: job,
          arrivedAt,
          sessionId: sessionIdOf(input.headers),
        });
        generation.spendHold = hold;
        const call = job.call({
          face,
          protocol,
          clientHeaders: input.headers,
          rawBody,
          model,
          headers,
          out,
          arrivedAt,
          meter: new Meter(arrivedAt, this.deps.metrics),
          generation,
          trace,
          id,
          api,
          accountId: caller.accountId,
        });
        rawBody = undefined;
        facts.meter = call.meter;
        facts.generation = generation;
        if (call.stream) await this.stream(call.stream);
        else await this.complete(call);
      } finally {
        admission?.end(usedTokens(facts.meter));
        if (generation?.status === undefined) hold?.released();
      }
    } catch (err) {
      const error = this.sendError(protocol, err, headers, out, id);
      facts.status = out.signal.aborted ? CLIENT_CLOSED : error.status;
      facts.error = error;
    }
    this.deps.requestLog?.done(facts);
    if (trace) endTrace(trace, facts);
  }

  /**
   * A generation's own steps: its protocol's decoding, its model checks (content-generation's
   * thinking settings; an embedding model is not a generation's) and its relayed or translated route.
   */
  private generationJob(
    face: ProtocolName,
    protocol: Protocol,
    json: unknown,
    input: InferenceInput,
    id: string,
    turn: Turn | undefined,
  ): Job {
    const decodeContext = {
      headers: input.headers,
      pathModel: input.pathModel,
      pathStream: input.pathStream,
      anthropicVersions: this.deps.anthropicVersions,
    };
    let request = protocol.decodeRequest(json, decodeContext);
    const { store, log, memory } = this.deps;
    let thinking: ThinkingCollector | undefined;
    let promptTokens: number | undefined;
    const promptEstimate = () => (promptTokens ??= estimatePromptTokens(request));
    let ctx: EncodeContext | undefined;
    // Made once the model is resolved (request.model names it), by a background run's answer or the call.
    const context = (): EncodeContext => {
      ctx ??= { id, model: request.model, created: Math.floor(Date.now() / 1000), request };
      if (turn) ctx.memory = memoryContext(turn);
      return ctx;
    };
    return {
      model: request.model,
      stream: request.stream,
      resolved(model) {
        request.model = model.id;
        if (keepsThinking(face, request, model.reasoning)) thinking = new ThinkingCollector();
        if (isEmbeddingModel(model))
          throw invalid("model", `'${model.id}' is an embedding model; call the embeddings endpoint with it`);
        protocol.checkModel?.(request, model);
      },
      tokenEstimate: (model) => promptEstimate() + maxOutput(request, model),
      spendEstimate: (model) => ({
        promptTokens: promptEstimate(),
        outputTokens: maxOutput(request, model) * (request.candidateCount ?? 1),
        outputBounded: request.maxOutputTokens !== undefined,
      }),
      async fit(model) {
        // truncation: "auto" — a stored chain longer than the context window loses its oldest items.
        if (!turn?.truncate || !memory) return undefined;
        const fitted = await memory.fit(json, model.contextLength, request, (body) =>
          protocol.decodeRequest(body, decodeContext),
        );
        if (!fitted) return undefined;
        request = fitted.request;
        request.model = model.id;
        return JSON.stringify(fitted.body);
      },
      async prepare(accountId, out, headers) {
        if (thinking) await restoreKeptThinking(store, accountId, request, log);
        if (!turn?.background || !memory) return undefined;
        const queued = queuedResponse(context());
        return memory.background.accept(turn, queued, accountId, out, headers, request.stream);
      },
      call(fields) {
        const call: GenerationCall = {
          ...fields,
          request,
          ctx: context(),
          promptEstimate,
          thinking,
          kept:
            (turn?.store || turn?.conversationId) && memory
              ? { memory, turn, accountId: fields.accountId }
              : undefined,
          routeFor: (adapter, target) => routeFor(adapter, target, call),
        };
        if (request.stream) call.stream = call;
        return call;
      },
    };
  }

  private async complete(call: Call): Promise<void> {
    const { headers, out, meter, generation } = call;
    let answered: Answered<{ answer: WholeAnswer; route: Route }>;
    try {
      answered = await this.attempt(call, false, async (route, signal) => ({
        answer: await route.complete(signal),
        route,
      }));
    } catch (err) {
      this.endUnanswered(call, err);
      throw err;
    }
    const { answer, route } = answered.value;
    nameIgnored(headers, route);
    meter.observeWhole(answer.tapped.usage, answer.tapped.finishReason);
    meter.end();
    headers["x-switchyard-overhead-ms"] = meter.recordOverhead(call.api, "whole");
    // Kept before the answer goes: the client's next turn may come as soon as it has it.
    if (call.thinking && answer.content) {
      call.thinking.add(answer.content);
      await call.thinking.keep(this.deps.store, call.accountId, this.deps.log);
    }
    if (call.kept)
      await call.kept.memory.sendWhole(call.kept.turn, answer, out, headers, call.kept.accountId);
    else answer.send(out, headers);
    generation.end(meter, { status: "completed" });
    this.report(answered, { sample: { durationMs: performance.now() - answered.startedAt } });
  }

  private async stream(call: GenerationCall): Promise<void> {
    const { headers, out, meter, generation } = call;
    let answered: Answered<{ pieces: AsyncIterator<Piece>; head: Piece[]; route: Route }>;
    try {
      // An endpoint has answered once a piece with bytes for the client arrives; until then (an
      // error event included) nothing has reached the client and another endpoint may be tried.
      answered = await this.attempt(call, true, async (route, signal) => {
        const pieces = route.stream(signal)[Symbol.asyncIterator]();
        const head: Piece[] = [];
        for (let r = await pieces.next(); !r.done; r = await pieces.next()) {
          const failure = r.value.events.find((e) => e.type === "error");
          if (failure) {
            // Closes the upstream body; the attempt's own failure is what matters here.
            pieces.return?.(undefined).catch(() => {});
            throw failure.error;
          }
          head.push(r.value);
          if (r.value.text) break;
        }
        return { pieces, head, route };
      });
    } catch (err) {
      this.endUnanswered(call, err);
      throw err;
    }
    nameIgnored(headers, answered.value.route);
    generation.acknowledged();
    headers["x-switchyard-overhead-ms"] = meter.recordOverhead(call.api, "stream");
    out.startStream(200, { ...headers, "content-type": "text/event-stream", "cache-control": "no-cache" });
    let failed: unknown;
    // A translated answer's thinking beside its tool calls, for a client that drops it (kept-thinking.ts).
    const thinking = answered.value.route.relayed ? undefined : call.thinking;
    // Synchronous unless the socket is full: a promise per piece would cost microtasks per read.
    const write = (piece: Piece): Promise<void> | undefined =>
      piece.text && !out.signal.aborted ? out.write(piece.text, piece.latin1) : undefined;
    const kept = call.kept;
    const send = (piece: Piece): Promise<void> | undefined => {
      if (piece.content) meter.contentArrived();
      for (const event of piece.events) {
        meter.observe(event);
        thinking?.observe(event);
        if (event.type === "error") failed = event.error;
      }
      // A stored response's last event waits until it is stored (read-your-writes); content alone never
      // does. (A relay's read may hold both: content passed undecoded, and the last event, decoded into
      // the piece's events.) So does the finish, for thinking kept beside tool calls: the client's next
      // turn may follow at once.
      const storing =
        (kept &&
          !(piece.content && piece.events.length === 0) &&
          !out.signal.aborted &&
          kept.memory.beforePiece(kept.turn, piece, kept.accountId)) ||
        (thinking && !failed && piece.events.some((e) => e.type === "finish")
          ? thinking.keep(this.deps.store, call.accountId, this.deps.log)
          : undefined);
      return storing ? storing.then(() => write(piece)) : write(piece);
    };
    const { pieces, head } = answered.value;
    try {
      // Taken out as they are sent: a stream that then waits for minutes holds none of them.
      for (let piece = head.shift(); piece; piece = head.shift()) await send(piece);
      for (let r = await pieces.next(); !r.done; r = await pieces.next()) {
        const full = send(r.value);
        if (full) await full;
      }
    } catch (err) {
      // The route ends an upstream's failure itself; what is thrown here is the client leaving or a
      // fault of the gateway's, ended through the route's own encoder (one stream, one error).
      failed = err;
      if (!out.signal.aborted)
        await send(answered.value.route.failStream(asGatewayError(err, this.deps.log, call.ctx.id)));
    }
    meter.end();
    // A stream that ended without a finish event still keeps what it gave.
    if (!failed && !out.signal.aborted) await thinking?.keep(this.deps.store, call.accountId, this.deps.log);
    if (out.signal.aborted) {
      // Cut before the upstream's final usage: what it reported so far, or the estimate where larger.
      meter.estimate(call.promptEstimate(), answered.value.route.undecodedOutputTokens?.() ?? 0);
      generation.end(meter, { status: "cancelled" });
      this.report(answered, { cancelled: true });
      return;
    }
    out.end();
    if (failed) {
      generation.end(meter, { status: "failed", error: failed });
      this.report(answered, { failure: failed });
    } else {
      generation.end(meter, { status: "completed" });
      this.report(answered, { sample: streamSample(call, answered.startedAt) });
    }
  }

  /**
   * Route and call: the router plans the endpoints (strategy, health, fallback) and tries them in
   * order until one answers. With `stream`, each attempt's wait for its first piece is bounded by
   * the provider's first_byte_ms. The answering model may be a fallback model
   * (model_routing_config): the response then names it, and its prices apply.
   */
  private async attempt<T>(
    call: Call,
    stream: boolean,
    send: (route: Route, signal: AbortSignal) => Promise<T>,
  ): Promise<Answered<T>> {
    const { request, model, out, generation, headers, meter } = call;
    const plan = await this.router.plan(request, model);
    const began = performance.now();
    try {
      const answered = await this.router.run(
        plan,
        {
          signal: out.signal,
          firstByteMs: stream
            ? (a) => this.deps.providers.get(a.endpoint.provider)?.timeouts.firstByteMs
            : undefined,
          onAttempt: (report) => {
            generation.attempted(report);
            headers["x-switchyard-provider"] = report.attempt.endpoint.provider;
          },
        },
        // Not async itself: the attempt's promise is send's own (one promise fewer per request);
        // what throws here is caught where the attempt is awaited (routing/attempts.ts) all the same.
        (attempt, signal) => {
          const provider = this.deps.providers.get(attempt.endpoint.provider);
          if (!provider?.enabled)
            throw new GatewayError("overloaded", `Provider '${attempt.endpoint.provider}' is not enabled.`);
          // A fallback model (model_routing_config) must be of the requested model's kind.
          if (isEmbeddingModel(attempt.model) !== isEmbeddingModel(model))
            throw invalid(
              "model_routing_config",
              `'${attempt.model.id}' and '${model.id}' are not both embedding models`,
            );
          const target = { provider, upstreamModel: attempt.endpoint.model, model: attempt.model };
          // The answer names the model that answers it (a fallback model too), from its first event.
          call.ctx.model = attempt.model.id;
          const route = call.routeFor(this.deps.adapterFor(provider), target);
          if (!call.trace) return send(route, signal);
          const span = call.trace.attempt(generation.attemptsMade, provider, attempt.endpoint.model);
          return traced(span, send(route, signal));
        },
      );
      const { attempt } = answered;
      // An endpoint with prices of its own (a cloud platform's) rates what it answered with them.
      if (attempt.endpoint.pricings)
        generation.pricedAs({ ...attempt.model, pricings: attempt.endpoint.pricings });
      else if (attempt.model.id !== model.id) generation.pricedAs(attempt.model);
      // No attempt follows an answer: the client's body is not needed for the rest of the generation.
      call.rawBody = undefined;
      return answered;
    } finally {
      meter.upstreamMs += performance.now() - began;
    }
  }

  /**
   * No endpoint answered: the generation failed, or is cancelled (the client left). A client that
   * left while an upstream was at work (a whole answer being written, a stream before its first
   * piece) leaves a generation the upstream charges for: it read the prompt. It settles on the
   * prompt as admission estimated it, marked estimated; its output, which nothing counted, at none.
   */
  private endUnanswered({ out, meter, generation, promptEstimate }: Call, err: unknown): void {
    if (!out.signal.aborted) {
      generation.end(meter, { status: "failed", error: err });
      return;
    }
    if (generation.attemptsMade > 0 && promptEstimate) meter.estimate(promptEstimate(), 0);
    generation.end(meter, { status: "cancelled" });
  }

  /** Health and latency statistics are best effort: they never fail a generation. */
  private report(answered: Answered<unknown>, outcome: Parameters<Router["finished"]>[1]): void {
    this.router
      .finished(answered, outcome)
      .catch((err) => this.deps.log.warn({ err }, "routing statistics not recorded"));
  }

  /** Answers the error (unless the client has gone), and returns it as the client sees it. */
  private sendError(
    protocol: Protocol,
    err: unknown,
    headers: HeaderMap,
    out: Responder,
    id: string,
  ): GatewayError {
    const error = asGatewayError(err, this.deps.log, id);
    if (!out.signal.aborted) writeError(out, protocol, error, headers);
    return error;
  }
}

/**
 * The most a request may write, for its tokens-per-minute limit and its spend hold (with its prompt,
 * estimated): its max_tokens, else the model's output limit.
 */
function maxOutput(request: Request, model: CatalogModel): number {
  return request.maxOutputTokens ?? model.maxOutputTokens;
}

/**
 * The tokens a request used, for its tokens-per-minute limit: its usage when the upstream reported
 * one (or the gateway's estimate of it, for a stream its client left: Meter.estimate); none when
 * nothing was generated; else (a stream that failed before its usage) the admission estimate stands.
 */
function usedTokens(meter: Meter | undefined): number | undefined {
  if (!meter) return 0;
  if (meter.sawUsage) return totalTokens(meter.usage);
  return meter.latencyMs === undefined ? 0 : undefined;
}

/** What each kind of inference (a generation, an embedding) gives the steps they share. */
export interface Job {
  /** The model the body names, as written. */
  model: string;
  stream: boolean;
  /** The generation record's `api`, when not the face's own. */
  api?: Api;
  /** The model resolved: the request names it, and the rules that need it are checked (400s). */
  resolved(model: CatalogModel): void;
  /** Before admission: the request cut to fit the model (a stored chain's `truncation: "auto"`); its new body. */
  fit?(model: CatalogModel): Promise<string | undefined>;
  /**
   * Once admitted, what the job must look up for the caller's account (a generation's kept thinking);
   * a background run answers the client here, and the stand-in it returns is written to instead.
   */
  prepare?(accountId: string, out: Responder, headers: HeaderMap): Promise<Responder | undefined>;
  /** What the request may use of a tokens-per-minute limit, asked before it is admitted. */
  tokenEstimate(model: CatalogModel): number;
  /** What its spend hold is priced from (src/limits/spend-reservations.ts). */
  spendEstimate(model: CatalogModel): SpendEstimate;
  call(fields: CallFields): Call;
}

/** What every call is made of, whatever its kind. */
export interface CallFields {
  id: string;
  /** The generation record's `api` (and the overhead metric's label). */
  api: Api;
  face: ProtocolName;
  protocol: Protocol;
  clientHeaders: IncomingHeaders;
  /** Released (undefined) once an endpoint has answered. */
  rawBody: string | undefined;
  model: CatalogModel;
  headers: HeaderMap;
  out: Responder;
  /** performance.now() when the request arrived. */
  arrivedAt: number;
  meter: Meter;
  generation: GenerationRecorder;
  /** The request's trace, when tracing is on. */
  trace?: RequestTrace;
  /** Collects the answer's thinking beside tool calls, when a chat client may drop it. */
  thinking?: ThinkingCollector;
  accountId: string;
  /** A Responses request whose answer is stored (`store`, default true). */
  kept?: { memory: ResponseMemory; turn: Turn; accountId: string };
}

/** Everything one inference carries from step to step. */
export interface Call extends CallFields {
  /** The request's routing fields, read by the router's plan. */
  request: { routing?: RoutingRequest };
  /** `model`: the model the answer names, set per attempt (a fallback model's). */
  ctx: { model: string };
  /** How one attempt reaches its endpoint. */
  routeFor(adapter: ProviderAdapter, target: Target): Route;
  /** Set (to the call itself) when the answer is streamed: only a generation's is. */
  stream?: GenerationCall;
  /** A generation's prompt tokens as admission estimated them (estimatePromptTokens, made once). */
  promptEstimate?(): number;
}

interface GenerationCall extends Call, RouteCall {
  request: Request;
  ctx: EncodeContext;
  promptEstimate(): number;
}

/** An attempt's answer, its span ended with how it went. */
async function traced<T>(span: ReturnType<RequestTrace["attempt"]>, answer: Promise<T>): Promise<T> {
  try {
    const value = await answer;
    span.answered();
    return value;
  } catch (err) {
    span.failed(err);
    throw err;
  }
}

/** The request's span ends with what the pipeline learnt of it. */
function endTrace(trace: RequestTrace, f: RequestFacts): void {
  const generation = f.generation;
  const failed = generation?.status === "failed" && !f.error;
  trace.end({
    status: f.status,
    error: failed ? new GatewayError("api_error", "The upstream stream failed.") : f.error,
    model: f.model,
    responseModel: generation?.fallbackModel ?? (generation ? f.model : undefined),
    provider: generation?.providerUsed,
    usage: f.meter?.sawUsage ? f.meter.usage : undefined,
    finishReason: f.meter?.finishReason,
    stream: f.stream,
  });
}

/** A streamed answer's timings, for least_latency and speed: time to first token and throughput. */
function streamSample({ meter, arrivedAt }: Call, attemptStartedAt: number): LatencySample {
  const sample: LatencySample = {};
  if (meter.latencyMs !== undefined)
    sample.ttftMs = Math.max(0, meter.latencyMs - (attemptStartedAt - arrivedAt));
  const seconds = (meter.generationTimeMs ?? 0) / 1000;
  if (seconds > 0 && meter.usage.completionTokens > 0)
    sample.tokensPerSecond = meter.usage.completionTokens / seconds;
  return sample;
}

/**
 * `x-switchyard-ignored`: the fields the answering upstream never saw. A translation drops what the
 * client face set aside and what the upstream encoder could not express; a relay names what it strips
 * (src/gateway/route.ts).
 */
function nameIgnored(headers: HeaderMap, route: Route): void {
  const unsent = route.unsent();
  if (unsent.length === 0) return;
  // Field names come from the client's body: encoded and bounded for a header (header-value.ts).
  headers["x-switchyard-ignored"] = ignoredList(new Set(unsent));
}

/** An error as the client will see it; anything but a GatewayError is a bug, logged with its generation. */
export function asGatewayError(err: unknown, log: Logger, generationId?: string): GatewayError {
  if (err instanceof GatewayError) return err;
  // JSON.parse takes any depth, but what walks the body afterwards (schema conversion, token counts)
  // recurses: a stack overflow there can only come from a body nested too deeply. V8 unwinds it
  // cleanly, so it is the client's 400, not a crash or a 500 (test/e2e/front-door.test.ts).
  if (err instanceof RangeError && err.message.includes("call stack"))
    return invalid("body", "the JSON is nested too deeply.");
  log.error({ err, generationId }, "unexpected error in the request path");
  return new GatewayError("api_error", "Internal error in the gateway.");
}
