import assert from "node:assert/strict";
import { describe, test } from "node:test";
import {
  addDecimals,
  canonicalDecimal,
  canonicalDiscount,
  DecimalSum,
  decimalFromNumber,
  formatDecimal,
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
    for (const [input, expected] of cases) assert.equal(canonicalDecimal(input), expected, input);
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

  test("adds and subtracts across different numbers of decimals, negative results included", () => {
    const d = (text: string) => parseDecimal(text, "x");
    assert.equal(formatDecimal(d("1.5").plus(d("0.000001875"))), "1.500001875");
    assert.equal(formatDecimal(d("1e3").plus(d("0.25"))), "1000.25");
    assert.equal(formatDecimal(d("0.1").minus(d("0.35"))), "-0.25");
    assert.equal(formatDecimal(d("2").minus(d("2.000"))), "0");
    assert.equal(formatDecimal(d("-0.5").times(d("-4"))), "2");
    assert.equal(formatDecimal(d("-0.5").times(d("3e-7"))), "-0.00000015");
    assert.equal(formatDecimal(d("1.20").neg()), "-1.2");
    assert.equal(formatDecimal(d("0").neg()), "0");
  });

  test("compares across different numbers of decimals and signs", () => {
    const d = (text: string) => parseDecimal(text, "x");
    assert.equal(d("1.50").cmp(d("1.5")), 0);
    assert.equal(d("0.1").cmp(d("0.09999")), 1);
    assert.equal(d("-0.1").cmp(d("-0.09999")), -1);
    assert.equal(d("-0").cmp(d("0.0")), 0);
    assert.equal(d("-1").cmp(d("0.001")), -1);
    assert.equal(d("12").cmp(d("1.2e1")), 0);
    assert.equal(d("1e999999999").cmp(d("1")), 1, "a huge exponent is compared without writing it out");
    assert.equal(d("-1e999999999").cmp(d("-1")), -1);
    assert.ok(d("1e-999999999").lt(d("1e-999999998")));
    assert.ok(d("2").gte(d("2.0")) && d("2").lte(d("2.0")) && !d("2").gt(d("2.0")));
  });

  test("exponent and other decimal spellings read exactly", () => {
    const cases: Array<[string, string]> = [
      ["1E3", "1000"],
      ["1.5e+3", "1500"],
      ["-2.5e-3", "-0.0025"],
      ["5.", "5"],
      ["5.e2", "500"],
      [".5", "0.5"],
      [".5e1", "5"],
      ["-.25", "-0.25"],
      ["0e99", "0"],
      ["00012.3400", "12.34"],
      ["  7.10\n", "7.1"],
      [
        "123456789012345678901234567890.000000000000000000001",
        "123456789012345678901234567890.000000000000000000001",
      ],
    ];
    for (const [input, expected] of cases) assert.equal(canonicalDecimal(input), expected, input);
  });

  test("a leading plus sign is not decimal text", () => {
    assert.throws(
      () => parseDecimal("+1", "amount"),
      (e: unknown) => e instanceof GatewayError && e.status === 400 && e.param === "amount",
    );
  });

  test("a huge exponent is a 400 for a discount, not a huge number", () => {
    assert.throws(
      () => parseDiscount("1e999999999", "discount"),
      (e: unknown) => e instanceof GatewayError && e.status === 400,
    );
  });

  test("numbers beyond the safe integers read as their shortest text", () => {
    assert.equal(formatDecimal(decimalFromNumber(1e21)), "1000000000000000000000");
    assert.equal(formatDecimal(decimalFromNumber(2 ** 53 + 2)), "9007199254740994");
    assert.equal(formatDecimal(decimalFromNumber(123456789012345680000)), "123456789012345680000");
    assert.equal(formatDecimal(decimalFromNumber(-0)), "0");
    assert.equal(formatDecimal(decimalFromNumber(-3.75)), "-3.75");
    assert.equal(formatDecimal(decimalFromNumber(5e-324)), `0.${"0".repeat(323)}5`);
  });

  test("a decimal prints and serializes as its plain text", () => {
    const value = parseDecimal("1.250e-2", "x");
    assert.equal(value.toString(), "0.0125");
    assert.equal(String(value), "0.0125");
    assert.equal(JSON.stringify({ value }), '{"value":"0.0125"}');
  });

  test("decimal text adds, negates and sums exactly in canonical form", () => {
    assert.equal(addDecimals("0.1", "0.2"), "0.3");
    assert.equal(addDecimals("1e-7", "-1"), "-0.9999999");
    assert.equal(canonicalDiscount("0.50"), "0.5");
    assert.throws(() => canonicalDiscount("1.5"), /discount/);
    const total = new DecimalSum();
    for (const text of ["12.000345", "0.1", "-3", "1e-9", "0.2"]) total.add(text);
    assert.equal(total.total(), "9.300345001");
    assert.equal(new DecimalSum().total(), "0");
  });
});
