import { describe, expect, test } from "vitest";
import {
  formatFixed,
  MAX_UINT256,
  parseUint256,
  toBigInt,
  toDecimalString,
  toDecimalStringOrNull,
} from "./decimal.js";

describe("parseUint256", () => {
  test("default: canonical decimals parse exactly", () => {
    expect(parseUint256("0")).toBe(0n);
    expect(parseUint256("1000000000000000000000000000")).toBe(10n ** 27n);
    expect(parseUint256(MAX_UINT256.toString())).toBe(MAX_UINT256);
  });

  test("error: signs, exponents, fractions, spaces, leading zeros and overflow are null", () => {
    for (const bad of [
      "",
      "-1",
      "+1",
      "1e18",
      "1.0",
      " 1",
      "1 ",
      "01",
      "0x10",
      "١",
      (MAX_UINT256 + 1n).toString(),
    ]) {
      expect(parseUint256(bad), bad).toBeNull();
    }
  });
});

describe("toBigInt", () => {
  test("default: decimal-like objects, strings, bigints and safe integers", () => {
    expect(toBigInt({ toFixed: () => "123456789012345678901234567890" })).toBe(
      123456789012345678901234567890n,
    );
    expect(toBigInt("-5")).toBe(-5n);
    expect(toBigInt(7n)).toBe(7n);
    expect(toBigInt(9)).toBe(9n);
  });

  test("error: fractions and unsafe numbers throw", () => {
    expect(() => toBigInt("1.5")).toThrowError(RangeError);
    expect(() => toBigInt(2 ** 60)).toThrowError(RangeError);
  });
});

describe("formatFixed", () => {
  test("default: exact fixed-point formatting", () => {
    expect(formatFixed(312345678901n, 8)).toBe("3123.45678901");
    expect(formatFixed(5n, 8)).toBe("0.00000005");
    expect(formatFixed(-5n, 2)).toBe("-0.05");
    expect(formatFixed(7n, 0)).toBe("7");
    expect(formatFixed(3000n * 10n ** 18n + 1n, 18)).toBe("3000.000000000000000001");
  });

  test("error: negative decimals throw", () => {
    expect(() => formatFixed(1n, -1)).toThrowError(RangeError);
  });
});

describe("toDecimalString", () => {
  test("default: bigint to wire string, null kept", () => {
    expect(toDecimalString(10n ** 30n)).toBe("1000000000000000000000000000000");
    expect(toDecimalStringOrNull(null)).toBeNull();
    expect(toDecimalStringOrNull(0n)).toBe("0");
  });
});
