// Gemini `usageMetadata` ↔ IR usage (src/ir/usage.ts).
//
// Gemini: `promptTokenCount` includes `cachedContentTokenCount`; `thoughtsTokenCount` is reported
// outside `candidatesTokenCount`; `totalTokenCount` = prompt + candidates + toolUsePrompt + thoughts.
// IR: promptTokens includes cache reads, completionTokens includes reasoning. Converted here once.

import { countFromWire, emptyUsage, type Usage } from "../../ir/usage.ts";
import { isObject } from "../shared/validate.ts";
import type { GeminiUsageMetadata } from "./wire-types.ts";

export function usageFromWire(metadata: unknown): Usage {
  const usage = emptyUsage();
  if (!isObject(metadata)) return usage;
  const thoughts = countFromWire(metadata.thoughtsTokenCount);
  // Results of server-side tools are fed back to the model as input and billed as input.
  usage.promptTokens =
    countFromWire(metadata.promptTokenCount) + countFromWire(metadata.toolUsePromptTokenCount);
  usage.cacheReadTokens = countFromWire(metadata.cachedContentTokenCount);
  usage.completionTokens = countFromWire(metadata.candidatesTokenCount) + thoughts;
  usage.reasoningTokens = thoughts;
  return usage;
}

export function usageToWire(usage: Usage): GeminiUsageMetadata {
  const thoughts = Math.min(usage.reasoningTokens, usage.completionTokens);
  const candidates = usage.completionTokens - thoughts;
  const metadata: GeminiUsageMetadata = {
    promptTokenCount: usage.promptTokens,
    candidatesTokenCount: candidates,
    totalTokenCount: usage.promptTokens + candidates + thoughts,
  };
  if (usage.cacheReadTokens > 0) metadata.cachedContentTokenCount = usage.cacheReadTokens;
  if (thoughts > 0) metadata.thoughtsTokenCount = thoughts;
  return metadata;
}
