// Loading the catalog: the built-in files (catalog/*.yaml, shipped with the package) and the config
// file's `models`, merged over them by id. Every fault is a CatalogError naming file, key path and problem.

import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { parse, YAMLParseError } from "yaml";
import { z } from "zod";
import { CatalogError } from "./catalog-error.ts";
import { checkLimits, completeModel, type ModelEntry, toEntry } from "./parse-model.ts";
import { type ModelRecord, modelRecordSchema } from "./schema.ts";
import { parseWith } from "./schema-kit.ts";
import type { CatalogModel } from "./types.ts";

export { CatalogError } from "./catalog-error.ts";

/** Resolved from this module, not the working directory, so `switchyard` works from anywhere. */
export const BUILTIN_CATALOG_DIR = join(import.meta.dirname, "..", "..", "catalog");

/** A catalog document: `{models: [...]}` (a bare list is taken as the list). */
const catalogDocument = z.strictObject({
  models: z.array(modelRecordSchema, { error: "must be a list of model records" }),
});

/** Validates a catalog document (or the list itself) → its records; a fault is a CatalogError. */
function modelRecords(raw: unknown, source: string): ModelRecord[] {
  const doc = Array.isArray(raw) ? { models: raw } : raw;
  if (typeof doc !== "object" || doc === null)
    throw new CatalogError(source, "models", "expected a document with a top-level `models:` list");
  const parsed = parseWith(catalogDocument, doc);
  if (!parsed.ok) throw new CatalogError(source, parsed.problem.path, parsed.problem.problem);
  return parsed.value.models;
}

/**
 * A catalog document (`{models: [...]}`, or the list itself) → complete, validated models in the
 * order written. Ids must be unique within the document.
 */
export function parseModels(raw: unknown, source: string): CatalogModel[] {
  const seen = new Map<string, number>();
  return modelRecords(raw, source).map((record, i) => {
    const entry = toEntry(record, source, `models[${i}]`);
    refuseRepeat(entry, i, seen);
    return deepFreeze(completeModel(entry));
  });
}

/** YAML text of a catalog file → its models. */
export function parseCatalogYaml(text: string, source: string): CatalogModel[] {
  let doc: unknown;
  try {
    doc = parse(text);
  } catch (err) {
    if (err instanceof YAMLParseError) {
      const line = err.linePos?.[0].line;
      throw new CatalogError(source, line ? `line ${line}` : "(document)", err.message.split("\n")[0]);
    }
    throw err;
  }
  return parseModels(doc, source);
}

/** Every `*.yaml` file of a directory, ids unique across files, sorted by id. */
export function loadCatalogDir(dir: string, label = dir): CatalogModel[] {
  const files = readdirSync(dir)
    .filter((name) => name.endsWith(".yaml"))
    .sort();
  const owner = new Map<string, string>();
  const models: CatalogModel[] = [];
  for (const file of files) {
    const source = `${label}/${file}`;
    parseCatalogYaml(readFileSync(join(dir, file), "utf8"), source).forEach((model, i) => {
      const first = owner.get(model.id);
      if (first)
        throw new CatalogError(source, `models[${i}].id`, `repeats ${model.id}, already in ${first}`);
      owner.set(model.id, source);
      models.push(model);
    });
  }
  return Object.freeze(models.sort(byId)) as CatalogModel[];
}

let builtin: CatalogModel[] | undefined;

/** The catalog shipped with the package, read once. Frozen: callers share it. */
export function loadBuiltinCatalog(): CatalogModel[] {
  builtin ??= loadCatalogDir(BUILTIN_CATALOG_DIR, "catalog");
  return builtin;
}

/**
 * The config file's `models` merged over a catalog by id. An id already present takes only the keys
 * given (a `pricings`, `endpoints` or `routing` given replaces the old one whole); a new id needs
 * `endpoints`, the rest has defaults. Returns a new list sorted by id; `base` is not changed.
 */
export function mergeModels(base: CatalogModel[], overrides: unknown, source: string): CatalogModel[] {
  if (overrides === undefined || overrides === null) return [...base].sort(byId);
  const parsed = parseWith(catalogDocument, { models: overrides });
  if (!parsed.ok) throw new CatalogError(source, parsed.problem.path, parsed.problem.problem);
  return mergeRecords(base, parsed.value.models, source);
}

/** `mergeModels` for records the config schema has already validated. */
export function mergeRecords(base: CatalogModel[], records: ModelRecord[], source: string): CatalogModel[] {
  const merged = new Map(base.map((model) => [model.id, model]));
  const seen = new Map<string, number>();
  records.forEach((record, i) => {
    const entry = toEntry(record, source, `models[${i}]`);
    refuseRepeat(entry, i, seen);
    const existing = merged.get(entry.id);
    const model = existing
      ? overrideModel(existing, entry)
      : completeModel(
          entry,
          `is required: ${entry.id} is not in the built-in catalog, so it needs endpoints (which provider serves it)`,
        );
    merged.set(entry.id, deepFreeze(model));
  });
  return [...merged.values()].sort(byId);
}

function overrideModel(existing: CatalogModel, entry: ModelEntry): CatalogModel {
  const model: CatalogModel = { ...existing, ...entry.fields };
  checkLimits(model, entry);
  return model;
}

function refuseRepeat(entry: ModelEntry, index: number, seen: Map<string, number>): void {
  const first = seen.get(entry.id);
  if (first !== undefined)
    throw new CatalogError(
      entry.source,
      `${entry.path}.id`,
      `repeats ${entry.id} (first at models[${first}])`,
    );
  seen.set(entry.id, index);
}

function byId(a: CatalogModel, b: CatalogModel): number {
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

/** Catalog records are shared by every request; freezing makes an accidental edit throw, not spread. */
function deepFreeze<T>(value: T): T {
  if (typeof value === "object" && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}
