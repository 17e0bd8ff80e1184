import { z } from "zod";
import type { ReadDb } from "../../db.js";

/**
 * Window statistics of a token (token detail `stats`) from the candle rollups (`candles`,
 * `candle_traders`), never by scanning `trades`. "Now" is the timestamp of the latest indexed
 * block (`indexer_checkpoints.block_timestamp`). A window is made of whole buckets of its rollup
 * interval ending with the bucket of "now": 5m and 1h over 1m buckets, 6h over 5m buckets, 24h over
 * 15m buckets — so it covers between (length − one bucket) and its length.
 */

/** Windows reported, with the rollup interval each is summed from. */
export const STATS_WINDOWS = [
  { name: "5m", seconds: 300, interval: "1m", bucket: 60 },
  { name: "1h", seconds: 3_600, interval: "1m", bucket: 60 },
  { name: "6h", seconds: 21_600, interval: "5m", bucket: 300 },
  { name: "24h", seconds: 86_400, interval: "15m", bucket: 900 },
] as const;
export type StatsWindowName = (typeof STATS_WINDOWS)[number]["name"];

/** One window's figures. */
export const windowStatsSchema = z
  .object({
    volume: z.string().describe("sum of reserve_amount (wei) of the window's trades"),
    trade_count: z.number().int(),
    buy_count: z.number().int(),
    sell_count: z.number().int(),
    unique_buyers: z.number().int().describe("distinct addresses that bought in the window"),
    unique_sellers: z.number().int().describe("distinct addresses that sold in the window"),
    price_change_bps: z
      .number()
      .int()
      .nullable()
      .describe(
        "(last trade price − last trade price before the window) × 10000 / the latter, truncated; null without a trade before the window",
      ),
  })
  .meta({ id: "WindowStats" });

/** `stats` of token detail: one entry per window. */
export const tokenStatsSchema = z
  .object({
    "5m": windowStatsSchema,
    "1h": windowStatsSchema,
    "6h": windowStatsSchema,
    "24h": windowStatsSchema,
  })
  .meta({
    id: "TokenStats",
    description:
      "Window figures from the candle rollups; a window is the whole buckets (1m for 5m and 1h, 5m for 6h, 15m for 24h) ending with the bucket of the latest indexed block's timestamp",
  });
export type TokenStats = z.infer<typeof tokenStatsSchema>;

/** First bucket (Unix seconds) of a window ending with the bucket of `now`. */
export function windowStart(now: number, window: (typeof STATS_WINDOWS)[number]): number {
  const current = Math.floor(now / window.bucket) * window.bucket;
  return current - window.seconds + window.bucket;
}

/** SQL of the latest indexed block's timestamp ("now" of the windows); 0 before the first commit. */
export const CHECKPOINT_NOW_SQL =
  "COALESCE((SELECT block_timestamp FROM indexer_checkpoints ORDER BY chain_id LIMIT 1), 0)";

const WINDOW_VALUES = STATS_WINDOWS.map(
  (w, i) => `(${i}, '${w.name}', '${w.interval}', ${w.bucket}::int8, ${w.seconds}::int8)`,
).join(", ");

/**
 * SQL expression of the `stats` JSON object of token `tokenExpr` (e.g. `t.address` or `$1`) with
 * "now" = `nowExpr` (Unix seconds; default the checkpoint's block timestamp): one entry per
 * window of {@link STATS_WINDOWS} in that order, the figures of {@link windowStatsSchema}. From the
 * rollups only: per window a sum over its candles, distinct buyers/sellers of its
 * `candle_traders` rows, the close of the latest earlier candle with a price (price before the
 * window); and once the latest 1m close (last trade price). Embeddable in a larger statement
 * (token detail) so that the stats cost no extra round trip; "now" and the last price are
 * evaluated once (materialized CTEs), the windows are four index range scans.
 */
export function tokenStatsJsonSql(tokenExpr: string, nowExpr = CHECKPOINT_NOW_SQL): string {
  return `(WITH w AS MATERIALIZED (
      SELECT v.ord, v.name, v.iv, n.ts / v.bucket * v.bucket - v.seconds + v.bucket AS start
        FROM (SELECT (${nowExpr})::int8 AS ts) n
        CROSS JOIN (VALUES ${WINDOW_VALUES}) AS v(ord, name, iv, bucket, seconds)),
    lp AS MATERIALIZED (
      SELECT c.close_price AS price FROM candles c
       WHERE c.token_address = ${tokenExpr} AND c.interval = '1m' AND c.close_price IS NOT NULL
       ORDER BY c.bucket_start DESC LIMIT 1)
    SELECT json_object_agg(w.name, json_build_object(
        'volume', COALESCE(agg.volume, 0)::text, 'trade_count', COALESCE(agg.trade_count, 0)::int,
        'buy_count', COALESCE(agg.buy_count, 0)::int, 'sell_count', COALESCE(agg.sell_count, 0)::int,
        'unique_buyers', tr.unique_buyers, 'unique_sellers', tr.unique_sellers,
        'price_change_bps', CASE WHEN sp.price IS NULL OR lp.price IS NULL OR sp.price = 0 THEN NULL
                                 ELSE div((lp.price - sp.price) * 10000, sp.price)::int8 END)
        ORDER BY w.ord)
      FROM w
      CROSS JOIN LATERAL (
        SELECT sum(c.volume) AS volume, sum(c.trade_count) AS trade_count, sum(c.buy_count) AS buy_count,
               sum(c.sell_count) AS sell_count
          FROM candles c WHERE c.token_address = ${tokenExpr} AND c.interval = w.iv AND c.bucket_start >= w.start) agg
      CROSS JOIN LATERAL (
        SELECT (count(DISTINCT ct.trader) FILTER (WHERE ct.bought))::int AS unique_buyers,
               (count(DISTINCT ct.trader) FILTER (WHERE ct.sold))::int AS unique_sellers
          FROM candle_traders ct
         WHERE ct.token_address = ${tokenExpr} AND ct.interval = w.iv AND ct.bucket_start >= w.start) tr
      LEFT JOIN LATERAL (
        SELECT c.close_price AS price FROM candles c
         WHERE c.token_address = ${tokenExpr} AND c.interval = w.iv AND c.bucket_start < w.start
           AND c.close_price IS NOT NULL
         ORDER BY c.bucket_start DESC LIMIT 1) sp ON true
      LEFT JOIN lp ON true)`;
}

/**
 * Reads every window of `token` in one query ({@link tokenStatsJsonSql}). `now` (Unix seconds)
 * defaults to the checkpoint's block timestamp; with nothing indexed every window is empty.
 */
export async function readTokenStats(db: ReadDb, token: string, now?: number): Promise<TokenStats> {
  const { rows } = await db.query<{ stats: TokenStats }>(
    `SELECT ${tokenStatsJsonSql("$1::text", `COALESCE($2::int8, ${CHECKPOINT_NOW_SQL})`)} AS stats`,
    [token, now === undefined ? null : String(now)],
  );
  return rows[0]!.stats;
}
