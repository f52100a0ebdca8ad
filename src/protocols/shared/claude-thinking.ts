// IR reasoning settings → Claude's `thinking` object (and `output_config.effort`): the messages protocol
// sends it as is, and Bedrock's Converse API among its `additionalModelRequestFields` for Claude models.

import type { ReasoningEffort, ReasoningSettings } from "../../ir/request.ts";

const MIN_BUDGET = 1024;

/**
 * The messages protocol takes a thinking token budget, not an effort level. Budgets per effort:
 * minimal 1024 (the smallest allowed), low 2048, medium 8192, high 16384, xhigh 32768 — doubling
 * steps that leave room for the answer at common max_tokens values. A budget is then clamped to
 * [1024, max_tokens - 1]; when max_tokens leaves no room (≤ 1024), thinking is left off.
 */
const BUDGET_FOR_EFFORT: Record<Exclude<ReasoningEffort, "none">, number> = {
  minimal: 1024,
  low: 2048,
  medium: 8192,
  high: 16384,
  xhigh: 32768,
};

/** Wire `output_config.effort` for adaptive thinking; xhigh is the protocol's top level, `max`. */
const WIRE_EFFORT: Record<Exclude<ReasoningEffort, "none">, string> = {
  minimal: "low",
  low: "low",
  medium: "medium",
  high: "high",
  xhigh: "max",
};

export type WireThinking =
  | { type: "enabled"; budget_tokens: number }
  | { type: "disabled" }
  | { type: "adaptive" };

export interface EncodedThinking {
  thinking?: WireThinking;
  effort?: string;
}

export function encodeThinking(reasoning: ReasoningSettings | undefined, maxTokens: number): EncodedThinking {
  if (!reasoning) return {};
  if (reasoning.enabled === false || reasoning.effort === "none") return { thinking: { type: "disabled" } };
  if (reasoning.adaptive)
    return reasoning.effort
      ? { thinking: { type: "adaptive" }, effort: WIRE_EFFORT[reasoning.effort] }
      : { thinking: { type: "adaptive" } };
  const asked =
    reasoning.enabled === true || reasoning.effort !== undefined || reasoning.budgetTokens !== undefined;
  if (!asked) return {};
  // budgetTokens -1 (Gemini "dynamic") or 0 falls back to the effort's budget.
  const budget =
    reasoning.budgetTokens !== undefined && reasoning.budgetTokens > 0
      ? reasoning.budgetTokens
      : BUDGET_FOR_EFFORT[reasoning.effort ?? "medium"];
  const clamped = Math.min(Math.max(budget, MIN_BUDGET), maxTokens - 1);
  if (clamped < MIN_BUDGET) return {};
  return { thinking: { type: "enabled", budget_tokens: clamped } };
}
