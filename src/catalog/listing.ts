// The three model-listing shapes (docs/architecture.md §1), as pure functions from catalog
// models to JSON bodies. Callers pass the served models; every listing orders them by id.

import { pageByCursor, pageByToken, type QueryValue } from "./paging.ts";
import { type CatalogModel, isEmbeddingModel, type Modality, type Pricings } from "./types.ts";

// ─── chat-completions style: GET /v1/models ───────────────────────────────────────────────────

export interface ChatModelRecord {
  id: string;
  object: "model";
  display_name: string;
  /** Unix seconds. */
  created: number;
  owned_by: string;
  input_modalities: Modality[];
  output_modalities: Modality[];
  capabilities: { reasoning: boolean };
  context_length: number;
  pricings: Pricings;
}

export interface ChatModelList {
  object: "list";
  data: ChatModelRecord[];
}

export function chatModel(model: CatalogModel): ChatModelRecord {
  return {
    id: model.id,
    object: "model",
    display_name: model.displayName,
    created: model.created,
    owned_by: model.ownedBy,
    input_modalities: model.inputModalities,
    output_modalities: model.outputModalities,
    capabilities: { reasoning: model.reasoning },
    context_length: model.contextLength,
    pricings: model.pricings,
  };
}

/** Every model in one list: the chat-completions listing has no paging. */
export function listChat(models: readonly CatalogModel[]): ChatModelList {
  return { object: "list", data: sortedById(models).map(chatModel) };
}

// ─── messages style: GET /v1/models with anthropic-version ────────────────────────────────────

export interface MessagesModelRecord {
  id: string;
  type: "model";
  display_name: string;
  /**
   * `YYYY-MM-DD` (docs/architecture.md §9: Anthropic itself sends RFC 3339; its SDK passes the string
   * through).
   */
  created_at: string;
  input_modalities: Modality[];
  output_modalities: Modality[];
  capabilities: { reasoning: boolean };
  context_length: number;
  pricings: Pricings;
}

export interface MessagesModelList {
  data: MessagesModelRecord[];
  has_more: boolean;
  /** Ids of the page's first and last records (null on an empty page); the SDK pages with them. */
  first_id: string | null;
  last_id: string | null;
}

export interface MessagesListParams {
  /** 1..1000, default 20. */
  limit?: QueryValue;
  after_id?: QueryValue;
  before_id?: QueryValue;
}

export function messagesModel(model: CatalogModel): MessagesModelRecord {
  return {
    id: model.id,
    type: "model",
    display_name: model.displayName,
    created_at: new Date(model.created * 1000).toISOString().slice(0, 10),
    input_modalities: model.inputModalities,
    output_modalities: model.outputModalities,
    capabilities: { reasoning: model.reasoning },
    context_length: model.contextLength,
    pricings: model.pricings,
  };
}

/** One page; throws a 400 GatewayError naming `limit`, `after_id` or `before_id` when one is bad. */
export function listMessages(
  models: readonly CatalogModel[],
  params: MessagesListParams = {},
): MessagesModelList {
  const page = pageByCursor(sortedById(models), params);
  const data = page.items.map(messagesModel);
  return {
    data,
    has_more: page.hasMore,
    first_id: data.length > 0 ? data[0].id : null,
    last_id: data.length > 0 ? data[data.length - 1].id : null,
  };
}

// ─── content-generation style: GET /v1beta/models ─────────────────────────────────────────────

/** What the gateway serves for every generating model (caching and the rest are not offered). */
const GENERATION_METHODS = ["generateContent", "streamGenerateContent", "countTokens"];
/** What it serves for an embedding model (`output_modalities: [embeddings]`): never generateContent. */
const EMBEDDING_METHODS = ["embedContent", "batchEmbedContents"];

export interface GeminiModelRecord {
  /** `models/<provider>/<model_name>`: the SDK sends it back as the path, so it round-trips. */
  name: string;
  displayName: string;
  description: string;
  inputTokenLimit: number;
  outputTokenLimit: number;
  /** @google/genai reads this as `Model.supportedActions`. */
  supportedGenerationMethods: string[];
  thinking: boolean;
  inputModalities: Modality[];
  outputModalities: Modality[];
  pricings: Pricings;
}

export interface GeminiModelList {
  models: GeminiModelRecord[];
  nextPageToken?: string;
}

export interface GeminiListParams {
  /** 0 or unset → 50; above 1000 → 1000; negative → 400. */
  pageSize?: QueryValue;
  /** `nextPageToken` of the previous page; anything else → 400. */
  pageToken?: QueryValue;
}

export function geminiModel(model: CatalogModel): GeminiModelRecord {
  return {
    name: `models/${model.id}`,
    displayName: model.displayName,
    description: model.description,
    inputTokenLimit: model.contextLength,
    outputTokenLimit: model.maxOutputTokens,
    supportedGenerationMethods: [...(isEmbeddingModel(model) ? EMBEDDING_METHODS : GENERATION_METHODS)],
    thinking: model.reasoning,
    inputModalities: model.inputModalities,
    outputModalities: model.outputModalities,
    pricings: model.pricings,
  };
}

/** One page; throws a 400 GatewayError naming `pageSize` or `pageToken` when one is bad. */
export function listGemini(models: readonly CatalogModel[], params: GeminiListParams = {}): GeminiModelList {
  const page = pageByToken(sortedById(models), params);
  const body: GeminiModelList = { models: page.items.map(geminiModel) };
  if (page.nextPageToken !== undefined) body.nextPageToken = page.nextPageToken;
  return body;
}

function sortedById(models: readonly CatalogModel[]): CatalogModel[] {
  return [...models].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}
