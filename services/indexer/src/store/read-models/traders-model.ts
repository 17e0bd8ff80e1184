import type { Batch } from "../../model/batch.js";
import { LONG_INTERVALS } from "../../model/candles.js";
import { ONE_ROW, type SqlParams } from "../sql-text.js";

/**
 * Distinct traders per token (`token_traders`): the range's traders inserted, or their last bucket
 * of each long candle interval moved forward (rows that would not change are not written: no row
 * lock, no WAL). CTEs for later read models:
 * - `ttn` (token_address, n): traders new to the token (`tokens.unique_trader_count`);
 * - `ttd` (token_address, interval, bucket_start, n): traders of the range whose stored last bucket
 *   is the bucket of their first trade in the range — already counted in that long candle.
 */
export function tradersCtes(batch: Batch, q: SqlParams): string[] {
  const tt = [...batch.tokenTraders.values()];
  const col = (j: number, which: "firstBuckets" | "lastBuckets") =>
    q.p(
      tt.map((r) => r[which][j] ?? null),
      "bigint[]",
    );
  const names = LONG_INTERVALS.map((i) => i);
  return [
    `tto AS (
    SELECT d.*, old.trader IS NULL AS is_new, ${names.map((n) => `old.last_bucket_${n} AS o${n}`).join(", ")}
    FROM unnest(${q.p(
      tt.map((r) => r.tokenAddress),
      "text[]",
    )}, ${q.p(
      tt.map((r) => r.trader),
      "text[]",
    )}, ${q.p(
      tt.map((r) => r.firstBlock),
      "bigint[]",
    )}, ${names.map((_, j) => col(j, "firstBuckets")).join(", ")}, ${names.map((_, j) => col(j, "lastBuckets")).join(", ")})
      AS d(token, trader, fb, ${names.map((n) => `f${n}`).join(", ")}, ${names.map((n) => `l${n}`).join(", ")})
    LEFT JOIN LATERAL (SELECT * FROM token_traders old WHERE old.token_address = d.token AND old.trader = d.trader ${ONE_ROW}) old ON true)`,
    `tt AS (
    INSERT INTO token_traders (token_address, trader, first_block_number, ${names.map((n) => `last_bucket_${n}`).join(", ")})
    SELECT token, trader, fb, ${names.map((n) => `l${n}`).join(", ")} FROM tto
    WHERE is_new OR (${names.map((n) => `l${n}`).join(", ")}) IS DISTINCT FROM (${names.map((n) => `o${n}`).join(", ")})
    ON CONFLICT (token_address, trader) DO UPDATE SET
      ${names.map((n) => `last_bucket_${n} = excluded.last_bucket_${n}`).join(",\n      ")}
    WHERE (${names.map((n) => `token_traders.last_bucket_${n}`).join(", ")})
      IS DISTINCT FROM (${names.map((n) => `excluded.last_bucket_${n}`).join(", ")}))`,
    "ttn AS (SELECT token AS token_address, count(*) FILTER (WHERE is_new)::int AS n FROM tto GROUP BY token)",
    `ttd AS (
    SELECT tto.token AS token_address, v.i AS interval, v.b AS bucket_start, count(*)::int AS n
    FROM tto CROSS JOIN LATERAL (VALUES ${names.map((n) => `('${n}', f${n}, o${n})`).join(", ")}) AS v(i, b, o)
    WHERE v.b = v.o GROUP BY 1, 2, 3)`,
  ];
}
