// What a content-generation request may not ask of the model it names: thinking settings on a model
// that does not think (the API answers that with an error), and a thinking budget outside the
// model's range. The 2.5 generation's ranges: Pro 128–32768 (thinking cannot be switched off),
// Flash 0–24576, Flash-Lite 512–24576 (0 switches thinking off); -1 asks for dynamic thinking on
// every tier. A model of no known tier (a later generation, another vendor's model behind the
// Gemini face) takes what some tier takes: -1, 0 or up to 32768 (the decoder's own bound).

import { invalid } from "../../ir/errors.ts";
import type { Request } from "../../ir/request.ts";
import type { ModelTraits } from "../types.ts";

const AT = "generationConfig.thinkingConfig";

interface BudgetRange {
  tier: string;
  min: number;
  max: number;
  /** 0 switches thinking off. */
  canSwitchOff: boolean;
}

const TIERS: Array<{ pattern: RegExp; range: BudgetRange }> = [
  {
    pattern: /gemini-2\.5-flash-lite/i,
    range: { tier: "Flash-Lite", min: 512, max: 24576, canSwitchOff: true },
  },
  { pattern: /gemini-2\.5-flash/i, range: { tier: "Flash", min: 1, max: 24576, canSwitchOff: true } },
  { pattern: /gemini-2\.5-pro/i, range: { tier: "Pro", min: 128, max: 32768, canSwitchOff: false } },
];

export function checkModel(request: Request, model: ModelTraits): void {
  // The Gemini face sets reasoning settings only from a thinkingConfig.
  if (request.reasoning === undefined) return;
  if (!model.reasoning)
    throw invalid(AT, `the model '${model.id}' does not think; leave thinkingConfig out for it`);
  const budget = request.reasoning.budgetTokens;
  if (budget === undefined || budget === -1) return;
  const range = tierOf(model);
  if (!range) return;
  if (budget === 0) {
    if (!range.canSwitchOff)
      throw invalid(
        `${AT}.thinkingBudget`,
        `the ${range.tier} tier cannot switch thinking off; use ${range.min} to ${range.max}, or -1`,
      );
    return;
  }
  if (budget < range.min || budget > range.max)
    throw invalid(
      `${AT}.thinkingBudget`,
      `must be ${range.min} to ${range.max} for the model '${model.id}' (${range.tier} tier), 0 to switch thinking off${range.canSwitchOff ? "" : " (not on this tier)"}, or -1 for dynamic thinking`,
    );
}

/** The 2.5 tier of the model, from its id or the upstream names it is served under. */
function tierOf(model: ModelTraits): BudgetRange | undefined {
  for (const name of [model.id, ...model.endpoints.map((e) => e.model)])
    for (const { pattern, range } of TIERS) if (pattern.test(name)) return range;
  return undefined;
}
