// One model record as written in YAML (snake_case) → the CatalogModel fields it sets. A record may be
// partial (a config override of a catalog model); `completeModel` decides whether it stands alone.

import { at, expectKeys, fail, isRecord, type Location } from "./catalog-error.ts";
import { parsePricings } from "./parse-pricings.ts";
import type { CatalogModel, Endpoint, Modality, RoutingDefaults } from "./types.ts";

export const MODALITIES: readonly Modality[] = ["text", "image", "video", "audio", "file"];

/** `<provider>/<model_name>`; the name may hold further slashes, never spaces or a `:` (Gemini paths end in `:method`). */
const MODEL_ID = /^[A-Za-z0-9][\w.-]*(\/[\w.-]+)+$/;
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

export interface ModelEntry {
  id: string;
  fields: Partial<CatalogModel>;
  loc: Location;
}

type FieldParser = (value: unknown, loc: Location) => Partial<CatalogModel>;

const FIELDS: Record<string, FieldParser> = {
  id: (v, loc) => ({ id: parseId(v, loc) }),
  display_name: (v, loc) => ({ displayName: nonEmptyString(v, loc) }),
  description: (v, loc) => ({ description: typeof v === "string" ? v : fail(loc, "must be a string") }),
  created: (v, loc) => ({ created: parseCreated(v, loc) }),
  owned_by: (v, loc) => ({ ownedBy: nonEmptyString(v, loc) }),
  input_modalities: (v, loc) => ({ inputModalities: parseModalities(v, loc) }),
  output_modalities: (v, loc) => ({ outputModalities: parseModalities(v, loc) }),
  reasoning: (v, loc) => ({ reasoning: typeof v === "boolean" ? v : fail(loc, "must be true or false") }),
  context_length: (v, loc) => ({ contextLength: positiveInteger(v, loc) }),
  max_output_tokens: (v, loc) => ({ maxOutputTokens: positiveInteger(v, loc) }),
  pricings: (v, loc) => ({ pricings: parsePricings(v, loc) }),
  endpoints: (v, loc) => ({ endpoints: parseEndpoints(v, loc) }),
  routing: (v, loc) => ({ routing: parseRouting(v, loc) }),
  quality_rank: (v, loc) => ({
    qualityRank: typeof v === "number" && Number.isFinite(v) ? v : fail(loc, "must be a number"),
  }),
};

/** Keys a model that is not already in the catalog must give; the others have defaults. */
const REQUIRED = [
  "display_name",
  "created",
  "input_modalities",
  "output_modalities",
  "context_length",
  "max_output_tokens",
  "pricings",
  "endpoints",
] as const;

/** Reads every key present; checks each value, refuses unknown keys, needs `id`. */
export function parseEntry(raw: unknown, loc: Location): ModelEntry {
  if (!isRecord(raw)) fail(loc, "must be a mapping (a model record)");
  expectKeys(raw, Object.keys(FIELDS), loc);
  if (raw.id === undefined) fail(at(loc, "id"), "is required");
  const fields: Partial<CatalogModel> = {};
  for (const [key, value] of Object.entries(raw)) {
    if (value === undefined) continue;
    Object.assign(fields, FIELDS[key](value, at(loc, key)));
  }
  return { id: fields.id!, fields, loc };
}

/**
 * A record standing alone: required keys present, defaults filled, limits consistent. `missing` is
 * what to say of an absent required key.
 */
export function completeModel(entry: ModelEntry, missing = "is required"): CatalogModel {
  const raw = entry.fields;
  const byKey: Record<(typeof REQUIRED)[number], unknown> = {
    display_name: raw.displayName,
    created: raw.created,
    input_modalities: raw.inputModalities,
    output_modalities: raw.outputModalities,
    context_length: raw.contextLength,
    max_output_tokens: raw.maxOutputTokens,
    pricings: raw.pricings,
    endpoints: raw.endpoints,
  };
  for (const key of REQUIRED) {
    if (byKey[key] === undefined) fail(at(entry.loc, key), missing);
  }
  const model: CatalogModel = {
    id: entry.id,
    displayName: raw.displayName!,
    description: raw.description ?? "",
    created: raw.created!,
    ownedBy: raw.ownedBy ?? entry.id.slice(0, entry.id.indexOf("/")),
    inputModalities: raw.inputModalities!,
    outputModalities: raw.outputModalities!,
    reasoning: raw.reasoning ?? false,
    contextLength: raw.contextLength!,
    maxOutputTokens: raw.maxOutputTokens!,
    pricings: raw.pricings!,
    endpoints: raw.endpoints!,
  };
  if (raw.routing !== undefined) model.routing = raw.routing;
  if (raw.qualityRank !== undefined) model.qualityRank = raw.qualityRank;
  checkLimits(model, entry.loc);
  return model;
}

