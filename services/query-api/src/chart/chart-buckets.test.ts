import { describe, expect, test } from "vitest";
import { chartRange } from "./chart-buckets.js";

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
