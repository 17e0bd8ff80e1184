import { describe, expect, it } from "vitest";
import { aggregateCandles } from "./candles.js";
import {
  bucketStart,
  curveSpotPrice,
  fullyDilutedValue,
  interpretSwap,
  sqrtPriceToPrice,
  tradePrice,
} from "./market-math.js";

const WAD = 10n ** 18n;
const Q96 = 2n ** 96n;

describe("bucketStart", () => {
  it("default", () => {
    const ts = Date.UTC(2026, 10, 21, 13, 47, 31) / 1000; // Saturday
    expect(bucketStart(ts, 60)).toBe(Date.UTC(2026, 10, 21, 13, 47) / 1000);
    expect(bucketStart(ts, 300)).toBe(Date.UTC(2026, 10, 21, 13, 45) / 1000);
    expect(bucketStart(ts, 900)).toBe(Date.UTC(2026, 10, 21, 13, 45) / 1000);
    expect(bucketStart(ts, 3600)).toBe(Date.UTC(2026, 10, 21, 13) / 1000);
    expect(bucketStart(ts, 14_400)).toBe(Date.UTC(2026, 10, 21, 12) / 1000);
    expect(bucketStart(ts, 86_400)).toBe(Date.UTC(2026, 10, 21) / 1000);
    expect(bucketStart(ts, 604_800)).toBe(Date.UTC(2026, 10, 16) / 1000); // Monday
  });

  it("behavior: weeks start on Monday 00:00 UTC (the epoch was a Thursday)", () => {
    const monday = Date.UTC(2026, 10, 16) / 1000;
    expect(new Date(monday * 1000).getUTCDay()).toBe(1);
    expect(bucketStart(monday, 604_800)).toBe(monday);
    expect(bucketStart(monday - 1, 604_800)).toBe(monday - 604_800);
    expect(bucketStart(monday + 604_799, 604_800)).toBe(monday);
    expect(bucketStart(0, 604_800)).toBe(-3 * 86_400); // Monday 1969-12-29
  });
});

describe("prices", () => {
  it("default", () => {
    expect(tradePrice(3n * WAD, 2n * WAD)).toBe((3n * WAD) / 2n);
    expect(tradePrice(1n, 3n)).toBe(WAD / 3n); // floored
    expect(tradePrice(5n, 0n)).toBeNull();
    expect(curveSpotPrice(30n * WAD, 1_073_000_000n * WAD)).toBe((30n * WAD * WAD) / (1_073_000_000n * WAD));
    expect(curveSpotPrice(1n, 0n)).toBeNull();
    expect(fullyDilutedValue(7n, 10n ** 27n)).toBe(7n * 10n ** 9n);
    expect(fullyDilutedValue(null, 10n ** 27n)).toBeNull();
  });

  it("behavior: sqrtPriceX96 pricing is token order aware", () => {
    // token1/token0 = 4 → sqrtP = 2·2^96.
    const sqrt = 2n * Q96;
    // token is token0: 1 token = 4 WETH.
    expect(sqrtPriceToPrice(sqrt, true)).toBe(4n * WAD);
    // token is token1: 1 token = 1/4 WETH.
    expect(sqrtPriceToPrice(sqrt, false)).toBe(WAD / 4n);
    // A tiny price floors to 0: no valid price.
    expect(sqrtPriceToPrice(1n, true)).toBeNull();
    expect(sqrtPriceToPrice(0n, false)).toBeNull();
  });

  it("behavior: swaps are buys when tokens leave the pool, for both token orders", () => {
    const sqrt = Q96; // 1:1
    expect(interpretSwap(-100n, 120n, sqrt, true)).toEqual({
      side: "buy",
      tokenAmount: 100n,
      reserveAmount: 120n,
      price: WAD,
    });
    expect(interpretSwap(100n, -90n, sqrt, true)).toEqual({
      side: "sell",
      tokenAmount: 100n,
      reserveAmount: 90n,
      price: WAD,
    });
    expect(interpretSwap(120n, -100n, sqrt, false)).toEqual({
      side: "buy",
      tokenAmount: 100n,
      reserveAmount: 120n,
      price: WAD,
    });
    expect(interpretSwap(-90n, 100n, sqrt, false)).toEqual({
      side: "sell",
      tokenAmount: 100n,
      reserveAmount: 90n,
      price: WAD,
    });
  });
});

describe("aggregateCandles", () => {
  it("default", () => {
    const t = (
      trader: string,
      side: "buy" | "sell",
      reserveAmount: bigint,
      price: bigint | null,
      ts: number,
    ) => ({
      tokenAddress: "0xt",
      trader,
      side,
      reserveAmount,
      price,
      blockTimestamp: ts,
    });
    const { candles, traders } = aggregateCandles([
      t("0xa", "buy", 10n, 5n, 60),
      t("0xb", "sell", 20n, 3n, 61),
      t("0xa", "sell", 30n, null, 62),
      t("0xa", "buy", 40n, 9n, 119),
      t("0xc", "buy", 1n, 4n, 120),
    ]);
    const oneMinute = candles.filter((c) => c.interval === "1m");
    expect(oneMinute).toEqual([
      {
        tokenAddress: "0xt",
        interval: "1m",
        bucketStart: 60,
        tradeCount: 4,
        buyCount: 2,
        sellCount: 2,
        volume: 100n,
        open: 5n,
        high: 9n,
        low: 3n,
        close: 9n,
      },
      {
        tokenAddress: "0xt",
        interval: "1m",
        bucketStart: 120,
        tradeCount: 1,
        buyCount: 1,
        sellCount: 0,
        volume: 1n,
        open: 4n,
        high: 4n,
        low: 4n,
        close: 4n,
      },
    ]);
    expect(candles.filter((c) => c.interval === "5m")).toHaveLength(1);
    expect(traders.filter((r) => r.interval === "1m" && r.bucketStart === 60)).toEqual([
      { tokenAddress: "0xt", interval: "1m", bucketStart: 60, trader: "0xa", bought: true, sold: true },
      { tokenAddress: "0xt", interval: "1m", bucketStart: 60, trader: "0xb", bought: false, sold: true },
    ]);
  });
});
