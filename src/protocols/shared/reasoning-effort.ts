// How much reasoning to ask an OpenAI-style upstream for, from the IR's settings.

import type { ReasoningEffort, ReasoningSettings } from "../../ir/request.ts";

/**
 * The effort to ask an OpenAI upstream for (chat `reasoning_effort`, Responses `reasoning.effort`),
 * or nothing (the model's default). Reasoning switched off sends nothing unless the client itself
 * said "none": models that do not reason refuse the parameter, and older reasoning models refuse
 * "none". A token budget (messages `budget_tokens`, Gemini `thinkingBudget`) has no OpenAI field, so
 * it maps to the nearest effort on the scale of Gemini's own OpenAI-compatible endpoint, which maps
 * the other way low → 1024, medium → 8192, high → 24576 tokens. The boundaries sit between those
 * points:
 *   budget 1…4096 → low, 4097…16384 → medium, above 16384 → high;
 *   0 (off), -1 (dynamic) and adaptive → nothing.
 * Reasoning switched on with nothing more (chat `reasoning: {enabled: true}` or `{}`) asks for
 * `medium`, the default OpenRouter gives that setting on OpenAI models.
 */
export function reasoningEffort(reasoning: ReasoningSettings | undefined): ReasoningEffort | undefined {
  if (!reasoning) return undefined;
  if (reasoning.enabled === false) return reasoning.effort === "none" ? "none" : undefined;
  if (reasoning.effort) return reasoning.effort;
  const budget = reasoning.budgetTokens;
  if (budget === undefined && reasoning.enabled === true && !reasoning.adaptive) return "medium";
  if (budget === undefined || budget <= 0) return undefined;
  if (budget <= 4096) return "low";
  if (budget <= 16384) return "medium";
  return "high";
}
