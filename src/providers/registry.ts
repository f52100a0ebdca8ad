// One adapter per configured provider, made on first use.

import type { ProviderConfig } from "../config/providers.ts";
import { protocols } from "../protocols/index.ts";
import { protocolOfConfig } from "../protocols/names.ts";
import { HttpProvider } from "./http/adapter.ts";
import { LocalProvider } from "./local/adapter.ts";
import { PlatformProvider } from "./platforms/index.ts";
import type { ProviderAdapter } from "./types.ts";

export interface AdapterRegistry {
  adapterFor(provider: ProviderConfig): ProviderAdapter;
  /** Closes every adapter made (their pooled connections): the App's close. */
  close(): Promise<void>;
}

export function adapterRegistry(): AdapterRegistry {
  const adapters = new Map<string, ProviderAdapter>();
  return {
    adapterFor(provider) {
      let adapter = adapters.get(provider.id);
      if (!adapter) {
        adapter = makeAdapter(provider);
        adapters.set(provider.id, adapter);
      }
      return adapter;
    },
    async close() {
      const closing = [...adapters.values()].map((a) => a.close?.());
      adapters.clear();
      await Promise.all(closing);
    },
  };
}

function makeAdapter(provider: ProviderConfig): ProviderAdapter {
  if (provider.protocol === "local") return new LocalProvider({ chunkDelayMs: provider.chunkDelayMs });
  if (provider.platform) return new PlatformProvider(provider, provider.platform);
  return new HttpProvider(provider, protocols[protocolOfConfig(provider.protocol)]);
}
