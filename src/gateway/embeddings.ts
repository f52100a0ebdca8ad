// Embeddings: `POST /v1/embeddings` (OpenAI's shape) and `…/models/{m}:embedContent` /
// `:batchEmbedContents` (Gemini's). An embedding is a generation like any other, through the same
// pipeline (inference.ts: authentication, credit, budgets, limits, routing with fallback, metering,
// the ledger and rating); this file gives it its own decoding, model rules and route. An attempt
// whose upstream speaks the client's protocol, in one call, is relayed (the vectors are never
// parsed); any other goes through the IR, the upstream's vectors read and written again in the
// client's shape (docs/architecture.md §12).

import { type CatalogModel, isEmbeddingModel } from "../catalog/types.ts";
import { type EmbeddingRequest, inputTexts, tokenIdCount } from "../ir/embeddings.ts";
import { invalid } from "../ir/errors.ts";
import { emptyUsage } from "../ir/usage.ts";
import { Unsent } from "../protocols/shared/dropped-fields.ts";
import type { DecodeContext, EmbeddingRelay, Embeddings, Protocol } from "../protocols/types.ts";
import { malformedAnswer } from "../providers/http/transport-errors.ts";
import { countTokensEach } from "../providers/local/tokens.ts";
import { noEmbeddings } from "../providers/translated/call.ts";
import {
  type CallReport,
  canRelay,
  type ProviderAdapter,
  type RelayingAdapter,
  type Target,
} from "../providers/types.ts";
import type { Call, CallFields, Job } from "./inference.ts";
import { estimateTextTokens } from "./prompt-tokens.ts";
import type { Route, Tapped, WholeAnswer } from "./route.ts";

/** An embedding request's steps for the pipeline (inference.ts `Job`). */
export function embeddingJob(
  protocol: Protocol,
  json: unknown,
  ctx: DecodeContext & { single: boolean },
): Job {
  const codec = protocol.embeddings;
  if (!codec) throw new Error(`the ${protocol.name} protocol has no embeddings face`);
  const request = codec.decodeEmbedRequest(json, ctx);
  // Counted once: a request with both a token limit and a spend hold asks for it twice.
  let promptTokens: number | undefined;
  const promptEstimate = () =>
    (promptTokens ??= estimateTextTokens(inputTexts(request)) + tokenIdCount(request));
  return {
    model: request.model,
    stream: false,
    api: "embeddings",
    resolved(model) {
      request.model = model.id;
      checkEmbeddingModel(request, model);
    },
    tokenEstimate: promptEstimate,
    // An embedding's cost is its input alone.
    spendEstimate: () => ({
      promptTokens: promptEstimate(),
      outputTokens: 0,
      outputBounded: true,
    }),
    call(fields: CallFields): Call {
      const call: Call = {
        ...fields,
        request,
        ctx: { model: fields.model.id },
        routeFor: (adapter, target) => new EmbeddingRoute(adapter, target, codec, request, call),
      };
      return call;
    },
  };
}

/** A chat model does not embed; no vector is longer than the model's own. */
function checkEmbeddingModel(request: EmbeddingRequest, model: CatalogModel): void {
  if (!isEmbeddingModel(model))
    throw invalid(
      "model",
      `'${model.id}' is not an embedding model; embedding models list output_modalities [embeddings]`,
    );
  if (
    request.dimensions !== undefined &&
    model.dimensions !== undefined &&
    request.dimensions > model.dimensions
  )
    throw invalid(
      request.fields.dimensions,
      `must be at most ${model.dimensions}, the vector length of '${model.id}'`,
    );
}

/**
 * One attempt at an embedding: relayed when the upstream speaks the client's protocol and takes the
 * inputs in one call; else the adapter's `embed`, answered in the client's shape.
 */
class EmbeddingRoute implements Route {
  /** Set when the client's bytes went to the upstream as they came (passThrough). */
  relayed = false;
  /** What the upstream did not get: the fields the client face set aside, then the adapter's drops. */
  private readonly report: CallReport;
  private readonly adapter: ProviderAdapter;
  private readonly target: Target;
  private readonly codec: Embeddings;
  private readonly request: EmbeddingRequest;
  private readonly call: Call;

  constructor(
    adapter: ProviderAdapter,
    target: Target,
    codec: Embeddings,
    request: EmbeddingRequest,
    call: Call,
  ) {
    this.adapter = adapter;
    this.target = target;
    this.codec = codec;
    this.request = request;
    this.call = call;
    this.report = new Unsent(request.ignored);
  }

  unsent(): string[] {
    return this.report.list();
  }

  async complete(signal: AbortSignal): Promise<WholeAnswer> {
    const { adapter, request, codec, call } = this;
    const relay = codec.relay;
    if (relay && canRelay(adapter, call.face) && request.inputs.length <= codec.batchLimit)
      return this.passThrough(adapter, relay, signal);
    if (!adapter.embed) throw noEmbeddings(this.target.provider.id);
    const answer = await adapter.embed(request, this.target, signal, this.report);
    // An upstream that reports no count (Gemini's API) has its inputs counted here, off the event loop.
    const promptTokens = answer.promptTokens ?? (await countedTokens(request));
    const model = call.ctx.model;
    const body = () => codec.encodeEmbedResponse({ vectors: answer.vectors, promptTokens }, request, model);
    return { tapped: tapped(promptTokens), send: (out, headers) => out.json(200, headers, body()) };
  }

  /** The client's body and the upstream's answer as bytes, `model` edited; the answer's usage read alone. */
  private async passThrough(
    adapter: RelayingAdapter,
    relay: EmbeddingRelay,
    signal: AbortSignal,
  ): Promise<WholeAnswer> {
    const { request, call } = this;
    this.relayed = true;
    if (call.rawBody === undefined)
      throw new Error("the client's body was released: an endpoint has answered");
    const { path, body } = relay.request(call.rawBody, request, { model: this.target.upstreamModel });
    // Its bytes one per character: never decoded from UTF-8 nor encoded again on the way out.
    const text = await (await adapter.relay({ path, body, headers: {}, stream: false }, signal)).text(
      "latin1",
    );
    let reported: number | undefined;
    try {
      reported = relay.promptTokens(text);
    } catch {
      throw malformedAnswer(this.target.provider.id);
    }
    const promptTokens = reported ?? (await countedTokens(request));
    const model = call.ctx.model;
    return {
      tapped: tapped(promptTokens),
      send: (out, headers) => out.jsonText(200, headers, relay.response(text, model), true),
    };
  }

  stream(): AsyncIterable<never> {
    throw new Error("an embedding is never streamed");
  }

  failStream(): never {
    throw new Error("an embedding is never streamed");
  }
}

/** What the meter reads of an embedding: its prompt tokens, and that it is done. */
function tapped(promptTokens: number): Tapped {
  return { usage: { ...emptyUsage(), promptTokens }, finishReason: "stop" };
}

async function countedTokens(request: EmbeddingRequest): Promise<number> {
  return (await countTokensEach(inputTexts(request))).total + tokenIdCount(request);
}
