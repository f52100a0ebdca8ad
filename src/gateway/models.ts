// Which catalog models are served (at least one endpoint on an enabled provider) and how a name
// from a request resolves to one.

import type { CatalogModel } from "../catalog/types.ts";
import type { ProviderConfig } from "../config/providers.ts";
import { GatewayError } from "../ir/errors.ts";

export class ModelIndex {
  /** Served models, sorted by id. */
  readonly served: CatalogModel[];
  private readonly byId = new Map<string, CatalogModel>();
  /** Each name a client may use without the provider part: the id's model name and the aliases. */
  private readonly byBareName = new Map<string, CatalogModel[]>();

  constructor(models: CatalogModel[], providers: ProviderConfig[]) {
    const enabled = new Set(providers.filter((p) => p.enabled).map((p) => p.id));
    this.served = models
      .filter((m) => m.endpoints.some((e) => enabled.has(e.provider)))
      .map((m) => ({ ...m, endpoints: m.endpoints.filter((e) => enabled.has(e.provider)) }))
      .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    for (const m of this.served) {
      this.byId.set(m.id, m);
      for (const bare of new Set([m.id.slice(m.id.indexOf("/") + 1), ...(m.aliases ?? [])]))
        this.byBareName.set(bare, [...(this.byBareName.get(bare) ?? []), m]);
    }
  }

  get(id: string): CatalogModel | undefined {
    return this.byId.get(id);
  }

  /**
   * `<provider>/<model_name>` exactly (also `models/…`, as Gemini clients write it); else a bare
   * vendor id, the model name alone (`claude-sonnet-4-6`, `gpt-5`, `gemini-2.5-pro`) or one of a
   * model's `aliases` (a dated snapshot id such as `claude-haiku-4-5-20251001`), when exactly one
   * served model has it. Clients given only a base URL ask for their vendor's ids: Claude Code, Codex
   * and Gemini CLI all do.
   */
  resolve(name: string, opts: { param?: string } = {}): CatalogModel {
    const id = name.startsWith("models/") ? name.slice("models/".length) : name;
    const found = this.byId.get(id) ?? this.uniqueBare(id);
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
