// Loading the catalog: the built-in files (catalog/*.yaml, shipped with the package) and the config
// file's `models`, merged over them by id. Every fault is a CatalogError naming file, key path and problem.

import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { parse, YAMLParseError } from "yaml";
import { CatalogError, fail, isRecord, type Location } from "./catalog-error.ts";
import { checkLimits, completeModel, type ModelEntry, parseEntry } from "./parse-model.ts";
import type { CatalogModel } from "./types.ts";

export { CatalogError } from "./catalog-error.ts";

/** Resolved from this module, not the working directory, so `switchyard` works from anywhere. */
export const BUILTIN_CATALOG_DIR = join(import.meta.dirname, "..", "..", "catalog");

/**
 * A catalog document (`{models: [...]}`, or the list itself) → complete, validated models in the
 * order written. Ids must be unique within the document.
 */
export function parseModels(raw: unknown, source: string): CatalogModel[] {
  const list = modelList(raw, source);
  const seen = new Map<string, number>();
  return list.map((item, i) => {
    const entry = parseEntry(item, { source, path: `models[${i}]` });
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
 * given (a `pricings`, `endpoints` or `routing` given replaces the old one whole); a new id must be a
 * complete record. Returns a new list sorted by id; `base` is not changed.
 */
export function mergeModels(base: CatalogModel[], overrides: unknown, source: string): CatalogModel[] {
  const merged = new Map(base.map((model) => [model.id, model]));
  if (overrides !== undefined && overrides !== null) {
    const list = modelList(overrides, source);
    const seen = new Map<string, number>();
    list.forEach((item, i) => {
      const entry = parseEntry(item, { source, path: `models[${i}]` });
      refuseRepeat(entry, i, seen);
      const existing = merged.get(entry.id);
      const model = existing
        ? overrideModel(existing, entry)
        : completeModel(
            entry,
            `is required: ${entry.id} is not in the catalog, so its record must be complete`,
          );
      merged.set(entry.id, deepFreeze(model));
    });
  }
  return [...merged.values()].sort(byId);
}

function overrideModel(existing: CatalogModel, entry: ModelEntry): CatalogModel {
  const model: CatalogModel = { ...existing, ...entry.fields };
  checkLimits(model, entry.loc);
  return model;
}

function modelList(raw: unknown, source: string): unknown[] {
  const loc: Location = { source, path: "models" };
  if (Array.isArray(raw)) return raw;
  if (!isRecord(raw)) fail(loc, "expected a document with a top-level `models:` list");
  for (const key of Object.keys(raw)) {
    if (key !== "models") fail({ source, path: key }, "unknown top-level key (only `models` is allowed)");
  }
  if (!Array.isArray(raw.models)) fail(loc, "must be a list of model records");
  return raw.models;
}

function refuseRepeat(entry: ModelEntry, index: number, seen: Map<string, number>): void {
  const first = seen.get(entry.id);
  if (first !== undefined) {
    fail(
      { source: entry.loc.source, path: `${entry.loc.path}.id` },
      `repeats ${entry.id} (first at models[${first}])`,
    );
  }
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
