import type { ChartInterval } from "./chart-schemas.js";

/** Bucket length of each interval, in seconds. */
export const INTERVAL_SECONDS: Record<ChartInterval, number> = {
  "1m": 60,
  "5m": 300,
  "15m": 900,
  "1h": 3_600,
  "4h": 14_400,
  "1d": 86_400,
  "1w": 604_800,
};

/** 1970-01-05T00:00:00Z, the first Monday after the Unix epoch (a Thursday): origin of weekly buckets. */
export const WEEK_ORIGIN = 4 * 86_400;

/** Start (Unix seconds) of the UTC-aligned bucket of `interval` holding `timestamp`; weeks start Monday 00:00 UTC. */
export function bucketStart(timestamp: number, interval: ChartInterval): number {
  const step = INTERVAL_SECONDS[interval];
  const origin = interval === "1w" ? WEEK_ORIGIN : 0;
  return Math.floor((timestamp - origin) / step) * step + origin;
}

/**
 * The bucket range of a chart (docs/api.md "Chart"): the `limit` most recent buckets up to the bucket of
 * `latestTimestamp` (the latest indexed block), never before the bucket of `launchTimestamp`.
 * Returns inclusive bucket starts `from` ≤ `to`.
 */
export function chartRange(
  launchTimestamp: number,
  latestTimestamp: number,
  interval: ChartInterval,
  limit: number,
): { from: number; to: number; step: number } {
  const step = INTERVAL_SECONDS[interval];
  const first = bucketStart(launchTimestamp, interval);
  const to = Math.max(bucketStart(latestTimestamp, interval), first);
  const from = Math.max(first, to - (limit - 1) * step);
  return { from, to, step };
}
