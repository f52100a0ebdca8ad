// Embeddings: `POST /v1/embeddings` (OpenAI's shape) and `…/models/{m}:embedContent` /
// `:batchEmbedContents` (Gemini's). An embedding is a generation like any other, through the same
// pipeline (inference.ts: authentication, credit, budgets, limits, routing with fallback, metering,
// the ledger and rating); this file gives it its own decoding, model rules and route. Every
// attempt goes through the IR (no relay): the upstream's vectors are read and written again in the
// client's shape, whichever protocol the upstream speaks (docs/architecture.md §12).

import { type CatalogModel, isEmbeddingModel } from "../catalog/types.ts";
import { type EmbeddingRequest, inputTexts, tokenIdCount } from "../ir/embeddings.ts";
import { invalid } from "../ir/errors.ts";
import { emptyUsage } from "../ir/usage.ts";
import type { DecodeContext, Embeddings, Protocol } from "../protocols/types.ts";
import { noEmbeddings } from "../providers/http/adapter.ts";
import { countTokensEach } from "../providers/local/tokens.ts";
import type { CallReport, ProviderAdapter, Target } from "../providers/types.ts";
import type { Call, CallFields, Job } from "./inference.ts";
import { estimateTextTokens } from "./prompt-tokens.ts";
import type { Route, WholeAnswer } from "./route.ts";

/** An embedding request's steps for the pipeline (inference.ts `Job`). */
export function embeddingJob(
  protocol: Protocol,
  json: unknown,
  ctx: DecodeContext & { single: boolean },
): Job {
  const codec = protocol.embeddings;
  if (!codec) throw new Error(`the ${protocol.name} protocol has no embeddings face`);
  const request = codec.decodeEmbedRequest(json, ctx);
  return {
    model: request.model,
    stream: false,
    api: "embeddings",
    resolved(model) {
      request.model = model.id;
      checkEmbeddingModel(request, model);
    },
    tokenEstimate: () => estimateTextTokens(inputTexts(request)) + tokenIdCount(request),
    call(fields: CallFields): Call {
      const call: Call = {
        ...fields,
        request,
        ctx: { model: fields.model.id },
        routeFor: (adapter, target) => new EmbeddingRoute(adapter, target, codec, request, call.ctx),
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

/** One attempt at an embedding: the adapter's `embed`, answered in the client's shape. */
class EmbeddingRoute implements Route {
  private readonly report: CallReport = {};
  private readonly adapter: ProviderAdapter;
  private readonly target: Target;
  private readonly codec: Embeddings;
  private readonly request: EmbeddingRequest;
  private readonly ctx: { model: string };

  constructor(
    adapter: ProviderAdapter,
    target: Target,
    codec: Embeddings,
    request: EmbeddingRequest,
    ctx: { model: string },
  ) {
    this.adapter = adapter;
    this.target = target;
    this.codec = codec;
    this.request = request;
    this.ctx = ctx;
  }

  unsent(): string[] {
    const dropped = this.report.dropped ?? [];
    return dropped.length > 0 ? [...this.request.ignored, ...dropped] : this.request.ignored;
  }

  async complete(signal: AbortSignal): Promise<WholeAnswer> {
    const { adapter, request, codec } = this;
    if (!adapter.embed) throw noEmbeddings(this.target.provider.id);
    const answer = await adapter.embed(request, this.target, signal, this.report);
    // An upstream that reports no count (Gemini's API) has its inputs counted here, off the event loop.
    const promptTokens = answer.promptTokens ?? (await countedTokens(request));
    const usage = { ...emptyUsage(), promptTokens };
    const model = this.ctx.model;
    return {
      tapped: { usage, finishReason: "stop" },
      send: (out, headers) =>
        out.json(
          200,
          headers,
          codec.encodeEmbedResponse({ vectors: answer.vectors, promptTokens }, request, model),
        ),
    };
  }

  stream(): AsyncIterable<never> {
    throw new Error("an embedding is never streamed");
  }
}

async function countedTokens(request: EmbeddingRequest): Promise<number> {
  return (await countTokensEach(inputTexts(request))).total + tokenIdCount(request);
}
