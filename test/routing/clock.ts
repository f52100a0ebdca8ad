// A clock the routing tests move by hand, and catalog records small enough to read in a test.

import type { CatalogModel } from "../../src/catalog/types.ts";

export class Clock {
  ms = 1_000_000;
  readonly now = () => this.ms;
  advance(ms: number): void {
    this.ms += ms;
  }
}

export function catalogModel(
  id: string,
  providers: string[],
  extra: Partial<CatalogModel> & { prompt?: number; completion?: number } = {},
): CatalogModel {
  const { prompt = 1, completion = 2, ...rest } = extra;
  return {
    id,
    displayName: id,
    description: "",
    created: 0,
    ownedBy: id.split("/")[0],
    inputModalities: ["text"],
    outputModalities: ["text"],
    reasoning: false,
    contextLength: 1000,
    maxOutputTokens: 100,
    pricings: {
      prompt: [{ value: prompt, unit: "perMTokens", currency: "USD" }],
      completion: [{ value: completion, unit: "perMTokens", currency: "USD" }],
    },
    endpoints: providers.map((provider) => ({ provider, model: id.split("/")[1] })),
    ...rest,
  };
}
