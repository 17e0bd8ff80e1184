import { describe, expect, test } from "vitest";
import {
  bucketStart,
  comparePositions,
  formatIndexedNotification,
  fullyDilutedValue,
  INTERVAL_SECONDS,
  isExcludedHolder,
  lifecycleOf,
  parseIndexedNotification,
  pricingSource,
  progressBps,
  windowRollupInterval,
  windowStart,
  ZERO_ADDRESS,
} from "./index.js";

describe("bucketStart", () => {
  test("default: buckets aligned to UTC", () => {
    expect(bucketStart(3_725, "1h")).toBe(3_600);
    expect(bucketStart(86_399, "1d")).toBe(0);
    expect(bucketStart(1_700_000_059, "1m")).toBe(1_700_000_040);
  });

  test("behavior: weeks start Monday 00:00 UTC", () => {
    // 2026-11-25 (a Wednesday) 12:00 UTC → Monday 2026-11-23 00:00 UTC.
    expect(bucketStart(1_795_608_000, "1w")).toBe(1_795_392_000);
    expect(bucketStart(0, "1w")).toBe(345_600 - 604_800);
    for (const ts of [1_700_000_000, 1_699_833_600, 1_699_833_599, 1_704_067_200, 345_600, 0]) {
      const start = bucketStart(ts, "1w");
      expect(new Date(start * 1000).getUTCDay()).toBe(1);
      expect(ts - start).toBeGreaterThanOrEqual(0);
      expect(ts - start).toBeLessThan(INTERVAL_SECONDS["1w"]);
    }
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
    expect(pricingSource("active", null)).toBe("indexed_v3_curve");
    expect(lifecycleOf(true)).toBe("graduated");
    expect(lifecycleOf(false)).toBe("active");
    expect(fullyDilutedValue(2n * 10n ** 9n, 10n ** 27n)).toBe(2n * 10n ** 18n);
    expect(fullyDilutedValue(null, 10n ** 27n)).toBeNull();
  });
});

describe("windowStart", () => {
  test("default: whole rollup buckets ending with the bucket of now", () => {
    // 24 h over 15m buckets: 96 buckets, the newest holding now.
    expect(windowStart(86_399, 86_400)).toBe(0);
    expect(windowStart(86_400, 86_400)).toBe(900);
    // 5 m over 1m buckets.
    expect(windowStart(659, 300)).toBe(360);
    expect(windowRollupInterval(21_600)).toBe("5m");
  });
});

describe("isExcludedHolder", () => {
  test("default: the zero address, the factory, the token and its platform contracts", () => {
    const contracts = {
      address: "0xt",
      curve: "0xc",
      pool: "0xp",
      feeManager: null,
      graduationManager: "0xg",
      custodian: null,
      escrow: "0xe",
      feeVault: "0xv",
      communityVault: "0xcv",
      traderRewardsVault: "0xtv",
    };
    for (const a of [ZERO_ADDRESS, "0xf", "0xt", "0xc", "0xp", "0xg", "0xe", "0xv", "0xcv", "0xtv"])
      expect(isExcludedHolder(a, contracts, "0xf")).toBe(true);
    expect(isExcludedHolder("0xa", contracts, "0xf")).toBe(false);
  });
});
