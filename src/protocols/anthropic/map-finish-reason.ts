// Messages-protocol `stop_reason` ↔ IR finish reason.

import type { FinishReason } from "../../ir/response.ts";

export type StopReason = "end_turn" | "max_tokens" | "stop_sequence" | "tool_use" | "pause_turn" | "refusal";

export function finishReasonToWire(reason: FinishReason): StopReason {
  switch (reason) {
    case "length":
      return "max_tokens";
    case "stop_sequence":
      return "stop_sequence";
    case "tool_calls":
      return "tool_use";
    case "pause":
      return "pause_turn";
    // A filtered answer is, to a messages client, the safety classifier declining.
    case "content_filter":
    case "refusal":
      return "refusal";
    default:
      return "end_turn";
  }
}

export function finishReasonFromWire(reason: unknown): FinishReason {
  switch (reason) {
    case "end_turn":
      return "stop";
    case "max_tokens":
    case "model_context_window_exceeded":
      return "length";
    case "stop_sequence":
      return "stop_sequence";
    case "tool_use":
      return "tool_calls";
    case "pause_turn":
      return "pause";
    case "refusal":
      return "refusal";
    default:
      return "other";
  }
}
