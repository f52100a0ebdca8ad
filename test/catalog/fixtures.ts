// Small catalog records for the catalog tests, written the way a catalog file writes them.

import type { CatalogModel } from "../../src/catalog/types.ts";

/** A complete YAML-shaped (snake_case) model record; `overrides` replace keys, undefined removes one. */
export function rawModel(id: string, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  const record: Record<string, unknown> = {
    id,
    display_name: `Model ${id}`,
    description: `About ${id}`,
    created: "2025-04-14",
    owned_by: id.split("/")[0],
    input_modalities: ["text", "image"],
    output_modalities: ["text"],
    reasoning: false,
    context_length: 100000,
    max_output_tokens: 8192,
    pricings: {
      prompt: [{ value: 1.25, unit: "perMTokens", currency: "USD" }],
      completion: [{ value: 10, unit: "perMTokens", currency: "USD" }],
    },
    endpoints: [{ provider: id.split("/")[0], model: id.split("/").slice(1).join("/") }],
  };
  for (const [key, value] of Object.entries(overrides)) {
    if (value === undefined) delete record[key];
    else record[key] = value;
  }
  return record;
}

/** A CatalogModel as the loader produces it (for listing tests that need no YAML). */
export function catalogModel(id: string, overrides: Partial<CatalogModel> = {}): CatalogModel {
  return {
    id,
    displayName: `Model ${id}`,
    description: `About ${id}`,
    created: 1744588800, // 2025-04-14
    ownedBy: id.split("/")[0],
    inputModalities: ["text", "image"],
    outputModalities: ["text"],
    reasoning: false,
    contextLength: 100000,
    maxOutputTokens: 8192,
    pricings: {
      prompt: [{ value: 1.25, unit: "perMTokens", currency: "USD" }],
      completion: [{ value: 10, unit: "perMTokens", currency: "USD" }],
    },
    endpoints: [{ provider: id.split("/")[0], model: id.split("/").slice(1).join("/") }],
    ...overrides,
  };
}

/** `count` models named `test/m-00` … in id order. */
export function numberedModels(count: number): CatalogModel[] {
  return Array.from({ length: count }, (_, i) => catalogModel(`test/m-${String(i).padStart(2, "0")}`));
}
