// How each upstream protocol takes its credential: Bearer (openai, openai-responses), x-api-key with
// anthropic-version (anthropic), x-goog-api-key (gemini); docs/configuration.md, providers[].api_key.

import type { ProviderConfig } from "../../config/providers.ts";

export function upstreamHeaders(provider: ProviderConfig): Record<string, string> {
  const headers: Record<string, string> = { "content-type": "application/json" };
  const key = provider.apiKey;
  switch (provider.protocol) {
    case "anthropic":
      headers["anthropic-version"] = "2023-06-01";
      if (key) headers["x-api-key"] = key;
      break;
    case "gemini":
      if (key) headers["x-goog-api-key"] = key;
      break;
    default:
      if (key) headers.authorization = `Bearer ${key}`;
  }
  return headers;
}
