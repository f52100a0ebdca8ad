import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { selectItem } from "../../src/billing/pricing.ts";
import type { PricingCondition, PricingItem } from "../../src/catalog/types.ts";

function item(
  value: number,
  prompt?: Omit<PricingCondition, "unit">,
  completion?: Omit<PricingCondition, "unit">,
) {
  const conditions: PricingItem["conditions"] = {};
  if (prompt) conditions.prompt_tokens = { unit: "kTokens", ...prompt };
  if (completion) conditions.completion_tokens = { unit: "kTokens", ...completion };
  const result: PricingItem = { value, unit: "perMTokens", currency: "USD" };
  if (prompt || completion) result.conditions = conditions;
  return result;
}

const geminiPromptTiers = [item(1.25, { lte: 200 }), item(2.5, { gt: 200, lt: null })];

describe("selectItem: tier boundaries", () => {
  const cases: Array<{
    name: string;
    items: PricingItem[];
    promptTokens: number;
    completionTokens?: number;
    expected: number | undefined;
  }> = [
    {
      name: "exactly 200k with lte 200 → low tier",
      items: geminiPromptTiers,
      promptTokens: 200_000,
      expected: 1.25,
    },
    { name: "200,001 → high tier", items: geminiPromptTiers, promptTokens: 200_001, expected: 2.5 },
    { name: "0 tokens → low tier", items: geminiPromptTiers, promptTokens: 0, expected: 1.25 },
    { name: "lt null has no upper bound", items: geminiPromptTiers, promptTokens: 5_000_000, expected: 2.5 },
    {
      name: "gte 200 excludes 199,999",
      items: [item(1, { gte: 200 })],
      promptTokens: 199_999,
      expected: undefined,
    },
    { name: "gte 200 includes 200,000", items: [item(1, { gte: 200 })], promptTokens: 200_000, expected: 1 },
    {
      name: "gt 200 excludes 200,000",
      items: [item(1, { gt: 200 })],
      promptTokens: 200_000,
      expected: undefined,
    },
    { name: "gt 200 includes 200,001", items: [item(1, { gt: 200 })], promptTokens: 200_001, expected: 1 },
    { name: "lt 200 includes 199,999", items: [item(1, { lt: 200 })], promptTokens: 199_999, expected: 1 },
    {
      name: "lt 200 excludes 200,000",
      items: [item(1, { lt: 200 })],
      promptTokens: 200_000,
      expected: undefined,
    },
    {
      name: "lte 200 excludes 200,001",
      items: [item(1, { lte: 200 })],
      promptTokens: 200_001,
      expected: undefined,
    },
    {
      name: "every bound must hold (gte 128, lt 256): below",
      items: [item(1, { gte: 128, lt: 256 })],
      promptTokens: 127_999,
      expected: undefined,
    },
    {
      name: "every bound must hold (gte 128, lt 256): inside",
      items: [item(1, { gte: 128, lt: 256 })],
      promptTokens: 128_000,
      expected: 1,
    },
    {
      name: "every bound must hold (gte 128, lt 256): at the upper bound",
      items: [item(1, { gte: 128, lt: 256 })],
      promptTokens: 256_000,
      expected: undefined,
    },
    {
      name: "fractional bound compared exactly (1.001 × 1000 is 1000.9999999999999 in floats)",
      items: [item(1, { lte: 1.001 })],
      promptTokens: 1001,
      expected: 1,
    },
    {
      name: "fractional bound, one token above",
      items: [item(1, { lte: 1.001 })],
      promptTokens: 1002,
      expected: undefined,
    },
    {
      name: "an item without conditions always applies",
      items: [item(7)],
      promptTokens: 9_999_999,
      expected: 7,
    },
    {
      name: "completion_tokens condition: low tier",
      items: [item(10, undefined, { lte: 8 }), item(20, undefined, { gt: 8 })],
      promptTokens: 1_000_000,
      completionTokens: 8_000,
      expected: 10,
    },
    {
      name: "completion_tokens condition: high tier",
      items: [item(10, undefined, { lte: 8 }), item(20, undefined, { gt: 8 })],
      promptTokens: 0,
      completionTokens: 8_001,
      expected: 20,
    },
    {
      name: "prompt and completion conditions must both hold",
      items: [item(1, { lte: 32 }, { lte: 4 }), item(2)],
      promptTokens: 1_000,
      completionTokens: 5_000,
      expected: 2,
    },
    {
      name: "overlapping items: the first listed wins",
      items: [item(3, { gte: 0 }), item(4)],
      promptTokens: 10,
      expected: 3,
    },
    {
      name: "no item matches → undefined",
      items: [item(1, { lte: 200 })],
      promptTokens: 300_000,
      expected: undefined,
    },
    { name: "no items at all → undefined", items: [], promptTokens: 1, expected: undefined },
  ];

  for (const c of cases) {
    test(c.name, () => {
      const chosen = selectItem(c.items, {
        promptTokens: c.promptTokens,
        completionTokens: c.completionTokens ?? 0,
      });
      assert.equal(chosen?.value, c.expected);
    });
  }
});
