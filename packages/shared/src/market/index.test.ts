import { describe, expect, test } from "vitest";
import {
  bucketStart,
  comparePositions,
  formatIndexedNotification,
  INTERVAL_SECONDS,
  parseIndexedNotification,
  pricingSource,
  progressBps,
} from "./index.js";

describe("bucketStart", () => {
  test("default: buckets aligned to UTC", () => {
    expect(bucketStart(3_725, INTERVAL_SECONDS["1h"])).toBe(3_600);
    expect(bucketStart(86_399, INTERVAL_SECONDS["1d"])).toBe(0);
  });

  test("behavior: weeks start Monday 00:00 UTC", () => {
    // 2026-11-25 (a Wednesday) 12:00 UTC → Monday 2026-11-23 00:00 UTC.
    expect(bucketStart(1_795_608_000, INTERVAL_SECONDS["1w"])).toBe(1_795_392_000);
    expect(bucketStart(0, INTERVAL_SECONDS["1w"])).toBe(345_600 - 604_800);
  });
});

describe("comparePositions", () => {
  test("default: block, transaction index, log index, hash", () => {
    const p = { blockNumber: 1, transactionIndex: 0, logIndex: 5, transactionHash: "0xb" };
    expect(comparePositions(p, { ...p, blockNumber: 2 })).toBeLessThan(0);
    expect(comparePositions(p, { ...p, logIndex: 4 })).toBeGreaterThan(0);
    expect(comparePositions(p, { ...p, transactionHash: "0xa" })).toBeGreaterThan(0);
    expect(comparePositions(p, p)).toBe(0);
  });
});

describe("indexed notification", () => {
  test("default: round trip", () => {
    const n = { from_block: 1, to_block: 2, reorg: { from_block: 2, to_block: 3 } };
    expect(parseIndexedNotification(formatIndexedNotification(n))).toEqual(n);
  });

  test("error: other payloads are null", () => {
    for (const p of ["", "{", "null", '{"from_block":1}', '{"from_block":1,"to_block":2,"reorg":1}']) {
      expect(parseIndexedNotification(p)).toBeNull();
    }
  });
});

describe("derived values", () => {
  test("default: progress and pricing source", () => {
    expect(progressBps(400_000_000n * 10n ** 18n, 800_000_000n * 10n ** 18n)).toBe(5_000);
    expect(progressBps(900n, 800n)).toBe(10_000);
    expect(pricingSource("graduated", "uniswap_v3")).toBe("indexed_v3_market");
    expect(pricingSource("graduated", "curve")).toBe("indexed_v3_curve");
  });
});
