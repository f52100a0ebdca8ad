// One adapter per configured provider, made on first use.

import type { ProviderConfig } from "../config/providers.ts";
import { protocols } from "../protocols/index.ts";
import { protocolOfConfig } from "../protocols/names.ts";
import { type CredentialWarn, CredentialWatch } from "./auth/credential-watch.ts";
import { HttpProvider } from "./http/adapter.ts";
import { LocalProvider } from "./local/adapter.ts";
import { PlatformProvider } from "./platforms/index.ts";
import type { ProviderAdapter } from "./types.ts";

export interface AdapterRegistry {
  adapterFor(provider: ProviderConfig): ProviderAdapter;
  /** The platform providers that cannot get credentials now, each with its cause (credential-watch.ts). */
  credentialProblems(): Record<string, string>;
  /** Closes every adapter made (their pooled connections): the App's close. */
  close(): Promise<void>;
}

/** `warn` logs a platform's failing credentials (at most once a minute each). */
export function adapterRegistry(options: { warn?: CredentialWarn } = {}): AdapterRegistry {
  const adapters = new Map<string, ProviderAdapter>();
  const credentials = new CredentialWatch(options.warn);
  return {
    credentialProblems: () => credentials.current(),
    adapterFor(provider) {
      let adapter = adapters.get(provider.id);
      if (!adapter) {
        adapter = makeAdapter(provider, credentials);
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

function makeAdapter(provider: ProviderConfig, credentials: CredentialWatch): ProviderAdapter {
  if (provider.protocol === "local") return new LocalProvider({ chunkDelayMs: provider.chunkDelayMs });
  if (provider.platform) return new PlatformProvider(provider, provider.platform, credentials);
  return new HttpProvider(provider, protocols[protocolOfConfig(provider.protocol)]);
}
