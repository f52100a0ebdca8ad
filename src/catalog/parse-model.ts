// A validated model record (snake_case, see schema.ts) → the CatalogModel fields it sets. A record may
// be partial (a config override of a catalog model); `completeModel` makes a new model whole from the
// defaults in MODEL_DEFAULTS.

import { CatalogError } from "./catalog-error.ts";
import { MODEL_DEFAULTS, type ModelRecord } from "./schema.ts";
import type { CatalogModel, Endpoint } from "./types.ts";

export interface ModelEntry {
  id: string;
  fields: Partial<CatalogModel>;
  /** Where the record sits: file and key path (`models[3]`), for the problems found later. */
  source: string;
  path: string;
}

/** The fields a record gives, renamed; an endpoint without `model` serves the id's name part. */
export function toEntry(record: ModelRecord, source: string, path: string): ModelEntry {
  const fields: Partial<CatalogModel> = { id: record.id };
  const set = <K extends keyof CatalogModel>(key: K, value: CatalogModel[K] | undefined) => {
    if (value !== undefined) fields[key] = value;
  };
  set("displayName", record.display_name);
  set("description", record.description);
  set("created", record.created);
  set("ownedBy", record.owned_by);
  set("inputModalities", record.input_modalities);
  set("outputModalities", record.output_modalities);
  set("reasoning", record.reasoning);
  set("contextLength", record.context_length);
  set("maxOutputTokens", record.max_output_tokens);
  set("pricings", record.pricings);
  set("routing", record.routing);
  set("qualityRank", record.quality_rank);
  set("dimensions", record.dimensions);
  set("aliases", record.aliases);
  if (record.endpoints) {
    const name = namePart(record.id);
    const endpoints: Endpoint[] = record.endpoints.map((e) => ({
      provider: e.provider,
      model: e.model ?? name,
      ...(e.pricings ? { pricings: e.pricings } : {}),
    }));
    refuseRepeatedEndpoint(endpoints, source, `${path}.endpoints`);
    fields.endpoints = endpoints;
  }
  return { id: record.id, fields, source, path };
}

/**
 * A record standing alone: endpoints present, every other key defaulted, limits consistent.
 * `missing` is what to say when the endpoints are absent.
 */
export function completeModel(entry: ModelEntry, missing = "is required"): CatalogModel {
  const raw = entry.fields;
  if (raw.endpoints === undefined) throw new CatalogError(entry.source, `${entry.path}.endpoints`, missing);
  // Defaults never contradict what was given: a small context gets a small output limit, and the reverse.
  const contextLength =
    raw.contextLength ?? Math.max(MODEL_DEFAULTS.context_length, raw.maxOutputTokens ?? 0);
  const maxOutputTokens = raw.maxOutputTokens ?? Math.min(MODEL_DEFAULTS.max_output_tokens, contextLength);
  const model: CatalogModel = {
    id: entry.id,
    displayName: raw.displayName ?? entry.id,
    description: raw.description ?? MODEL_DEFAULTS.description,
    created: raw.created ?? MODEL_DEFAULTS.created,
    ownedBy: raw.ownedBy ?? entry.id.slice(0, entry.id.indexOf("/")),
    inputModalities: raw.inputModalities ?? [...MODEL_DEFAULTS.input_modalities],
    outputModalities: raw.outputModalities ?? [...MODEL_DEFAULTS.output_modalities],
    reasoning: raw.reasoning ?? MODEL_DEFAULTS.reasoning,
    contextLength,
    maxOutputTokens,
    pricings: raw.pricings ?? { ...MODEL_DEFAULTS.pricings },
    endpoints: raw.endpoints,
  };
  if (raw.routing !== undefined) model.routing = raw.routing;
  if (raw.qualityRank !== undefined) model.qualityRank = raw.qualityRank;
  if (raw.dimensions !== undefined) model.dimensions = raw.dimensions;
  if (raw.aliases !== undefined) model.aliases = raw.aliases;
  checkLimits(model, entry);
  return model;
}

export function checkLimits(model: CatalogModel, entry: ModelEntry): void {
  if (model.maxOutputTokens > model.contextLength) {
    throw new CatalogError(
      entry.source,
      `${entry.path}.max_output_tokens`,
      `${model.maxOutputTokens} exceeds context_length ${model.contextLength} of ${model.id}`,
    );
  }
}

/** `openai/gpt-4.1` → `gpt-4.1`; `vllm/meta-llama/Llama-3.1-8B` → `meta-llama/Llama-3.1-8B`. */
function namePart(id: string): string {
  return id.slice(id.indexOf("/") + 1);
}

function refuseRepeatedEndpoint(endpoints: Endpoint[], source: string, path: string): void {
  const seen = new Set<string>();
  endpoints.forEach((endpoint, i) => {
    const key = `${endpoint.provider}\n${endpoint.model}`;
    if (seen.has(key))
      throw new CatalogError(
        source,
        `${path}[${i}]`,
        `repeats provider ${endpoint.provider} with model ${endpoint.model}`,
      );
    seen.add(key);
  });
}
