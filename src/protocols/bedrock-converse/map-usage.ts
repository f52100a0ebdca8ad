// Converse `usage` (TokenUsage) → IR usage (src/ir/usage.ts).
//
// Converse's `inputTokens` counts only the input neither read from nor written to the prompt cache;
// `cacheReadInputTokens` and `cacheWriteInputTokens` are counted beside it (`totalTokens` is the sum of
// all four). The IR's promptTokens includes both, so they are added here. `cacheDetails` splits the
// writes by TTL (`5m`, `1h`): its 1h share is trusted, the total write count is authoritative for the
// sum. Converse does not break reasoning out of `outputTokens`.

import { countFromWire, emptyUsage, type Usage } from "../../ir/usage.ts";
import { isObject } from "../shared/validate.ts";

export function usageFromWire(value: unknown): Usage {
  const usage = emptyUsage();
  if (!isObject(value)) return usage;
  const read = countFromWire(value.cacheReadInputTokens);
  const written = countFromWire(value.cacheWriteInputTokens);
  usage.cacheReadTokens = read;
  usage.cacheWrite1hTokens = Math.min(oneHourWrites(value.cacheDetails), written);
  usage.cacheWrite5mTokens = written - usage.cacheWrite1hTokens;
  usage.promptTokens = countFromWire(value.inputTokens) + read + written;
  usage.completionTokens = countFromWire(value.outputTokens);
  return usage;
}

function oneHourWrites(details: unknown): number {
  if (!Array.isArray(details)) return 0;
  let sum = 0;
  for (const detail of details)
    if (isObject(detail) && detail.ttl === "1h") sum += countFromWire(detail.inputTokens);
  return sum;
}
