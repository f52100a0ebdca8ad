// One adapter per cloud-platform provider (docs/clouds.md): it holds one HTTP provider per model
// family the platform serves, each speaking that family's protocol over the platform's paths and
// authorization, and gives the pipeline the one a call's model and client protocol need
// (`ProviderAdapter.select`), so a client of that family's protocol gets a relay.

import type { PlatformConfig, ProviderConfig } from "../../config/providers.ts";
import type { EmbeddingRequest, EmbeddingResponse } from "../../ir/embeddings.ts";
import { GatewayError } from "../../ir/errors.ts";
import type { Request } from "../../ir/request.ts";
import type { Response } from "../../ir/response.ts";
import type { StreamEvent } from "../../ir/stream.ts";
import { bedrockConverse } from "../../protocols/bedrock-converse/index.ts";
import { protocols } from "../../protocols/index.ts";
import type { ProtocolName, UpstreamFace } from "../../protocols/types.ts";
import { awsAuth } from "../auth/aws.ts";
import { azureAuth } from "../auth/azure.ts";
import { CredentialWatch } from "../auth/credential-watch.ts";
import { googleAuth } from "../auth/google.ts";
import type { UpstreamAuth } from "../auth/types.ts";
import { HttpProvider } from "../http/adapter.ts";
import { noEmbeddings } from "../translated/call.ts";
import type { CallReport, ProviderAdapter, Target, UpstreamProtocol } from "../types.ts";
import { azureContentFilterError, azureShape } from "./azure.ts";
import { bedrockEmbeddingHooks, bedrockFamily, bedrockHooks } from "./bedrock.ts";
import { bedrockEmbeddings, type PlatformEmbeddings, vertexEmbeddings } from "./embeddings.ts";
import type { PlatformHooks } from "./types.ts";
import { vertexFamily, vertexShape } from "./vertex.ts";

interface Family {
  protocol: UpstreamProtocol;
  hooks: PlatformHooks;
}

export class PlatformProvider implements ProviderAdapter {
  private readonly provider: ProviderConfig;
  private readonly platform: PlatformConfig;
  private readonly auth: UpstreamAuth;
  private readonly families = new Map<string, HttpProvider>();

  constructor(provider: ProviderConfig, platform: PlatformConfig, credentials = new CredentialWatch()) {
    this.provider = provider;
    this.platform = platform;
    this.auth = watched(provider.id, authOf(provider, platform), credentials);
  }

  select(upstreamModel: string, face?: ProtocolName): HttpProvider {
    const name = this.familyName(upstreamModel, face);
    let adapter = this.families.get(name);
    if (!adapter) {
      const family = this.family(name);
      adapter = new HttpProvider(this.provider, family.protocol, { ...family.hooks, auth: this.auth });
      this.families.set(name, adapter);
    }
    return adapter;
  }

  stream(
    req: Request,
    target: Target,
    signal: AbortSignal,
    report?: CallReport,
  ): AsyncIterable<StreamEvent[]> {
    return this.select(target.upstreamModel).stream(req, target, signal, report);
  }

  complete(req: Request, target: Target, signal: AbortSignal, report?: CallReport): Promise<Response> {
    return this.select(target.upstreamModel).complete(req, target, signal, report);
  }

  /** Embeds through the platform's own embedding API for the model (./embeddings.ts). */
  embed(
    request: EmbeddingRequest,
    target: Target,
    signal: AbortSignal,
    report?: CallReport,
  ): Promise<EmbeddingResponse> {
    return this.embedder(target.upstreamModel).embed(request, target, signal, report);
  }

  async close(): Promise<void> {
    const closing = [...this.families.values()].map((family) => family.close());
    this.families.clear();
    await Promise.all(closing);
  }

  /**
   * The transport of a model's embedding calls. A model without an embedding API here (a chat model,
   * any model on Azure) fails as a provider that serves no embeddings: the next endpoint may be tried.
   */
  private embedder(model: string): HttpProvider {
    const family = this.embeddingFamily(model);
    if (!family) throw noEmbeddings(this.provider.id);
    let adapter = this.families.get(family.name);
    if (!adapter) {
      // The frame protocol only reads the platform's error answers: the codec makes every call.
      const protocol = { ...family.frame, name: family.name, embeddings: family.codec };
      adapter = new HttpProvider(this.provider, protocol, { ...family.hooks, auth: this.auth });
      this.families.set(family.name, adapter);
    }
    return adapter;
  }

  /** A model's embedding codec, the platform's hooks, and the protocol whose error answers it writes. */
  private embeddingFamily(
    model: string,
  ): (PlatformEmbeddings & { hooks: PlatformHooks; frame: UpstreamFace }) | undefined {
    const { id } = this.provider;
    const platform = this.platform;
    switch (platform.kind) {
      case "aws-bedrock": {
        const embeddings = bedrockEmbeddings(model);
        return embeddings && { ...embeddings, hooks: bedrockEmbeddingHooks(id), frame: bedrockConverse };
      }
      case "google-vertex":
        // Vertex answers `{"error": {code, message, status}}`, Google's shape, on `:predict` too.
        return {
          ...vertexEmbeddings(model),
          hooks: { shape: vertexShape(id, platform, "gemini") },
          frame: protocols.gemini,
        };
      case "azure-openai":
        return undefined;
    }
  }

  /** The family a model is served by; Azure's by the client's protocol (Responses, else chat). */
  private familyName(model: string, face: ProtocolName | undefined): string {
    switch (this.platform.kind) {
      case "aws-bedrock":
        return bedrockFamily(model);
      case "google-vertex":
        return vertexFamily(model);
      case "azure-openai":
        return face === "openai-responses" ? "responses" : "chat";
    }
  }

  private family(name: string): Family {
    const { id } = this.provider;
    const platform = this.platform;
    switch (platform.kind) {
      case "aws-bedrock":
        return name === "anthropic"
          ? { protocol: protocols.anthropic, hooks: bedrockHooks(id, "anthropic") }
          : { protocol: bedrockConverse, hooks: bedrockHooks(id, "converse") };
      case "google-vertex":
        return name === "anthropic"
          ? { protocol: protocols.anthropic, hooks: { shape: vertexShape(id, platform, "anthropic") } }
          : { protocol: protocols.gemini, hooks: { shape: vertexShape(id, platform, "gemini") } };
      case "azure-openai":
        return {
          protocol: name === "responses" ? protocols["openai-responses"] : protocols["openai-chat"],
          hooks: { shape: azureShape(id, platform), decodeError: azureContentFilterError },
        };
    }
  }
}

/** The auth, its failures and recoveries told to the watch. */
function watched(providerId: string, auth: UpstreamAuth, credentials: CredentialWatch): UpstreamAuth {
  return {
    async authorize(request) {
      try {
        const headers = await auth.authorize(request);
        credentials.succeeded(providerId);
        return headers;
      } catch (err) {
        if (err instanceof GatewayError) credentials.failed(providerId, err);
        throw err;
      }
    },
    refused() {
      credentials.failed(
        providerId,
        new GatewayError("api_error", `Provider '${providerId}' refused the gateway's credentials.`),
      );
      auth.refused?.();
    },
  };
}

function authOf(provider: ProviderConfig, platform: PlatformConfig): UpstreamAuth {
  switch (platform.kind) {
    case "aws-bedrock":
      return awsAuth(provider.id, platform.region, platform.aws, process.env, provider.apiKey);
    case "google-vertex":
      return googleAuth(provider.id, platform.credentialsFile);
    case "azure-openai":
      return azureAuth(provider.id, provider.apiKey);
  }
}
