// Gemini `finishReason` ↔ IR finish reason.
//
// Gemini ends a turn that calls functions with STOP (there is no "tool calls" reason), so the
// upstream decoder turns STOP into `tool_calls` when the candidate held functionCall parts, and the
// client encoder writes `tool_calls` back as STOP. Gemini does not say which stop sequence matched.

import type { FinishReason } from "../../ir/response.ts";

const FILTERED = new Set([
  "SAFETY",
  "RECITATION",
  "BLOCKLIST",
  "PROHIBITED_CONTENT",
  "SPII",
  "IMAGE_SAFETY",
  "IMAGE_PROHIBITED_CONTENT",
  "IMAGE_RECITATION",
]);

const TOOL_FAILURES = new Set(["MALFORMED_FUNCTION_CALL", "UNEXPECTED_TOOL_CALL", "TOO_MANY_TOOL_CALLS"]);

/** Upstream Gemini reason → IR. `hasToolCalls`: the candidate held functionCall parts. */
export function finishReasonFromWire(reason: string, hasToolCalls: boolean): FinishReason {
  // Some surfaces spell the values with a prefix (FINISH_REASON_STOP); the SDK enum does not.
  const value =
    reason.startsWith("FINISH_REASON_") && reason !== "FINISH_REASON_UNSPECIFIED" ? reason.slice(14) : reason;
  if (value === "STOP") return hasToolCalls ? "tool_calls" : "stop";
  if (value === "MAX_TOKENS" || value === "CONTINUATION") return "length";
  if (FILTERED.has(value)) return "content_filter";
  if (TOOL_FAILURES.has(value)) return "error";
  return "other";
}

/** IR reason → the value a Gemini client reads. */
export function finishReasonToWire(reason: FinishReason): string {
  switch (reason) {
    case "stop":
    case "stop_sequence":
    case "tool_calls":
      return "STOP";
    case "length":
      return "MAX_TOKENS";
    case "content_filter":
    case "refusal":
      return "SAFETY";
    default:
      return "OTHER";
  }
}
