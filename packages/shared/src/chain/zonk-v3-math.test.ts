import { describe, expect, test } from "vitest";
import {
  applyBuy,
  applySell,
  BASE_MAINNET,
  CURVE_ALLOCATION,
  CurveMathError,
  curveSpotPrice,
  EXACT_GRADUATION_GROSS,
  GRADUATION_NET_ETH,
  grossRequiredForNet,
  INITIAL_CURVE_STATE,
  INITIAL_PRICE,
  LP_ALLOCATION,
  poolPriceFromSqrtPriceX96,
  Q96,
  quoteBuy,
  quoteSell,
  splitFee,
  TERMINAL_PRICE,
  TERMINAL_SQRT_PRICE_X96_TOKEN0,
  TERMINAL_SQRT_PRICE_X96_TOKEN1,
  TOTAL_SUPPLY,
  WAD,
} from "./zonk-v3-math.js";

function isqrt(n: bigint): bigint {
  if (n < 2n) return n;
  let x = n;
  let y = (x + 1n) / 2n;
  while (y < x) {
    x = y;
    y = (x + n / x) / 2n;
  }
  return x;
}

describe("zonk V3 curve math", () => {
  test("default: launch and graduation prices and the exact graduation gross", () => {
    expect(TOTAL_SUPPLY).toBe(CURVE_ALLOCATION + LP_ALLOCATION);
    expect(curveSpotPrice(0n, 0n)).toBe(INITIAL_PRICE);
    expect(INITIAL_PRICE).toBe(937_500_000n);
    expect(curveSpotPrice(CURVE_ALLOCATION, GRADUATION_NET_ETH)).toBe(TERMINAL_PRICE);
    expect(TERMINAL_PRICE).toBe(15_000_000_000n);
    expect(grossRequiredForNet(GRADUATION_NET_ETH)).toBe(3_030_303_030_303_030_303n);
    expect(EXACT_GRADUATION_GROSS).toBe(3_030_303_030_303_030_303n);
  });

  test("behavior: the fee split is 35/20/15 floored, the protocol takes the rest", () => {
    const fees = splitFee(123_456_789_012_345_678n);
    expect(fees.totalFee).toBe(1_234_567_890_123_456n);
    expect(fees.creatorFee).toBe((fees.totalFee * 35n) / 100n);
    expect(fees.communityFee).toBe((fees.totalFee * 20n) / 100n);
    expect(fees.traderRewardsFee).toBe((fees.totalFee * 15n) / 100n);
    expect(fees.creatorFee + fees.communityFee + fees.traderRewardsFee + fees.protocolFee).toBe(
      fees.totalFee,
    );
  });

  test("behavior: an oversized buy is capped at graduation and the excess refunded", () => {
    const quote = quoteBuy(INITIAL_CURVE_STATE, 5n * WAD);
    expect(quote.acceptedGross).toBe(EXACT_GRADUATION_GROSS);
    expect(quote.refund).toBe(5n * WAD - EXACT_GRADUATION_GROSS);
    expect(quote.netCurveInput).toBe(GRADUATION_NET_ETH);
    expect(quote.tokensOut).toBe(CURVE_ALLOCATION);
    expect(quote.reachesGraduation).toBe(true);
    const after = applyBuy(INITIAL_CURVE_STATE, quote);
    expect(after.graduated).toBe(true);
    expect(curveSpotPrice(after.soldSupply, after.reserveCoordinate)).toBe(TERMINAL_PRICE);
    expect(() => quoteBuy(after, WAD)).toThrow(CurveMathError);
    expect(() => quoteSell(after, 1n)).toThrow(CurveMathError);
  });

  test("behavior: a buy then selling everything returns the curve near its start", () => {
    const bought = quoteBuy(INITIAL_CURVE_STATE, WAD);
    expect(bought.refund).toBe(0n);
    expect(bought.netCurveInput).toBe(WAD - WAD / 100n);
    const state = applyBuy(INITIAL_CURVE_STATE, bought);
    const sold = quoteSell(state, bought.tokensOut);
    expect(sold.grossCurveOutput).toBeLessThanOrEqual(bought.netCurveInput);
    const back = applySell(state, sold);
    expect(back.soldSupply).toBe(0n);
    expect(back.reserveCoordinate).toBeGreaterThanOrEqual(0n);
    expect(back.reserveCoordinate).toBeLessThan(10n);
  });

  test("behavior: terminal sqrtPriceX96 constants are floor(sqrt(price × 2^192)) and map back to the terminal price", () => {
    const q192 = Q96 * Q96;
    expect(TERMINAL_SQRT_PRICE_X96_TOKEN0).toBe(isqrt((TERMINAL_PRICE * q192) / WAD));
    expect(TERMINAL_SQRT_PRICE_X96_TOKEN1).toBe(isqrt((WAD * q192) / TERMINAL_PRICE));
    for (const [sqrt, token0] of [
      [TERMINAL_SQRT_PRICE_X96_TOKEN0, true],
      [TERMINAL_SQRT_PRICE_X96_TOKEN1, false],
    ] as const) {
      const price = poolPriceFromSqrtPriceX96(sqrt, token0) ?? 0n;
      expect(price > TERMINAL_PRICE - 2n && price < TERMINAL_PRICE + 2n).toBe(true);
    }
  });

  test("error: zero amounts and oversized sells revert like the contract", () => {
    expect(() => quoteBuy(INITIAL_CURVE_STATE, 0n)).toThrow("InvalidAmount");
    expect(() => quoteSell(INITIAL_CURVE_STATE, 1n)).toThrow("InvalidAmount");
    expect(poolPriceFromSqrtPriceX96(0n, true)).toBeNull();
  });

  test("behavior: the Base mainnet addresses are the platform's, lowercase", () => {
    expect(BASE_MAINNET.chainId).toBe(8453);
    for (const address of Object.values(BASE_MAINNET.contracts)) expect(address).toMatch(/^0x[0-9a-f]{40}$/);
    expect(BASE_MAINNET.contracts.factory).toBe("0x90B371F571975a0b0693Dc3C46Eea19733c72ddD".toLowerCase());
  });
});
