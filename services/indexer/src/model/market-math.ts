import { Q96, WAD } from "@tmi/shared/chain";

/** Candle intervals (DESIGN.md §5) and their lengths in seconds. */
export const INTERVALS = [
  ["1m", 60],
  ["5m", 300],
  ["15m", 900],
  ["1h", 3600],
  ["4h", 14_400],
  ["1d", 86_400],
  ["1w", 604_800],
] as const;

export type Interval = (typeof INTERVALS)[number][0];

/** 1970-01-05 00:00 UTC, the first Monday after the Unix epoch (a Thursday). */
export const FIRST_MONDAY = 345_600;

/**
 * Start (Unix seconds) of the UTC bucket of `interval` that contains `timestamp`.
 * Weeks start on Monday 00:00 UTC; every other interval divides the day evenly.
 */
export function bucketStart(timestamp: number, intervalSeconds: number): number {
  if (intervalSeconds === 604_800) {
    return Math.floor((timestamp - FIRST_MONDAY) / 604_800) * 604_800 + FIRST_MONDAY;
  }
  return Math.floor(timestamp / intervalSeconds) * intervalSeconds;
}

/** SQL expression of {@link bucketStart} over a bigint column `ts` and an interval length `size`. */
export function bucketSql(ts: string, size: string): string {
  return `(CASE WHEN ${size} = 604800 THEN ((${ts} - ${FIRST_MONDAY}) / 604800) * 604800 + ${FIRST_MONDAY} - (CASE WHEN (${ts} - ${FIRST_MONDAY}) % 604800 < 0 THEN 604800 ELSE 0 END) ELSE (${ts} / ${size}) * ${size} END)`;
}

/**
 * Price of a trade: wei per whole token, `curveValue · 10^18 / tokenAmount` floored;
 * null when no tokens moved.
 */
export function tradePrice(curveValue: bigint, tokenAmount: bigint): bigint | null {
  return tokenAmount > 0n ? (curveValue * WAD) / tokenAmount : null;
}

/** Curve spot price `reserveBalance · 10^18 / tokenBalance` (virtual reserves), null when tokenBalance is 0. */
export function curveSpotPrice(reserveBalance: bigint, tokenBalance: bigint): bigint | null {
  return tokenBalance > 0n ? (reserveBalance * WAD) / tokenBalance : null;
}

/**
 * Market price of the token in wei per whole token from a Uniswap V3 `sqrtPriceX96`
 * (`sqrt(token1/token0) · 2^96`). Both assets have 18 decimals, so no decimal shift:
 * token is token0 → `sqrtP² · 10^18 / 2^192`; token is token1 → `2^192 · 10^18 / sqrtP²`.
 * Null when `sqrtPriceX96` is 0 or the price floors to 0 (no valid price).
 */
export function sqrtPriceToPrice(sqrtPriceX96: bigint, tokenIsToken0: boolean): bigint | null {
  if (sqrtPriceX96 <= 0n) return null;
  const squared = sqrtPriceX96 * sqrtPriceX96;
  const q192 = Q96 * Q96;
  const price = tokenIsToken0 ? (squared * WAD) / q192 : (q192 * WAD) / squared;
  return price > 0n ? price : null;
}

/** Fully diluted value in wei: `price · initialSupply / 10^18`, null without a price. */
export function fullyDilutedValue(price: bigint | null, initialSupply: bigint): bigint | null {
  return price === null ? null : (price * initialSupply) / WAD;
}

/** A pool `Swap` seen from the launched token: side, amounts and market price. */
export interface SwapTrade {
  side: "buy" | "sell";
  tokenAmount: bigint;
  /** WETH amount of the swap (wei): `reserve_amount` and `curve_value` of the trade. */
  reserveAmount: bigint;
  /** Pool price after the swap, wei per whole token. */
  price: bigint | null;
}

/**
 * Interprets a Uniswap V3 `Swap` (pool-perspective signed amounts: positive = into the pool)
 * for the launched token: `buy` when tokens leave the pool.
 */
export function interpretSwap(
  amount0: bigint,
  amount1: bigint,
  sqrtPriceX96: bigint,
  tokenIsToken0: boolean,
): SwapTrade {
  const tokenDelta = tokenIsToken0 ? amount0 : amount1;
  const wethDelta = tokenIsToken0 ? amount1 : amount0;
  return {
    side: tokenDelta < 0n ? "buy" : "sell",
    tokenAmount: tokenDelta < 0n ? -tokenDelta : tokenDelta,
    reserveAmount: wethDelta < 0n ? -wethDelta : wethDelta,
    price: sqrtPriceToPrice(sqrtPriceX96, tokenIsToken0),
  };
}
