// A provider's quirks: what it does otherwise than its protocol's reference API, made once per
// provider from its configuration and handed to its protocol module with every call, translated or
// relayed (UpstreamTarget.quirks). Only chat-completions providers have any today.

import type { ProviderConfig } from "../config/providers.ts";
import type { ChatQuirks } from "../protocols/openai-chat/quirks.ts";

export type ProviderQuirks = ChatQuirks;

/** The provider's quirks, or undefined for a provider that follows its protocol's reference API. */
export function quirksOf(provider: ProviderConfig): ProviderQuirks | undefined {
  const { legacyMaxTokens, streamUsageUnasked, requestFields } = provider;
  if (!legacyMaxTokens && !streamUsageUnasked && !requestFields) return undefined;
  return {
    ...(legacyMaxTokens ? { legacyMaxTokens } : {}),
    ...(streamUsageUnasked ? { streamUsageUnasked } : {}),
    ...(requestFields ? { requestFields } : {}),
  };
}
