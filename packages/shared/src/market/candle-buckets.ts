/**
 * Rule: candle intervals and their UTC bucketing. The indexer buckets trades into `candles` with
 * {@link bucketStart}; query-api reads charts, stream candles and window statistics with the same
 * function or its SQL form {@link bucketStartSql}.
 */

/** Candle intervals, shortest first (`candles.interval`, the chart's `interval`). */
export const CANDLE_INTERVALS = ["1m", "5m", "15m", "1h", "4h", "1d", "1w"] as const;

/** A candle interval. */
export type CandleInterval = (typeof CANDLE_INTERVALS)[number];

/** Length of each interval in seconds. */
export const INTERVAL_SECONDS: Readonly<Record<CandleInterval, number>> = Object.freeze({
  "1m": 60,
  "5m": 300,
  "15m": 900,
  "1h": 3_600,
  "4h": 14_400,
  "1d": 86_400,
  "1w": 604_800,
});

/** 1970-01-05 00:00 UTC, the first Monday after the Unix epoch (a Thursday): origin of `1w` buckets. */
export const WEEK_ORIGIN = 345_600;

/** Whether `value` names a candle interval. */
export function isCandleInterval(value: string): value is CandleInterval {
  return (CANDLE_INTERVALS as readonly string[]).includes(value);
}

/**
 * Start (Unix seconds) of the UTC bucket of `interval` that holds `timestamp` (Unix seconds).
 * Weeks start Monday 00:00 UTC; every other interval divides the day evenly. Floors for timestamps
 * before the origin too.
 * @example bucketStart(3_725, "1h") // 3_600
 */
export function bucketStart(timestamp: number, interval: CandleInterval): number {
  const seconds = INTERVAL_SECONDS[interval];
  const origin = interval === "1w" ? WEEK_ORIGIN : 0;
  return Math.floor((timestamp - origin) / seconds) * seconds + origin;
}

/**
 * SQL form of {@link bucketStart}: an `int8` expression over the `int8` expressions `ts` (Unix
 * seconds) and `size` (the interval's seconds, e.g. `iv.size` of {@link CANDLE_INTERVALS_SQL}).
 */
export function bucketStartSql(ts: string, size: string): string {
  const week = INTERVAL_SECONDS["1w"];
  return `(CASE WHEN ${size} = ${week} THEN floor((${ts} - ${WEEK_ORIGIN})::numeric / ${week})::int8 * ${week} + ${WEEK_ORIGIN} ELSE floor((${ts})::numeric / ${size})::int8 * ${size} END)`;
}

/** The intervals as a SQL relation `iv(name text, size int8)`, for `CROSS JOIN`. */
export const CANDLE_INTERVALS_SQL = `(VALUES ${CANDLE_INTERVALS.map((i) => `('${i}', ${INTERVAL_SECONDS[i]}::int8)`).join(", ")}) AS iv(name, size)`;
