import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { rate } from "../../src/billing/rate.ts";
import type { PricingCondition, PricingItem, Pricings } from "../../src/catalog/types.ts";
import { GatewayError } from "../../src/ir/errors.ts";
import { emptyUsage, type Usage } from "../../src/ir/usage.ts";

type Bounds = Omit<PricingCondition, "unit">;

function perM(value: number, prompt?: Bounds): PricingItem {
  const item: PricingItem = { value, unit: "perMTokens", currency: "USD" };
  if (prompt) item.conditions = { prompt_tokens: { unit: "kTokens", ...prompt } };
  return item;
}
const perCount = (value: number): PricingItem => ({ value, unit: "perCount", currency: "USD" });
const perSecond = (value: number): PricingItem => ({ value, unit: "perSecond", currency: "USD" });
const usageOf = (partial: Partial<Usage>): Usage => ({ ...emptyUsage(), ...partial });

/** [feeItemCode, rate, originAmount], no discount: discountAmount "0" and billAmount = originAmount. */
type Expected = Array<[string, string, string]>;

function assertRating(usage: Usage, pricings: Pricings, expected: Expected, total: string): void {
  const rating = rate(usage, pricings, { priceVersion: "test" });
  assert.deepEqual(
    rating.ratingDetails,
    expected.map(([feeItemCode, rateText, origin]) => ({
      feeItemCode,
      rate: rateText,
      originAmount: origin,
      discountAmount: "0",
      billAmount: origin,
    })),
  );
  assert.equal(rating.originAmount, total);
  assert.equal(rating.billAmount, total);
  assert.equal(rating.discountAmount, "0");
  assert.equal(rating.usage, total);
}

const everyCategory: Pricings = {
  prompt: [perM(2)],
  completion: [perM(8)],
  input_cache_read: [perM(0.5)],
  input_cache_write_5_min: [perM(3.75)],
  input_cache_write_1_h: [perM(6)],
  internal_reasoning: [perM(3.5)],
  web_search: [perCount(0.01)],
  image: [perCount(0.04)],
  audio: [perSecond(0.002)],
  video: [perSecond(0.5)],
  audio_and_video: [perSecond(0.75)],
};
const promptAndCompletion: Pricings = { prompt: [perM(2)], completion: [perM(8)] };
const withGenericCacheWrite: Pricings = { ...promptAndCompletion, input_cache_write: [perM(3.75)] };

