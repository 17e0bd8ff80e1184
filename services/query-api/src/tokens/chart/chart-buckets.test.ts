import { describe, expect, test } from "vitest";
import { type ChartWindowRequest, chartWindow } from "./chart-buckets.js";

const HOUR = 3_600;
const window = (launch: number, latest: number, request: Partial<ChartWindowRequest>) =>
  chartWindow(launch, latest, { interval: "1h", limit: 200, ...request });

describe("chartWindow", () => {
  test("default", () => {
    // The `limit` most recent buckets up to the latest one.
    expect(window(0, 36_000, { limit: 3 })).toEqual({ from: 28_800, to: 36_000, step: HOUR });
  });

  test("behavior: never before the launch bucket; latest before launch gives the launch bucket", () => {
    expect(window(7_300, 36_000, {})).toEqual({ from: 7_200, to: 36_000, step: HOUR });
    expect(window(7_300, 100, {})).toEqual({ from: 7_200, to: 7_200, step: HOUR });
    expect(window(7_300, 7_300, { interval: "1m", limit: 1 })).toEqual({ from: 7_260, to: 7_260, step: 60 });
  });

  test("behavior: from and to include the buckets holding them, clipped to the token's life", () => {
    expect(window(0, 36_000, { from: 3_601, to: 10_799 })).toEqual({ from: 3_600, to: 7_200, step: HOUR });
    expect(window(7_300, 36_000, { from: 0, to: 10_800 })).toEqual({ from: 7_200, to: 10_800, step: HOUR });
    expect(window(0, 36_000, { from: 32_000, to: 99_999 })).toEqual({ from: 28_800, to: 36_000, step: HOUR });
    // from alone: up to the latest bucket; to alone: `limit` buckets ending there.
    expect(window(0, 36_000, { from: 30_000 })).toEqual({ from: 28_800, to: 36_000, step: HOUR });
    expect(window(0, 36_000, { to: 10_800, limit: 2 })).toEqual({ from: 7_200, to: 10_800, step: HOUR });
    expect(window(0, 36_000, { from: 3_600, to: 3_600 })).toEqual({ from: 3_600, to: 3_600, step: HOUR });
  });

  test("behavior: countback buckets ending at to, replacing limit and from", () => {
    expect(window(0, 36_000, { to: 18_000, countback: 2, limit: 50, from: 0 })).toEqual({
      from: 14_400,
      to: 18_000,
      step: HOUR,
    });
    expect(window(7_300, 36_000, { to: 18_000, countback: 1000 })).toEqual({
      from: 7_200,
      to: 18_000,
      step: HOUR,
    });
    expect(window(0, 36_000, { countback: 1 })).toEqual({ from: 36_000, to: 36_000, step: HOUR });
    // A wide from with countback is not a range error: countback bounds the answer.
    expect(window(0, 36_000, { from: 0, to: 9_999_999_999, countback: 5 })?.to).toBe(36_000);
  });

  test("behavior: weekly buckets step by weeks from Monday", () => {
    const monday = 1_699_833_600; // 2023-11-13 00:00 UTC
    expect(window(monday, monday + 20 * 86_400, { interval: "1w", countback: 2 })).toEqual({
      from: monday + 7 * 86_400,
      to: monday + 14 * 86_400,
      step: 604_800,
    });
  });

  test("behavior: a range outside the token's life holds no bucket", () => {
    expect(window(36_000, 72_000, { from: 0, to: 3_600 })).toBeNull();
    expect(window(0, 36_000, { from: 40_000, to: 50_000 })).toBeNull();
    expect(window(36_000, 72_000, { to: 10_000, countback: 3 })).toBeNull();
  });

  test("error: from after to", () => {
    expect(() => window(0, 36_000, { from: 7_201, to: 7_200 })).toThrow(
      expect.objectContaining({
        code: "invalid_request",
        details: [expect.objectContaining({ field: "from" })],
      }),
    );
  });

  test("error: a from–to span of more than 1000 buckets without countback", () => {
    expect(window(0, 5_000_000, { from: 0, to: 999 * HOUR })?.to).toBe(999 * HOUR);
    expect(() => window(0, 5_000_000, { from: 0, to: 1000 * HOUR })).toThrow(
      expect.objectContaining({ code: "invalid_request" }),
    );
    // Without to, the span runs to the latest indexed block.
    expect(() => window(0, 1000 * HOUR, { from: 0 })).toThrow(
      expect.objectContaining({ code: "invalid_request" }),
    );
  });
});
