// Usage in both directions. The chat protocol's semantics are the IR's (src/ir/usage.ts):
// `prompt_tokens` includes cached tokens, `completion_tokens` includes reasoning tokens.

import { countFromWire, emptyUsage, totalTokens, type Usage } from "../../ir/usage.ts";
import { isObject } from "../shared/validate.ts";
import type { WireUsage } from "./wire-types.ts";

export function usageToWire(usage: Usage): WireUsage {
  const promptDetails: WireUsage["prompt_tokens_details"] = { cached_tokens: usage.cacheReadTokens };
  // Cache writes exist only behind Anthropic-style upstreams; the SDK types the field, and it is shown
  // only when there is something to show so OpenAI-shaped answers stay as OpenAI writes them.
  const cacheWrites = usage.cacheWrite5mTokens + usage.cacheWrite1hTokens;
  if (cacheWrites > 0) promptDetails.cache_write_tokens = cacheWrites;
  return {
    prompt_tokens: usage.promptTokens,
    completion_tokens: usage.completionTokens,
    total_tokens: totalTokens(usage),
    prompt_tokens_details: promptDetails,
    completion_tokens_details: { reasoning_tokens: usage.reasoningTokens },
  };
}

/** An upstream `usage` object → IR usage. Missing or malformed counts read as 0. */
export function usageFromWire(raw: unknown): Usage {
  const usage = emptyUsage();
  if (!isObject(raw)) return usage;
  usage.promptTokens = countFromWire(raw.prompt_tokens);
  usage.completionTokens = countFromWire(raw.completion_tokens);
  const prompt = isObject(raw.prompt_tokens_details) ? raw.prompt_tokens_details : {};
  // DeepSeek reports cache hits as a top-level `prompt_cache_hit_tokens` instead of the details object.
  usage.cacheReadTokens = countFromWire(prompt.cached_tokens ?? raw.prompt_cache_hit_tokens);
  usage.cacheWrite5mTokens = countFromWire(prompt.cache_write_tokens);
  const completion = isObject(raw.completion_tokens_details) ? raw.completion_tokens_details : {};
  usage.reasoningTokens = countFromWire(completion.reasoning_tokens);
  return usage;
}
