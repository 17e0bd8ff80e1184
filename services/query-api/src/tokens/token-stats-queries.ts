/**
 * Window statistics of a token (token detail `stats`) from the candle rollups (`candles`,
 * `candle_traders`), never by scanning `trades`. "Now" is the timestamp of the latest indexed
 * block (`indexer_checkpoints.block_timestamp`). The windows and their bounds are the volume
 * window rule of `@tmi/shared/market` (`STATS_WINDOWS`, `windowStartSql`): whole buckets of the
 * window's rollup interval ending with the bucket of "now".
 */

import { STATS_WINDOWS, windowRollupInterval, windowStartSql } from "@tmi/shared/market";

/** SQL of the latest indexed block's timestamp ("now" of the windows); 0 before the first commit. */
export const CHECKPOINT_NOW_SQL =
  "COALESCE((SELECT block_timestamp FROM indexer_checkpoints ORDER BY chain_id LIMIT 1), 0)";

const WINDOW_VALUES = STATS_WINDOWS.map(
  (w, i) => `(${i}, '${w.name}', '${windowRollupInterval(w.seconds)}', ${windowStartSql("n.ts", w.seconds)})`,
).join(", ");

/**
 * SQL expression of the `stats` JSON object of token `tokenExpr` (e.g. `t.address` or `$1`) with
 * "now" = `nowExpr` (Unix seconds; default the checkpoint's block timestamp): one entry per
 * window of `STATS_WINDOWS` in that order, the figures of `WindowStats` (`token-stats-schemas.ts`). From the
 * rollups only: per window a sum over its candles, distinct buyers/sellers of its
 * `candle_traders` rows, the close of the latest earlier candle with a price (price before the
 * window); and once the latest 1m close (last trade price). Embeddable in a larger statement
 * (token detail) so that the stats cost no extra round trip; "now" and the last price are
 * evaluated once (materialized CTEs), the windows are six index range scans.
 */
export function tokenStatsJsonSql(tokenExpr: string, nowExpr = CHECKPOINT_NOW_SQL): string {
  return `(WITH w AS MATERIALIZED (
      SELECT v.ord, v.name, v.iv, v.start
        FROM (SELECT (${nowExpr})::int8 AS ts) n
        CROSS JOIN LATERAL (VALUES ${WINDOW_VALUES}) AS v(ord, name, iv, start)),
    lp AS MATERIALIZED (
      SELECT c.close_price AS price FROM candles c
       WHERE c.token_address = ${tokenExpr} AND c.interval = '1m' AND c.close_price IS NOT NULL
       ORDER BY c.bucket_start DESC LIMIT 1)
    SELECT json_object_agg(w.name, json_build_object(
        'volume', COALESCE(agg.volume, 0)::text,
        'buy_volume', COALESCE(agg.buy_volume, 0)::text, 'sell_volume', COALESCE(agg.sell_volume, 0)::text,
        'net_volume', (COALESCE(agg.buy_volume, 0) - COALESCE(agg.sell_volume, 0))::text,
        'trade_count', COALESCE(agg.trade_count, 0)::int,
        'buy_count', COALESCE(agg.buy_count, 0)::int, 'sell_count', COALESCE(agg.sell_count, 0)::int,
        'unique_buyers', tr.unique_buyers, 'unique_sellers', tr.unique_sellers, 'unique_traders', tr.unique_traders,
        'price_change_bps', CASE WHEN sp.price IS NULL OR lp.price IS NULL OR sp.price = 0 THEN NULL
                                 ELSE div((lp.price - sp.price) * 10000, sp.price)::int8 END)
        ORDER BY w.ord)
      FROM w
      CROSS JOIN LATERAL (
        SELECT sum(c.volume) AS volume, sum(c.buy_volume) AS buy_volume, sum(c.sell_volume) AS sell_volume,
               sum(c.trade_count) AS trade_count, sum(c.buy_count) AS buy_count,
               sum(c.sell_count) AS sell_count
          FROM candles c WHERE c.token_address = ${tokenExpr} AND c.interval = w.iv AND c.bucket_start >= w.start) agg
      CROSS JOIN LATERAL (
        SELECT (count(DISTINCT ct.trader) FILTER (WHERE ct.bought))::int AS unique_buyers,
               (count(DISTINCT ct.trader) FILTER (WHERE ct.sold))::int AS unique_sellers,
               (count(DISTINCT ct.trader))::int AS unique_traders
          FROM candle_traders ct
         WHERE ct.token_address = ${tokenExpr} AND ct.interval = w.iv AND ct.bucket_start >= w.start) tr
      LEFT JOIN LATERAL (
        SELECT c.close_price AS price FROM candles c
         WHERE c.token_address = ${tokenExpr} AND c.interval = w.iv AND c.bucket_start < w.start
           AND c.close_price IS NOT NULL
         ORDER BY c.bucket_start DESC LIMIT 1) sp ON true
      LEFT JOIN lp ON true)`;
}
