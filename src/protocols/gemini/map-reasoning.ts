// `generationConfig.thinkingConfig` ↔ IR reasoning settings.
//
// Client face: thinkingBudget 0 → reasoning off; -1 → dynamic (budgetTokens -1); n → budget n;
// thinkingLevel → effort; thoughts are shown only when `includeThoughts` is true (Gemini's default
// is to hide them), so `exclude` is set otherwise.
//
// Upstream face: the 2.5 generation takes a token budget, the 3 generation a level (it still accepts
// a budget, which is sent when the client gave one). An effort without a budget becomes a level on
// 3-generation models and, on older ones, the budget Google's own OpenAI-compatible endpoint uses
// for that effort (low 1024, medium 8192, high 24576; minimal 512, the smallest every 2.5 tier takes).
// The Pro tier of the 3 generation has only LOW and HIGH, so minimal and medium round to those there.

import { invalid } from "../../ir/errors.ts";
import type { ReasoningEffort, ReasoningSettings } from "../../ir/request.ts";
import {
  expectObject,
  type Json,
  optionalBoolean,
  optionalNumber,
  optionalString,
} from "../shared/validate.ts";
import { field } from "./read-field.ts";

/** The largest budget any tier takes (2.5 Pro). */
const MAX_BUDGET = 32768;

const LEVELS: Record<string, ReasoningEffort | undefined> = {
  THINKING_LEVEL_UNSPECIFIED: undefined,
  MINIMAL: "minimal",
  LOW: "low",
  MEDIUM: "medium",
  HIGH: "high",
};

export function reasoningFromThinkingConfig(value: unknown, at: string): ReasoningSettings {
  const config = expectObject(value, at);
  // Every tier's range lies within 0–32768; -1 asks for dynamic thinking. The model's own range is
  // checked once the model is known (check-model.ts).
  const budget = optionalNumber(field(config, "thinkingBudget"), `${at}.thinkingBudget`, {
    integer: true,
    min: -1,
    max: MAX_BUDGET,
  });
  const levelName = optionalString(field(config, "thinkingLevel"), `${at}.thinkingLevel`)?.toUpperCase();
  const includeThoughts = optionalBoolean(field(config, "includeThoughts"), `${at}.includeThoughts`);
  if (levelName !== undefined && !(levelName in LEVELS))
    throw invalid(`${at}.thinkingLevel`, `must be one of ${Object.keys(LEVELS).join(", ")}`);
  if (budget !== undefined && levelName !== undefined)
    throw invalid(at, "thinkingBudget and thinkingLevel cannot be combined");
  const reasoning: ReasoningSettings = { exclude: includeThoughts !== true };
  if (budget === 0) {
    reasoning.enabled = false;
    reasoning.budgetTokens = 0;
  } else if (budget !== undefined) {
    reasoning.enabled = true;
    reasoning.budgetTokens = budget;
  } else if (levelName !== undefined && LEVELS[levelName] !== undefined) {
    reasoning.enabled = true;
    reasoning.effort = LEVELS[levelName];
  }
  return reasoning;
}

const BUDGET_FOR_EFFORT: Record<ReasoningEffort, number> = {
  none: 0,
  minimal: 512,
  low: 1024,
  medium: 8192,
  high: 24576,
  xhigh: 24576,
};

/** The model generation from a Gemini model name (`gemini-3-pro-preview` → 3), or 0 if unknown. */
export function geminiGeneration(model: string): number {
  const match = /gemini-(\d+)/i.exec(model);
  return match ? Number(match[1]) : 0;
}

function levelFor(effort: ReasoningEffort, model: string): string {
  const pro = /pro/i.test(model);
  if (effort === "none" || effort === "minimal") return pro ? "LOW" : "MINIMAL";
  if (effort === "low") return "LOW";
  if (effort === "medium") return pro ? "HIGH" : "MEDIUM";
  return "HIGH";
}

export function thinkingConfigFromReasoning(
  reasoning: ReasoningSettings | undefined,
  model: string,
): Json | undefined {
  if (!reasoning) return undefined;
  const levels = geminiGeneration(model) >= 3;
  const config: Json = {};
  const off = reasoning.enabled === false || reasoning.effort === "none";
  if (off) {
    // The 3 generation and the 2.5 Pro tier cannot switch thinking off; their lowest setting is closest.
    if (levels) config.thinkingLevel = levelFor("none", model);
    else config.thinkingBudget = /pro/i.test(model) ? 128 : 0;
    return config;
  }
  if (reasoning.budgetTokens !== undefined) config.thinkingBudget = reasoning.budgetTokens;
  else if (reasoning.effort !== undefined) {
    if (levels) config.thinkingLevel = levelFor(reasoning.effort, model);
    else config.thinkingBudget = BUDGET_FOR_EFFORT[reasoning.effort];
  } else if (!levels && (reasoning.adaptive || reasoning.enabled)) config.thinkingBudget = -1;
  config.includeThoughts = reasoning.exclude !== true;
  return config;
}