export function checkLimits(model: CatalogModel, loc: Location): void {
  if (model.maxOutputTokens > model.contextLength) {
    fail(
      at(loc, "max_output_tokens"),
      `${model.maxOutputTokens} exceeds context_length ${model.contextLength} of ${model.id}`,
    );
  }
}

function parseId(value: unknown, loc: Location): string {
  if (typeof value !== "string" || !MODEL_ID.test(value)) {
    fail(loc, "must be <provider>/<model_name> (letters, digits, '.', '_', '-'; no spaces or ':')");
  }
  return value;
}

function nonEmptyString(value: unknown, loc: Location): string {
  if (typeof value !== "string" || value.trim() === "") fail(loc, "must be a non-empty string");
  return value;
}

function positiveInteger(value: unknown, loc: Location): number {
  if (!Number.isSafeInteger(value) || (value as number) <= 0) fail(loc, "must be a positive integer");
  return value as number;
}

/** A release date `YYYY-MM-DD` (UTC midnight) or unix seconds → unix seconds. */
function parseCreated(value: unknown, loc: Location): number {
  if (Number.isSafeInteger(value) && (value as number) >= 0) return value as number;
  // A YAML 1.1 reader may already have turned the date into a Date.
  if (value instanceof Date && !Number.isNaN(value.getTime())) return Math.floor(value.getTime() / 1000);
  const match = typeof value === "string" ? DATE.exec(value) : null;
  if (match) {
    const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
    const ms = Date.UTC(year, month - 1, day);
    const back = new Date(ms);
    if (back.getUTCFullYear() === year && back.getUTCMonth() === month - 1 && back.getUTCDate() === day) {
      return ms / 1000;
    }
  }
  return fail(loc, "must be a date YYYY-MM-DD or unix seconds");
}

function parseModalities(value: unknown, loc: Location): Modality[] {
  if (!Array.isArray(value) || value.length === 0)
    fail(loc, `must be a non-empty list of ${MODALITIES.join(", ")}`);
  value.forEach((m, i) => {
    if (!MODALITIES.includes(m)) fail(at(loc, i), `must be one of ${MODALITIES.join(", ")}`);
    if (value.indexOf(m) !== i) fail(at(loc, i), `repeats ${m}`);
  });
  return value as Modality[];
}

function parseEndpoints(value: unknown, loc: Location): Endpoint[] {
  if (!Array.isArray(value) || value.length === 0) {
    fail(loc, "must be a non-empty list of {provider, model} (which provider serves it, under which name)");
  }
  const seen = new Set<string>();
  return value.map((raw, i) => {
    const itemLoc = at(loc, i);
    if (!isRecord(raw)) fail(itemLoc, "must be a mapping {provider, model}");
    expectKeys(raw, ["provider", "model"], itemLoc);
    const endpoint = {
      provider: nonEmptyString(raw.provider, at(itemLoc, "provider")),
      model: nonEmptyString(raw.model, at(itemLoc, "model")),
    };
    const key = `${endpoint.provider}\n${endpoint.model}`;
    if (seen.has(key)) fail(itemLoc, `repeats provider ${endpoint.provider} with model ${endpoint.model}`);
    seen.add(key);
    return endpoint;
  });
}

function parseRouting(value: unknown, loc: Location): RoutingDefaults {
  if (!isRecord(value)) fail(loc, "must be a mapping (type, primary_factor, providers, fallback)");
  expectKeys(value, ["type", "primary_factor", "providers", "fallback"], loc);
  const routing: RoutingDefaults = {};
  if (value.type !== undefined) {
    routing.type = oneOf(value.type, ["priority", "round_robin", "least_latency"] as const, at(loc, "type"));
  }
  if (value.primary_factor !== undefined) {
    routing.primary_factor = oneOf(
      value.primary_factor,
      ["cost", "speed", "quality"] as const,
      at(loc, "primary_factor"),
    );
  }
  if (value.providers !== undefined) {
    const providersLoc = at(loc, "providers");
    if (!Array.isArray(value.providers)) fail(providersLoc, "must be a list of provider ids");
    routing.providers = value.providers.map((p, i) => nonEmptyString(p, at(providersLoc, i)));
  }
  if (value.fallback !== undefined) {
    if (typeof value.fallback !== "boolean" && typeof value.fallback !== "string") {
      fail(at(loc, "fallback"), "must be true, false or a provider id");
    }
    routing.fallback = value.fallback;
  }
  return routing;
}

function oneOf<T extends string>(value: unknown, allowed: readonly T[], loc: Location): T {
  if (!allowed.includes(value as T)) fail(loc, `must be one of ${allowed.join(", ")}`);
  return value as T;
}
