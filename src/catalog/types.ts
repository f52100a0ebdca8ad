// The catalog: models, their limits and prices, and which configured providers serve them.
// Field names inside `pricings` are the API's (docs/architecture.md §6), so listings render them as they are.

/** `embeddings` (output only) marks an embedding model: it answers the embedding endpoints, never a generation. */
export type Modality = "text" | "image" | "video" | "audio" | "file" | "embeddings";

export type PricingCategory =
  | "prompt"
  | "completion"
  | "input_cache_read"
  | "input_cache_write_5_min"
  | "input_cache_write_1_h"
  | "input_cache_write"
  | "web_search"
  | "internal_reasoning"
  | "image"
  | "audio"
  | "video"
  | "audio_and_video";

export interface PricingCondition {
  unit: "kTokens";
  gte?: number;
  lte?: number;
  gt?: number;
  /** null: no upper bound. */
  lt?: number | null;
}

export interface PricingItem {
  /**
   * Price in USD per unit. A JS number parsed from the catalog's decimal literal; money code turns it
   * into an exact decimal through its shortest string form (String(0.15) === "0.15"), never by arithmetic.
   */
  value: number;
  unit: "perMTokens" | "perCount" | "perSecond";
  currency: "USD";
  conditions?: { prompt_tokens?: PricingCondition; completion_tokens?: PricingCondition };
}

export type Pricings = Partial<Record<PricingCategory, PricingItem[]>>;

/** A provider deployment that serves a model. */
export interface Endpoint {
  /** A configured provider id (`openai`, `local`, `my-azure`…). */
  provider: string;
  /** The model name the upstream knows. */
  model: string;
  /** Its own prices, when they differ from the model's: a generation it answers is rated with them. */
  pricings?: Pricings;
}

export interface RoutingDefaults {
  type?: "priority" | "round_robin" | "least_latency";
  primary_factor?: "cost" | "speed" | "quality";
  providers?: string[];
  fallback?: string | boolean;
}

export interface CatalogModel {
  /** `<provider>/<model_name>`. */
  id: string;
  displayName: string;
  description: string;
  /** Unix seconds. */
  created: number;
  ownedBy: string;
  inputModalities: Modality[];
  outputModalities: Modality[];
  reasoning: boolean;
  contextLength: number;
  maxOutputTokens: number;
  pricings: Pricings;
  endpoints: Endpoint[];
  routing?: RoutingDefaults;
  /** Higher is better; used by `primary_factor: quality`. */
  qualityRank?: number;
  /** More names clients ask for it by, without the provider part (dated snapshot ids). */
  aliases?: string[];
  /** An embedding model's vector length: the most `dimensions` a request may ask for. */
  dimensions?: number;
}

/** An embedding model (`output_modalities: [embeddings]`): served by the embedding endpoints only. */
export function isEmbeddingModel(model: Pick<CatalogModel, "outputModalities">): boolean {
  return model.outputModalities.includes("embeddings");
}
