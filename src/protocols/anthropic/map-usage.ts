// Messages-protocol usage ↔ IR usage. On the wire `input_tokens` excludes cache reads and writes; in
// the IR `promptTokens` includes them (src/ir/usage.ts). Converted here and nowhere else.

import { countFromWire, emptyUsage, type Usage, uncachedPromptTokens } from "../../ir/usage.ts";
import { isObject, type Json } from "../shared/validate.ts";

export function usageFromWire(value: unknown): Usage {
  const usage = emptyUsage();
  if (!isObject(value)) return usage;
  const split = isObject(value.cache_creation) ? value.cache_creation : undefined;
  const hasTotal = typeof value.cache_creation_input_tokens === "number";
  // The split is trusted for its 1h share; the total (when given) is authoritative for the sum, so
  // cache writes are never counted twice nor lost (docs/architecture.md §10: cache-creation tokens billed
  // twice).
  const oneHour = countFromWire(split?.ephemeral_1h_input_tokens);
  const total = hasTotal
    ? countFromWire(value.cache_creation_input_tokens)
    : countFromWire(split?.ephemeral_5m_input_tokens) + oneHour;
  usage.cacheWrite1hTokens = Math.min(oneHour, total);
  usage.cacheWrite5mTokens = total - usage.cacheWrite1hTokens;
  usage.cacheReadTokens = countFromWire(value.cache_read_input_tokens);
  usage.promptTokens = countFromWire(value.input_tokens) + usage.cacheReadTokens + total;
  usage.completionTokens = countFromWire(value.output_tokens);
  if (isObject(value.output_tokens_details))
    usage.reasoningTokens = countFromWire(value.output_tokens_details.thinking_tokens);
  if (isObject(value.server_tool_use))
    usage.webSearchRequests = countFromWire(value.server_tool_use.web_search_requests);
  return usage;
}

/**
 * A stream's usage: message_delta carries cumulative totals (always `output_tokens`, sometimes the
 * input and cache counts); message_start carries the input and cache counts. Later values win.
 */
export function mergeWireUsage(start: Json | undefined, delta: Json | undefined): Json {
  const merged: Json = { ...start };
  if (delta)
    for (const [key, value] of Object.entries(delta))
      if (value !== null && value !== undefined) merged[key] = value;
  return merged;
}

/** The full `usage` object of a message, field for field as @anthropic-ai/sdk types it. */
export function usageToWire(usage: Usage) {
  const cacheWrites = usage.cacheWrite5mTokens + usage.cacheWrite1hTokens;
  return {
    input_tokens: uncachedPromptTokens(usage),
    output_tokens: usage.completionTokens,
    cache_creation_input_tokens: cacheWrites,
    cache_read_input_tokens: usage.cacheReadTokens,
    cache_creation: {
      ephemeral_5m_input_tokens: usage.cacheWrite5mTokens,
      ephemeral_1h_input_tokens: usage.cacheWrite1hTokens,
    },
    server_tool_use: { web_search_requests: usage.webSearchRequests, web_fetch_requests: 0 },
    output_tokens_details: usage.reasoningTokens > 0 ? { thinking_tokens: usage.reasoningTokens } : null,
    service_tier: "standard" as const,
    inference_geo: null,
    speed: null,
  };
}

/** The `usage` of a message_delta event: cumulative totals (the SDK overwrites, never adds). */
export function deltaUsageToWire(usage: Usage) {
  return {
    input_tokens: uncachedPromptTokens(usage),
    output_tokens: usage.completionTokens,
    cache_creation_input_tokens: usage.cacheWrite5mTokens + usage.cacheWrite1hTokens,
    cache_read_input_tokens: usage.cacheReadTokens,
    server_tool_use: { web_search_requests: usage.webSearchRequests, web_fetch_requests: 0 },
    output_tokens_details: usage.reasoningTokens > 0 ? { thinking_tokens: usage.reasoningTokens } : null,
  };
}