describe("rate: one category at a time", () => {
  const cases: Array<{
    name: string;
    pricings: Pricings;
    usage: Partial<Usage>;
    expected: Expected;
    total: string;
  }> = [
    {
      name: "prompt: 1000 × 2 / 1M",
      pricings: everyCategory,
      usage: { promptTokens: 1000 },
      expected: [["prompt", "2", "0.002"]],
      total: "0.002",
    },
    {
      name: "completion: 500 × 8 / 1M",
      pricings: everyCategory,
      usage: { completionTokens: 500 },
      expected: [["completion", "8", "0.004"]],
      total: "0.004",
    },
    {
      name: "input_cache_read: all 1000 prompt tokens read from cache, none billed as prompt",
      pricings: everyCategory,
      usage: { promptTokens: 1000, cacheReadTokens: 1000 },
      expected: [["input_cache_read", "0.5", "0.0005"]],
      total: "0.0005",
    },
    {
      name: "input_cache_write_5_min: 2000 × 3.75 / 1M",
      pricings: everyCategory,
      usage: { promptTokens: 2000, cacheWrite5mTokens: 2000 },
      expected: [["input_cache_write_5_min", "3.75", "0.0075"]],
      total: "0.0075",
    },
    {
      name: "input_cache_write_1_h: 3000 × 6 / 1M",
      pricings: everyCategory,
      usage: { promptTokens: 3000, cacheWrite1hTokens: 3000 },
      expected: [["input_cache_write_1_h", "6", "0.018"]],
      total: "0.018",
    },
    {
      name: "internal_reasoning priced: 600 completion × 8 + 400 reasoning × 3.5",
      pricings: everyCategory,
      usage: { completionTokens: 1000, reasoningTokens: 400 },
      expected: [
        ["completion", "8", "0.0048"],
        ["internal_reasoning", "3.5", "0.0014"],
      ],
      total: "0.0062",
    },
    {
      name: "web_search: 3 requests × 0.01",
      pricings: everyCategory,
      usage: { webSearchRequests: 3 },
      expected: [["web_search", "0.01", "0.03"]],
      total: "0.03",
    },
    {
      name: "image: 2 images × 0.04",
      pricings: everyCategory,
      usage: { imageOutputs: 2 },
      expected: [["image", "0.04", "0.08"]],
      total: "0.08",
    },
    {
      name: "audio: 12.5 s × 0.002",
      pricings: everyCategory,
      usage: { audioSeconds: 12.5 },
      expected: [["audio", "0.002", "0.025"]],
      total: "0.025",
    },
    {
      name: "video (silent): 8 s × 0.5",
      pricings: everyCategory,
      usage: { videoSeconds: 8 },
      expected: [["video", "0.5", "4"]],
      total: "4",
    },
    {
      name: "audio_and_video: 8 s of video with sound × 0.75, not also video and audio",
      pricings: everyCategory,
      usage: { videoSeconds: 8, audioSeconds: 8 },
      expected: [["audio_and_video", "0.75", "6"]],
      total: "6",
    },
    {
      name: "audio_and_video: the audio beyond the video is audio",
      pricings: everyCategory,
      usage: { videoSeconds: 8, audioSeconds: 10 },
      expected: [
        ["audio", "0.002", "0.004"],
        ["audio_and_video", "0.75", "6"],
      ],
      total: "6.004",
    },
    {
      name: "no audio_and_video price: video as video, audio as audio",
      pricings: { audio: [perSecond(0.002)], video: [perSecond(0.5)] },
      usage: { videoSeconds: 8, audioSeconds: 8 },
      expected: [
        ["audio", "0.002", "0.016"],
        ["video", "0.5", "4"],
      ],
      total: "4.016",
    },
  ];
  for (const c of cases) test(c.name, () => assertRating(usageOf(c.usage), c.pricings, c.expected, c.total));
});

describe("rate: fallbacks and what is not charged", () => {
  const cases: Array<{
    name: string;
    pricings: Pricings;
    usage: Partial<Usage>;
    expected: Expected;
    total: string;
  }> = [
    {
      name: "no input_cache_read price: cache reads are billed as prompt (1500 × 2)",
      pricings: promptAndCompletion,
      usage: { promptTokens: 1500, cacheReadTokens: 1000 },
      expected: [["prompt", "2", "0.003"]],
      total: "0.003",
    },
    {
      name: "input_cache_read priced but no tier applies: billed as prompt (150,000 × 2)",
      pricings: { prompt: [perM(2)], input_cache_read: [perM(0.5, { lte: 100 })] },
      usage: { promptTokens: 150_000, cacheReadTokens: 100_000 },
      expected: [["prompt", "2", "0.3"]],
      total: "0.3",
    },
    {
      name: "no 5-minute price: 5-minute writes billed as input_cache_write",
      pricings: withGenericCacheWrite,
      usage: { promptTokens: 2000, cacheWrite5mTokens: 2000 },
      expected: [["input_cache_write", "3.75", "0.0075"]],
      total: "0.0075",
    },
    {
      name: "no 1-hour price: 1-hour writes billed as input_cache_write",
      pricings: withGenericCacheWrite,
      usage: { promptTokens: 2000, cacheWrite1hTokens: 2000 },
      expected: [["input_cache_write", "3.75", "0.0075"]],
      total: "0.0075",
    },
    {
      name: "both write kinds on input_cache_write add up in one item (2000 × 3.75)",
      pricings: withGenericCacheWrite,
      usage: { promptTokens: 2000, cacheWrite5mTokens: 1000, cacheWrite1hTokens: 1000 },
      expected: [["input_cache_write", "3.75", "0.0075"]],
      total: "0.0075",
    },
    {
      name: "no cache write price at all: 5-minute writes billed once, as prompt",
      pricings: promptAndCompletion,
      usage: { promptTokens: 1000, cacheWrite5mTokens: 400 },
      expected: [["prompt", "2", "0.002"]],
      total: "0.002",
    },
    {
      name: "no cache write price at all: 1-hour writes billed once, as prompt",
      pricings: promptAndCompletion,
      usage: { promptTokens: 1000, cacheWrite1hTokens: 400 },
      expected: [["prompt", "2", "0.002"]],
      total: "0.002",
    },
    {
      name: "no internal_reasoning price: reasoning is completion (1000 × 8, not 1400)",
      pricings: promptAndCompletion,
      usage: { completionTokens: 1000, reasoningTokens: 400 },
      expected: [["completion", "8", "0.008"]],
      total: "0.008",
    },
    {
      name: "no prompt item applies (only a ≤200k tier, 300k prompt): prompt not charged",
      pricings: { prompt: [perM(1.25, { lte: 200 })], completion: [perM(10)] },
      usage: { promptTokens: 300_000, completionTokens: 10 },
      expected: [["completion", "10", "0.0001"]],
      total: "0.0001",
    },
    {
      name: "a category the model has no price for is not charged",
      pricings: promptAndCompletion,
      usage: { webSearchRequests: 5, imageOutputs: 1, audioSeconds: 3 },
      expected: [],
      total: "0",
    },
    {
      name: "a free item (value 0) with usage is listed with zero amounts",
      pricings: { prompt: [perM(0)], completion: [perM(8)] },
      usage: { promptTokens: 1000, completionTokens: 1000 },
      expected: [
        ["prompt", "0", "0"],
        ["completion", "8", "0.008"],
      ],
      total: "0.008",
    },
    {
      name: "zero quantities are omitted",
      pricings: everyCategory,
      usage: {},
      expected: [],
      total: "0",
    },
  ];
  for (const c of cases) test(c.name, () => assertRating(usageOf(c.usage), c.pricings, c.expected, c.total));
});

