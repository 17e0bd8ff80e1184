import { describe, expect, test } from "vitest";
import { bucketStart, chartRange } from "./chart-buckets.js";

describe("bucketStart", () => {
  test("default", () => {
    expect(bucketStart(1_700_000_059, "1m")).toBe(1_700_000_040);
    expect(bucketStart(1_700_000_000, "1h")).toBe(1_699_999_200);
    expect(bucketStart(1_700_000_000, "1d")).toBe(1_699_920_000);
  });

  test("behavior: weeks start on Monday 00:00 UTC", () => {
    for (const ts of [1_700_000_000, 1_699_833_600, 1_699_833_599, 1_704_067_200, 345_600, 0]) {
      const start = bucketStart(ts, "1w");
      const date = new Date(start * 1000);
      expect(date.getUTCDay()).toBe(1);
      expect(date.getUTCHours()).toBe(0);
      expect(start).toBeLessThanOrEqual(ts);
      expect(ts - start).toBeLessThan(604_800);
    }
  });
});

describe("chartRange", () => {
  test("default", () => {
    // The `limit` most recent buckets up to the latest one.
    expect(chartRange(0, 36_000, "1h", 3)).toEqual({ from: 28_800, to: 36_000, step: 3600 });
  });

  test("behavior: never before the launch bucket; latest before launch gives the launch bucket", () => {
    expect(chartRange(7_300, 36_000, "1h", 200)).toEqual({ from: 7_200, to: 36_000, step: 3600 });
    expect(chartRange(7_300, 100, "1h", 200)).toEqual({ from: 7_200, to: 7_200, step: 3600 });
    expect(chartRange(7_300, 7_300, "1m", 1)).toEqual({ from: 7_260, to: 7_260, step: 60 });
  });
});
