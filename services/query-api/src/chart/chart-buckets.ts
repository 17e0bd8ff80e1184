import { bucketStart, type CandleInterval, INTERVAL_SECONDS } from "@tmi/shared/market";

/**
 * The bucket range of a chart (docs/api.md "Chart"): the `limit` most recent buckets up to the bucket of
 * `latestTimestamp` (the latest indexed block), never before the bucket of `launchTimestamp`.
 * Returns inclusive bucket starts `from` ≤ `to`.
 */
export function chartRange(
  launchTimestamp: number,
  latestTimestamp: number,
  interval: CandleInterval,
  limit: number,
): { from: number; to: number; step: number } {
  const step = INTERVAL_SECONDS[interval];
  const first = bucketStart(launchTimestamp, interval);
  const to = Math.max(bucketStart(latestTimestamp, interval), first);
  const from = Math.max(first, to - (limit - 1) * step);
  return { from, to, step };
}