describe("rate: never double-charge", () => {
  const onePerMillion: Pricings = {
    prompt: [perM(1)],
    completion: [perM(1)],
    input_cache_read: [perM(1)],
    input_cache_write_5_min: [perM(1)],
    input_cache_write_1_h: [perM(1)],
    internal_reasoning: [perM(1)],
  };
  const usages: Array<[Partial<Usage>, string]> = [
    // (promptTokens + completionTokens) / 1M: every token billed exactly once
    [
      { promptTokens: 29_234, cacheReadTokens: 20_000, cacheWrite5mTokens: 3000, cacheWrite1hTokens: 5000 },
      "0.029234",
    ],
    [{ promptTokens: 10_000, cacheReadTokens: 8192, completionTokens: 1000, reasoningTokens: 900 }, "0.011"],
    [{ promptTokens: 7, cacheWrite5mTokens: 7, completionTokens: 3, reasoningTokens: 3 }, "0.00001"],
  ];
  for (const [partial, total] of usages) {
    test(`every token once: ${JSON.stringify(partial)}`, () => {
      assert.equal(rate(usageOf(partial), onePerMillion, { priceVersion: "v" }).originAmount, total);
    });
  }
});

describe("rate: the prompt-size tier applies to every category (Gemini 2.5 Pro)", () => {
  const tiers = (low: number, high: number) => [perM(low, { lte: 200 }), perM(high, { gt: 200, lt: null })];
  const gemini25Pro: Pricings = {
    prompt: tiers(1.25, 2.5),
    completion: tiers(10, 15),
    input_cache_read: tiers(0.125, 0.25),
    web_search: [perCount(0.035)],
  };

  test("exactly 200,000 prompt tokens (cached included): ≤200k prices everywhere", () => {
    assertRating(
      usageOf({ promptTokens: 200_000, cacheReadTokens: 50_000, completionTokens: 1000 }),
      gemini25Pro,
      [
        ["prompt", "1.25", "0.1875"], // 150,000 × 1.25 / 1M
        ["input_cache_read", "0.125", "0.00625"], // 50,000 × 0.125 / 1M
        ["completion", "10", "0.01"], // 1,000 × 10 / 1M
      ],
      "0.20375",
    );
  });

  test("200,001 prompt tokens: >200k prices for prompt, cache reads and completion alike", () => {
    assertRating(
      usageOf({ promptTokens: 200_001, cacheReadTokens: 50_000, completionTokens: 1000 }),
      gemini25Pro,
      [
        ["prompt", "2.5", "0.3750025"], // 150,001 × 2.5 / 1M
        ["input_cache_read", "0.25", "0.0125"], // 50,000 × 0.25 / 1M
        ["completion", "15", "0.015"], // 1,000 × 15 / 1M
      ],
      "0.4025025",
    );
  });

  test("a realistic long call with thinking and grounding", () => {
    assertRating(
      usageOf({
        promptTokens: 234_567,
        cacheReadTokens: 123_456,
        completionTokens: 7891,
        reasoningTokens: 2345,
        webSearchRequests: 2,
      }),
      gemini25Pro,
      [
        ["prompt", "2.5", "0.2777775"], // 111,111 × 2.5 / 1M
        ["input_cache_read", "0.25", "0.030864"], // 123,456 × 0.25 / 1M
        ["completion", "15", "0.118365"], // 7,891 (thoughts included) × 15 / 1M
        ["web_search", "0.035", "0.07"], // 2 × 0.035
      ],
      "0.4970065",
    );
  });
});

