// Gemini `usageMetadata` ↔ IR usage (src/ir/usage.ts).
//
// Gemini: `promptTokenCount` includes `cachedContentTokenCount`; `thoughtsTokenCount` is reported
// outside `candidatesTokenCount`; `totalTokenCount` = prompt + candidates + toolUsePrompt + thoughts.
// IR: promptTokens includes cache reads, completionTokens includes reasoning. Converted here once.

import { emptyUsage, type Usage } from "../../ir/usage.ts";
import { isObject } from "../shared/validate.ts";
import type { GeminiUsageMetadata } from "./wire-types.ts";

function count(value: unknown): number {
  return typeof value === "number" && Number.isFinite(value) && value > 0 ? value : 0;
}

export function usageFromWire(metadata: unknown): Usage {
  const usage = emptyUsage();
  if (!isObject(metadata)) return usage;
  const thoughts = count(metadata.thoughtsTokenCount);
  // Results of server-side tools are fed back to the model as input and billed as input.
  usage.promptTokens = count(metadata.promptTokenCount) + count(metadata.toolUsePromptTokenCount);
  usage.cacheReadTokens = count(metadata.cachedContentTokenCount);
  usage.completionTokens = count(metadata.candidatesTokenCount) + thoughts;
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
