// The SQL text of read model `holder_counts` (its rows and deltas: model/holder-history.ts): the
// statement parts that write a range's rows, composed by prepare-write.ts.
import { INTERVAL_SECONDS } from "@tmi/shared/market";
import { HOLDER_HISTORY_INTERVALS, type HolderHourChanges } from "../model/holder-history.js";
import { type SqlParams, unnestRows } from "../sql/sql-text.js";

/**
 * Holder counts (`holder_counts`): each holder's balance before the range (`oldBalances`, the
 * holders' relation (token, holder, delta, old) of the same statement) plus its per-hour changes in bucket order tells, per hour bucket, whether
 * it became or stopped being a holder; the token's count before the range (`tokens.holder_count`)
 * plus the running Σ of those changes is its count at the end of each hour bucket the range
 * touched, and each 1h/4h/1d bucket keeps the count at the end of its last touched hour (upserted:
 * a later range touching the same bucket replaces it).
 */
export function holderHistoryCtes(changes: HolderHourChanges, oldBalances: string, q: SqlParams): string[] {
  if (changes.size === 0) return [];
  const intervals = HOLDER_HISTORY_INTERVALS.map((i) => `('${i}', ${INTERVAL_SECONDS[i]}::int8)`).join(", ");
  return [
    `hh_in AS (SELECT * FROM ${unnestRows(q, [...changes.values()], "d", {
      token: ["text", (r) => r.tokenAddress],
      holder: ["text", (r) => r.holder],
      bucket: ["bigint", (r) => r.bucket],
      delta: ["numeric", (r) => r.delta.toString()],
    })})`,
    `hh_run AS (
    SELECT h.token, h.bucket, coalesce(o.old, 0) + sum(h.delta) OVER w AS after,
      coalesce(o.old, 0) + sum(h.delta) OVER w - h.delta AS before
    FROM hh_in h LEFT JOIN ${oldBalances} o ON o.token = h.token AND o.holder = h.holder
    WINDOW w AS (PARTITION BY h.token, h.holder ORDER BY h.bucket))`,
    `hh_count AS (
    SELECT c.token, c.bucket, t.holder_count + sum(c.n) OVER (PARTITION BY c.token ORDER BY c.bucket) AS holder_count
    FROM (SELECT token, bucket, sum((after > 0)::int - (before > 0)::int) AS n FROM hh_run GROUP BY token, bucket) c
    JOIN tokens t ON t.address = c.token)`,
    `hh_up AS (
    INSERT INTO holder_counts (token_address, interval, bucket_start, holder_count)
    SELECT DISTINCT ON (c.token, iv.name, b) c.token, iv.name, c.bucket - c.bucket % iv.size AS b, c.holder_count
    FROM hh_count c CROSS JOIN (VALUES ${intervals}) AS iv(name, size)
    ORDER BY c.token, iv.name, b, c.bucket DESC
    ON CONFLICT (token_address, interval, bucket_start) DO UPDATE SET holder_count = excluded.holder_count)`,
  ];
}
