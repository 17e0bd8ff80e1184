import { AppError } from "@tmi/shared/errors";
import { bucketStart, type CandleInterval, INTERVAL_SECONDS } from "@tmi/shared/market";
import { MAX_CHART_BUCKETS } from "./chart-schemas.js";

/** Which buckets a chart request asks for (Unix seconds; docs/api.md "Chart"). */
export interface ChartWindowRequest {
  interval: CandleInterval;
  /** Buckets when neither `from` nor `countback` is given (1–1000). */
  limit: number;
  /** The bucket holding it is the first answered (ignored with `countback`). */
  from?: number | undefined;
  /** The bucket holding it is the last answered; default the latest indexed block. */
  to?: number | undefined;
  /** At most this many buckets ending at the bucket of `to` (replaces `limit` and `from`). */
  countback?: number | undefined;
}

/** Inclusive bucket starts `from` ≤ `to` and the bucket length `step` (s); `null` when no bucket is answered. */
export type ChartWindow = { from: number; to: number; step: number } | null;

/**
 * The buckets of a chart (docs/api.md "Chart"). The last bucket is the one holding `to` (default
 * and at most: the bucket of `latestTimestamp`, the latest indexed block); the first is
 * `countback − 1` buckets before it with `countback`, else the one holding `from`, else `limit − 1`
 * buckets before it. Never before the launch bucket (of `launchTimestamp`). Without `from`, `to`
 * and `countback` this is the `limit` most recent buckets, at least the launch bucket. `null` when
 * the range holds no bucket of the token's life (all before the launch or after the latest block).
 * @throws AppError `invalid_request` when `from` > `to`, or when `from`–`to` (`to` default the
 *   latest indexed block) spans more than {@link MAX_CHART_BUCKETS} buckets without `countback`.
 */
export function chartWindow(
  launchTimestamp: number,
  latestTimestamp: number,
  request: ChartWindowRequest,
): ChartWindow {
  const { interval, from, to, countback } = request;
  const step = INTERVAL_SECONDS[interval];
  if (from !== undefined && to !== undefined && from > to) {
    throw new AppError("invalid_request", "from must not be after to", {
      details: [{ field: "from", reason: `from ${from} is after to ${to}` }],
    });
  }
  if (from !== undefined && countback === undefined) {
    const span = (bucketStart(to ?? latestTimestamp, interval) - bucketStart(from, interval)) / step + 1;
    if (span > MAX_CHART_BUCKETS) {
      throw new AppError("invalid_request", `from–to spans more than ${MAX_CHART_BUCKETS} buckets`, {
        details: [
          {
            field: "from",
            reason: `from–to holds ${span} buckets of ${interval}, more than ${MAX_CHART_BUCKETS}: narrow it, or use countback`,
          },
        ],
      });
    }
  }
  const first = bucketStart(launchTimestamp, interval);
  const latest = Math.max(bucketStart(latestTimestamp, interval), first);
  const last = to === undefined ? latest : Math.min(bucketStart(to, interval), latest);
  const start =
    countback !== undefined
      ? last - (countback - 1) * step
      : from !== undefined
        ? bucketStart(from, interval)
        : last - (request.limit - 1) * step;
  const begin = Math.max(first, start);
  return begin <= last ? { from: begin, to: last, step } : null;
}