describe("rate: realistic calls", () => {
  const claudeSonnet4: Pricings = {
    prompt: [perM(3)],
    completion: [perM(15)],
    input_cache_read: [perM(0.3)],
    input_cache_write_5_min: [perM(3.75)],
    input_cache_write_1_h: [perM(6)],
  };
  // input_tokens 1,234 + cache_read 20,000 + 5m writes 3,000 + 1h writes 5,000
  const claudeUsage = usageOf({
    promptTokens: 29_234,
    cacheReadTokens: 20_000,
    cacheWrite5mTokens: 3000,
    cacheWrite1hTokens: 5000,
    completionTokens: 567,
    reasoningTokens: 120,
  });

  test("Claude Sonnet 4 with 5m and 1h cache writes and reads", () => {
    assertRating(
      claudeUsage,
      claudeSonnet4,
      [
        ["prompt", "3", "0.003702"], // 1,234 × 3 / 1M
        ["input_cache_read", "0.3", "0.006"], // 20,000 × 0.3 / 1M
        ["input_cache_write_5_min", "3.75", "0.01125"], // 3,000 × 3.75 / 1M
        ["input_cache_write_1_h", "6", "0.03"], // 5,000 × 6 / 1M
        ["completion", "15", "0.008505"], // 567 × 15 / 1M
      ],
      "0.059457",
    );
  });

  test("Claude Sonnet 4 with a 10 % discount", () => {
    const rating = rate(claudeUsage, claudeSonnet4, { priceVersion: "2025-06-01", discount: "0.1" });
    assert.deepEqual(rating, {
      usage: "0.0535113",
      billAmount: "0.0535113",
      discountAmount: "0.0059457",
      originAmount: "0.059457",
      priceVersion: "2025-06-01",
      ratingDetails: [
        {
          feeItemCode: "prompt",
          rate: "3",
          originAmount: "0.003702",
          discountAmount: "0.0003702",
          billAmount: "0.0033318",
        },
        {
          feeItemCode: "input_cache_read",
          rate: "0.3",
          originAmount: "0.006",
          discountAmount: "0.0006",
          billAmount: "0.0054",
        },
        {
          feeItemCode: "input_cache_write_5_min",
          rate: "3.75",
          originAmount: "0.01125",
          discountAmount: "0.001125",
          billAmount: "0.010125",
        },
        {
          feeItemCode: "input_cache_write_1_h",
          rate: "6",
          originAmount: "0.03",
          discountAmount: "0.003",
          billAmount: "0.027",
        },
        {
          feeItemCode: "completion",
          rate: "15",
          originAmount: "0.008505",
          discountAmount: "0.0008505",
          billAmount: "0.0076545",
        },
      ],
    });
  });

  test("GPT-4.1 with cached tokens billed at the cached rate", () => {
    assertRating(
      usageOf({ promptTokens: 10_000, cacheReadTokens: 8192, completionTokens: 1000 }),
      { prompt: [perM(2)], input_cache_read: [perM(0.5)], completion: [perM(8)] },
      [
        ["prompt", "2", "0.003616"], // 1,808 × 2 / 1M
        ["input_cache_read", "0.5", "0.004096"], // 8,192 × 0.5 / 1M
        ["completion", "8", "0.008"], // 1,000 × 8 / 1M
      ],
      "0.015712",
    );
  });

  test("o4-mini: cached tokens, reasoning billed inside completion", () => {
    assertRating(
      usageOf({ promptTokens: 5000, cacheReadTokens: 1024, completionTokens: 3000, reasoningTokens: 2500 }),
      { prompt: [perM(1.1)], input_cache_read: [perM(0.275)], completion: [perM(4.4)] },
      [
        ["prompt", "1.1", "0.0043736"], // 3,976 × 1.1 / 1M
        ["input_cache_read", "0.275", "0.0002816"], // 1,024 × 0.275 / 1M
        ["completion", "4.4", "0.0132"], // 3,000 × 4.4 / 1M
      ],
      "0.0178552",
    );
  });

  test("Gemini 2.5 Flash preview: thinking priced as internal_reasoning", () => {
    assertRating(
      usageOf({ promptTokens: 1000, completionTokens: 900, reasoningTokens: 700 }),
      { prompt: [perM(0.15)], completion: [perM(0.6)], internal_reasoning: [perM(3.5)] },
      [
        ["prompt", "0.15", "0.00015"], // 1,000 × 0.15 / 1M
        ["completion", "0.6", "0.00012"], // 200 × 0.6 / 1M
        ["internal_reasoning", "3.5", "0.00245"], // 700 × 3.5 / 1M
      ],
      "0.00272",
    );
  });
});

