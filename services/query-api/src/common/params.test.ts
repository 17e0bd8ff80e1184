import { describe, expect, test } from "vitest";
import { limitParam, normalizeSearch } from "./params.js";

describe("normalizeSearch", () => {
  test("default", () => {
    expect(normalizeSearch("  Alpha Beta  ")).toBe("alpha beta");
    expect(normalizeSearch(undefined)).toBe("");
    expect(normalizeSearch("   ")).toBe("");
  });

  test("behavior: NFC before checking and matching; limits in UTF-8 bytes", () => {
    expect(normalizeSearch("E\u0301lan")).toBe("élan");
    expect(normalizeSearch("é".repeat(32))).toBe("é".repeat(32));
    expect(normalizeSearch("a".repeat(64))).toBe("a".repeat(64));
    expect(normalizeSearch("日本.トークン_1-2")).toBe("日本.トークン_1-2");
  });

  test("error: longer than 64 bytes or forbidden characters", () => {
    for (const value of [
      "a".repeat(65),
      `${"é".repeat(32)}a`,
      "a%",
      "a*b",
      "a'b",
      "a\\b",
      "😀",
      "a\nb",
      "\u0301",
    ]) {
      expect(() => normalizeSearch(value), value).toThrow(
        expect.objectContaining({ code: "invalid_request" }),
      );
    }
  });
});

describe("limitParam", () => {
  const limit = limitParam(1, 100, 20);

  test("default", () => {
    expect(limit.parse(undefined)).toBe(20);
    expect(limit.parse("1")).toBe(1);
    expect(limit.parse("100")).toBe(100);
  });

  test("error: anything but digits in range", () => {
    for (const value of ["0", "101", "1.5", "abc", "", "-1", "1e1", "0x10", " 5", "5 ", "+5"]) {
      expect(limit.safeParse(value).success, value).toBe(false);
    }
  });
});
