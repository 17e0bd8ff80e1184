import { describe, expect, test } from "vitest";
import { parseInterval } from "./chart-schemas.js";

describe("parseInterval", () => {
  test("default", () => {
    expect(parseInterval(undefined)).toBe("1h");
    expect(parseInterval("1w")).toBe("1w");
  });

  test("error: unsupported interval", () => {
    for (const value of ["", "1H", "2m", "week"]) {
      expect(() => parseInterval(value)).toThrow(expect.objectContaining({ code: "invalid_interval" }));
    }
  });
});
