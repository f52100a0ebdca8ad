// Usage in both directions. The Responses API counts as the IR does (src/ir/usage.ts), under other
// names: `input_tokens` includes cached tokens (`input_tokens_details.cached_tokens`), and
// `output_tokens` includes reasoning (`output_tokens_details.reasoning_tokens`). Every detail is
// always written, 0 when there is none: clients such as Codex fail on a missing `reasoning_tokens`.

import { countFromWire, emptyUsage, totalTokens, type Usage } from "../../ir/usage.ts";
import { isObject } from "../shared/validate.ts";
import type { WireUsage } from "./wire-types.ts";

export function usageToWire(usage: Usage): WireUsage {
  return {
    input_tokens: usage.promptTokens,
    input_tokens_details: {
      cached_tokens: usage.cacheReadTokens,
      cache_write_tokens: usage.cacheWrite5mTokens + usage.cacheWrite1hTokens,
    },
    output_tokens: usage.completionTokens,
    output_tokens_details: { reasoning_tokens: usage.reasoningTokens },
    total_tokens: totalTokens(usage),
  };
}

/** An upstream `usage` object → IR usage. Missing or malformed counts read as 0. */
export function usageFromWire(raw: unknown): Usage {
  const usage = emptyUsage();
  if (!isObject(raw)) return usage;
  usage.promptTokens = countFromWire(raw.input_tokens);
  usage.completionTokens = countFromWire(raw.output_tokens);
  const input = isObject(raw.input_tokens_details) ? raw.input_tokens_details : {};
  usage.cacheReadTokens = countFromWire(input.cached_tokens);
  usage.cacheWrite5mTokens = countFromWire(input.cache_write_tokens);
  const output = isObject(raw.output_tokens_details) ? raw.output_tokens_details : {};
  usage.reasoningTokens = countFromWire(output.reasoning_tokens);
  return usage;
}
