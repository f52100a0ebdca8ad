// Token counting: `POST /v1/messages/count_tokens`, `POST …/models/{m}:countTokens` and
// `POST /v1/responses/input_tokens`, each in its own protocol's shape. Authenticated like inference;
// not a generation: nothing is billed, recorded or metered.
//
// A model served by an upstream whose protocol has a counter (messages, content-generation,
// Responses) is counted there, the request translated to that counter; anything else (the local
// models, chat-completions upstreams, a counter that fails or is slow) is counted by the gateway,
// off the event loop (prompt-tokens.ts). `x-switchyard-token-count: upstream | local` says which.

import type { CatalogModel } from "../catalog/types.ts";
import type { ProviderConfig } from "../config/providers.ts";
import type { Request } from "../ir/request.ts";
import { protocolOfConfig } from "../protocols/names.ts";
import type { ProtocolName, UpstreamCounting } from "../protocols/types.ts";
import { canRelay, type ProviderAdapter, type RelayingAdapter } from "../providers/types.ts";
import { writeError } from "./error-answer.ts";
import { frontStep } from "./front-step.ts";
import { asGatewayError, type GatewayDeps, type InferenceInput } from "./inference.ts";
import { countPromptTokens } from "./prompt-tokens.ts";
import type { HeaderMap, Responder } from "./responder.ts";

/** What counting needs of the gateway: inference's protocols, models, providers and authentication. */
export type TokenCountDeps = Pick<
  GatewayDeps,
  "protocols" | "models" | "providers" | "adapterFor" | "auth" | "log" | "anthropicVersions"
>;

/** How long an upstream counter may take before the gateway counts instead. */
const UPSTREAM_COUNT_MS = 10_000;

export class TokenCounter {
  private readonly deps: TokenCountDeps;

  constructor(deps: TokenCountDeps) {
    this.deps = deps;
  }

  async handle(face: ProtocolName, input: InferenceInput, out: Responder): Promise<void> {
    const protocol = this.deps.protocols[face];
    const headers: HeaderMap = {};
    try {
      const counting = protocol.tokenCounting;
      if (!counting) throw new Error(`the ${face} protocol has no token counting`);
      const { json } = await frontStep(this.deps.auth, face, input);
      const request = counting.decodeCountRequest(json, {
        headers: input.headers,
        pathModel: input.pathModel,
        anthropicVersions: this.deps.anthropicVersions,
      });
      let counted: number | undefined;
      if (request.model !== "") {
        const model = this.deps.models.resolve(request.model);
        request.model = model.id;
        counted = await this.askUpstream(request, model, out.signal, headers);
      }
      headers["x-switchyard-token-count"] = counted === undefined ? "local" : "upstream";
      const tokens = counted ?? (await countPromptTokens(request));
      if (!out.signal.aborted) out.json(200, headers, counting.encodeCount(tokens));
    } catch (err) {
      if (out.signal.aborted) return;
      writeError(out, protocol, asGatewayError(err, this.deps.log), headers);
    }
  }

  /**
   * The count of the first of the model's endpoints whose upstream has a counter, or undefined when
   * none has, or when that counter fails (the gateway then counts; the failure is logged).
   */
  private async askUpstream(
    request: Request,
    model: CatalogModel,
    clientGone: AbortSignal,
    headers: HeaderMap,
  ): Promise<number | undefined> {
    for (const endpoint of model.endpoints) {
      const provider = this.deps.providers.get(endpoint.provider);
      if (!provider?.enabled || provider.protocol === "local") continue;
      const providerAdapter = this.deps.adapterFor(provider);
      // A cloud platform's adapter for this model (src/providers/platforms/) speaks its family's protocol.
      const adapter = providerAdapter.select?.(endpoint.model) ?? providerAdapter;
      const counting = this.countingOf(adapter, provider);
      if (!counting) continue;
      try {
        const call = counting.counter.encodeCountRequest(request, { model: endpoint.model });
        const signal = AbortSignal.any([clientGone, AbortSignal.timeout(UPSTREAM_COUNT_MS)]);
        const answer = await counting.adapter.relay(
          { path: call.path, body: JSON.stringify(call.body), headers: {}, stream: false },
          signal,
        );
        const count = counting.counter.decodeCount(JSON.parse(await answer.text()));
        headers["x-switchyard-provider"] = provider.id;
        return count;
      } catch (err) {
        if (clientGone.aborted) throw err;
        this.deps.log.warn(
          { err, provider: provider.id, model: model.id },
          "upstream token counter failed; counted locally",
        );
        return undefined;
      }
    }
    return undefined;
  }

  /** The upstream's token counter, called through the adapter's relay; undefined when it has none. */
  private countingOf(
    adapter: ProviderAdapter,
    provider: ProviderConfig,
  ): { counter: UpstreamCounting; adapter: RelayingAdapter } | undefined {
    const own = (adapter as Partial<RelayingAdapter>).counting;
    if (own) return { counter: own, adapter: adapter as RelayingAdapter };
    if (provider.protocol === "local") return undefined;
    const upstream = this.deps.protocols[protocolOfConfig(provider.protocol)];
    const counting = upstream.tokenCounting;
    return counting && canRelay(adapter, upstream.name) ? { counter: counting, adapter } : undefined;
  }
}