describe("rate: exactness, discounts, bad input", () => {
  test("0.1 + 0.2 is 0.3, and tiny amounts keep every digit", () => {
    const rating = rate(
      usageOf({ webSearchRequests: 1, imageOutputs: 1, promptTokens: 3 }),
      { web_search: [perCount(0.1)], image: [perCount(0.2)], prompt: [perM(0.1)] },
      { priceVersion: "v" },
    );
    assert.equal(rating.ratingDetails[0].originAmount, "0.0000003");
    assert.equal(rating.originAmount, "0.3000003");
  });

  test("a 100 % discount bills nothing", () => {
    const rating = rate(usageOf({ promptTokens: 1000 }), promptAndCompletion, {
      priceVersion: "v",
      discount: "1",
    });
    assert.equal(rating.originAmount, "0.002");
    assert.equal(rating.discountAmount, "0.002");
    assert.equal(rating.billAmount, "0");
    assert.equal(rating.usage, "0");
  });

  test("priceVersion is copied", () => {
    assert.equal(rate(emptyUsage(), {}, { priceVersion: "catalog-2025-08" }).priceVersion, "catalog-2025-08");
  });

  test("a bad discount is a 400 naming discount", () => {
    for (const discount of ["ten percent", "1.5", "-0.1"]) {
      assert.throws(
        () => rate(emptyUsage(), promptAndCompletion, { priceVersion: "v", discount }),
        (e: unknown) => e instanceof GatewayError && e.status === 400 && e.param === "discount",
        discount,
      );
    }
  });

  test("an unknown unit in the catalog is refused, not guessed", () => {
    const broken = { prompt: [{ value: 1, unit: "perKTokens", currency: "USD" }] } as unknown as Pricings;
    assert.throws(
      () => rate(usageOf({ promptTokens: 1 }), broken, { priceVersion: "v" }),
      /pricings\.prompt/,
    );
  });

  test("an impossible usage count is refused", () => {
    assert.throws(
      () => rate(usageOf({ webSearchRequests: -1 }), everyCategory, { priceVersion: "v" }),
      RangeError,
    );
    assert.throws(
      () => rate(usageOf({ promptTokens: Number.NaN }), everyCategory, { priceVersion: "v" }),
      RangeError,
    );
  });
});
