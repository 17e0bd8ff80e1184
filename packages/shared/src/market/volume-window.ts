import { type CandleInterval, INTERVAL_SECONDS } from "./candle-buckets.js";

/**
 * Rule: volume and its time windows.
 *
 * Volume is Σ `curve_value` of the trades (for a pool swap `curve_value` is its WETH leg), in wei.
 *
 * A window of `seconds` (the token detail's `stats` windows, trending's `TRENDING_WINDOW`) ending
 * at "now" (the latest indexed block's timestamp) is the whole buckets of its rollup interval
 * ({@link windowRollupInterval}) that end with the bucket holding "now": from
 * {@link windowStart} to "now" inclusive. It therefore covers between (`seconds` − one bucket)
 * and `seconds`, and it is the same set of trades whether it is summed from the `candles`
 * rollups (token detail) or from `trades` (trending).
 */

/** The volume a trade adds (wei): its `curve_value`. */
export function tradeVolume(trade: { curveValue: bigint }): bigint {
  return trade.curveValue;
}

/** SQL of the volume of the `trades` rows of alias `alias` (an aggregate, `numeric`). */
export function volumeSql(alias: string): string {
  return `sum(${alias}.curve_value)`;
}

/** The windows of the token detail's `stats`, in wire order. */
export const STATS_WINDOWS = [
  { name: "5m", seconds: 300 },
  { name: "15m", seconds: 900 },
  { name: "30m", seconds: 1_800 },
  { name: "1h", seconds: 3_600 },
  { name: "6h", seconds: 21_600 },
  { name: "24h", seconds: 86_400 },
] as const;

/**
 * The candle interval a window of `seconds` is made of: `1m` up to 1 h, `5m` up to 6 h, `15m`
 * beyond (the intervals whose distinct traders are stored per bucket).
 */
export function windowRollupInterval(seconds: number): CandleInterval {
  return seconds <= 3_600 ? "1m" : seconds <= 21_600 ? "5m" : "15m";
}

/** Bucket length and how far the oldest bucket of a window of `seconds` starts before the newest. */
function windowShape(seconds: number): { bucket: number; back: number } {
  const bucket = INTERVAL_SECONDS[windowRollupInterval(seconds)];
  return { bucket, back: (Math.ceil(seconds / bucket) - 1) * bucket };
}

/**
 * First second (Unix) of the window of `seconds` ending at `now` (Unix seconds): the start of
 * the oldest of its ⌈seconds / bucket⌉ rollup buckets, the newest holding `now`.
 * @example windowStart(86_400, 86_400) // 900 (the 96 15m buckets 900..86_400)
 */
export function windowStart(now: number, seconds: number): number {
  const { bucket, back } = windowShape(seconds);
  return Math.floor(now / bucket) * bucket - back;
}

/** SQL form of {@link windowStart} over the `int8` expression `now` (a constant whole `seconds`). */
export function windowStartSql(now: string, seconds: number): string {
  const { bucket, back } = windowShape(seconds);
  return `(floor((${now})::numeric / ${bucket})::int8 * ${bucket} - ${back})`;
}
