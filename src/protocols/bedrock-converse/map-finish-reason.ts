// Converse `stopReason` → IR finish reason.
//
// A guardrail or the model's own filter withholding output is `content_filter`; a model that broke
// its output or a tool call's JSON is `error`; running out of context is `length`. Converse does not
// say which stop sequence matched; Claude does among its response fields (`stop_sequence`, asked for
// by encode-request.ts).

import type { FinishReason } from "../../ir/response.ts";

const REASONS: Record<string, FinishReason> = {
  end_turn: "stop",
  tool_use: "tool_calls",
  max_tokens: "length",
  stop_sequence: "stop_sequence",
  guardrail_intervened: "content_filter",
  content_filtered: "content_filter",
  malformed_model_output: "error",
  malformed_tool_use: "error",
  model_context_window_exceeded: "length",
};

export function finishReasonFromWire(reason: unknown): FinishReason {
  return typeof reason === "string" ? (REASONS[reason] ?? "other") : "other";
}

/** The stop sequence Claude reports in `additionalModelResponseFields`, if any. */
export function stopSequenceFromWire(fields: unknown): string | undefined {
  if (typeof fields !== "object" || fields === null) return undefined;
  const value = (fields as Record<string, unknown>).stop_sequence;
  return typeof value === "string" ? value : undefined;
}
