// Which catalog models are served (at least one endpoint on an enabled provider) and how a name
// from a request resolves to one.

import type { CatalogModel } from "../catalog/types.ts";
import type { ProviderConfig } from "../config/providers.ts";
import { GatewayError } from "../ir/errors.ts";

export class ModelIndex {
  /** Served models, sorted by id. */
  readonly served: CatalogModel[];
  private readonly byId = new Map<string, CatalogModel>();
  private readonly byBareName = new Map<string, CatalogModel[]>();

  constructor(models: CatalogModel[], providers: ProviderConfig[]) {
    const enabled = new Set(providers.filter((p) => p.enabled).map((p) => p.id));
    this.served = models
      .filter((m) => m.endpoints.some((e) => enabled.has(e.provider)))
      .map((m) => ({ ...m, endpoints: m.endpoints.filter((e) => enabled.has(e.provider)) }))
      .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    for (const m of this.served) {
      this.byId.set(m.id, m);
      const bare = m.id.slice(m.id.indexOf("/") + 1);
      this.byBareName.set(bare, [...(this.byBareName.get(bare) ?? []), m]);
    }
  }

  get(id: string): CatalogModel | undefined {
    return this.byId.get(id);
  }

  /**
   * `<provider>/<model_name>` exactly; for content-generation clients also `models/…` and a bare
   * `<model_name>` when exactly one served model has it (Gemini CLI asks for `gemini-…` alone).
   */
  resolve(name: string, opts: { allowBare?: boolean; param?: string } = {}): CatalogModel {
    const id = name.startsWith("models/") ? name.slice("models/".length) : name;
    const found = this.byId.get(id) ?? (opts.allowBare ? this.uniqueBare(id) : undefined);
    if (!found)
      throw new GatewayError("not_found", `The model '${name}' does not exist or is not served here.`, {
        param: opts.param ?? "model",
      });
    return found;
  }

  private uniqueBare(name: string): CatalogModel | undefined {
    const matches = this.byBareName.get(name);
    return matches?.length === 1 ? matches[0] : undefined;
  }
}
