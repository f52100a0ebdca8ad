import assert from "node:assert/strict";
import { describe, test } from "node:test";
import {
  decimalFromNumber,
  formatDecimal,
  normalizeDecimal,
  parseDecimal,
  parseDiscount,
  sum,
} from "../../src/billing/money.ts";
import { GatewayError } from "../../src/ir/errors.ts";

describe("money", () => {
  test("a catalog number becomes the decimal it was written as", () => {
    assert.equal(formatDecimal(decimalFromNumber(0.15)), "0.15");
    assert.equal(formatDecimal(decimalFromNumber(0.1).plus(decimalFromNumber(0.2))), "0.3");
    assert.equal(formatDecimal(decimalFromNumber(1.1).times(decimalFromNumber(3))), "3.3");
  });

  test("rendering never uses exponent notation nor trailing zeros", () => {
    const cases: Array<[string, string]> = [
      ["1e-7", "0.0000001"],
      ["1.875e-6", "0.000001875"],
      ["1e21", "1000000000000000000000"],
      ["2.500", "2.5"],
      ["10.0", "10"],
      ["-0", "0"],
      ["0.000", "0"],
    ];
    for (const [input, expected] of cases) assert.equal(normalizeDecimal(input), expected, input);
    assert.equal(formatDecimal(decimalFromNumber(1e-7)), "0.0000001");
  });

  test("sums exactly", () => {
    const parts = ["0.1", "0.2", "0.0000003"].map((t) => parseDecimal(t, "x"));
    assert.equal(formatDecimal(sum(parts)), "0.3000003");
    assert.equal(formatDecimal(sum([])), "0");
  });

  test("non-finite numbers are refused", () => {
    assert.throws(() => decimalFromNumber(Number.NaN), RangeError);
    assert.throws(() => decimalFromNumber(Number.POSITIVE_INFINITY), RangeError);
  });

  test("bad decimal text is a 400 naming the field", () => {
    for (const bad of ["", "abc", "1,5", "0x10", "NaN", "1.2.3"]) {
      assert.throws(
        () => parseDecimal(bad, "keys[0].discount"),
        (e: unknown) => e instanceof GatewayError && e.status === 400 && e.param === "keys[0].discount",
        bad,
      );
    }
  });

  test("a discount is a fraction between 0 and 1", () => {
    assert.equal(formatDecimal(parseDiscount("0.1", "discount")), "0.1");
    assert.equal(formatDecimal(parseDiscount("0", "discount")), "0");
    assert.equal(formatDecimal(parseDiscount("1", "discount")), "1");
    for (const bad of ["-0.1", "1.01", "10"]) {
      assert.throws(
        () => parseDiscount(bad, "discount"),
        (e: unknown) => e instanceof GatewayError && e.param === "discount",
        bad,
      );
    }
  });
});
