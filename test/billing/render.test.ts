import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { rate } from "../../src/billing/rate.ts";
import { creditsToJson, ratingToJson } from "../../src/billing/render.ts";
import { emptyUsage } from "../../src/ir/usage.ts";
import type { Rating } from "../../src/ledger/types.ts";

describe("render", () => {
  test("amounts are JSON numbers written digit for digit", () => {
    // 15 cached tokens × 0.125 / 1M = 0.000001875 (JS would print 0.0000018750000000000003 or 1.875e-6)
    const rating = rate(
      { ...emptyUsage(), promptTokens: 15, cacheReadTokens: 15 },
      { input_cache_read: [{ value: 0.125, unit: "perMTokens", currency: "USD" }] },
      { priceVersion: "v1" },
    );
    const text = JSON.stringify({
      usage: creditsToJson(rating.usage),
      ratingResponses: ratingToJson(rating),
    });
    assert.equal(
      text,
      '{"usage":0.000001875,"ratingResponses":{"billAmount":0.000001875,"discountAmount":0,' +
        '"originAmount":0.000001875,"priceVersion":"v1","ratingDetails":[{"billAmount":0.000001875,' +
        '"discountAmount":0,"feeItemCode":"input_cache_read","originAmount":0.000001875,"rate":0.125}]}}',
    );
    assert.equal(JSON.parse(text).usage, 0.000001875);
  });

  test("long decimals are not rounded to a double", () => {
    const rating: Rating = {
      usage: "12345678901234567.000000000000000001",
      billAmount: "0.30000000000000000001",
      discountAmount: "0",
      originAmount: "0.30000000000000000001",
      priceVersion: "v",
      ratingDetails: [],
    };
    const text = JSON.stringify(ratingToJson(rating));
    assert.match(text, /"billAmount":0\.30000000000000000001,/);
    assert.equal(JSON.stringify(creditsToJson(rating.usage)), "12345678901234567.000000000000000001");
  });

  test("decimal text in other forms is written plainly", () => {
    assert.equal(JSON.stringify(creditsToJson("1e-7")), "0.0000001");
    assert.equal(JSON.stringify(creditsToJson("2.500")), "2.5");
  });

  test("text that is not a decimal is refused", () => {
    assert.throws(() => creditsToJson("NaN"));
  });
});
