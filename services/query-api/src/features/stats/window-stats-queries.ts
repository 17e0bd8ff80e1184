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
export const windowStatsSchema = z.object({
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
});

/** `stats` of token detail: one entry per window. */
export const tokenStatsSchema = z.object({
  "5m": windowStatsSchema,
  "1h": windowStatsSchema,
  "6h": windowStatsSchema,
  "24h": windowStatsSchema,
});
export type TokenStats = z.infer<typeof tokenStatsSchema>;

/** First bucket (Unix seconds) of a window ending with the bucket of `now`. */
export function windowStart(now: number, window: (typeof STATS_WINDOWS)[number]): number {
  const current = Math.floor(now / window.bucket) * window.bucket;
  return current - window.seconds + window.bucket;
}

/**
 * Reads every window of `token` in one query: sums of the window's candles, distinct buyers and
 * sellers of its candle traders, the last trade price before it (close of the latest earlier
 * candle with a price) and the last trade price (latest 1m close). `now` defaults to the
 * checkpoint's block timestamp; with nothing indexed every window is empty.
 */
export async function readTokenStats(db: ReadDb, token: string, now?: number): Promise<TokenStats> {
  const { rows } = await db.query<{
    name: StatsWindowName;
    volume: string;
    trade_count: number;
    buy_count: number;
    sell_count: number;
    unique_buyers: number;
    unique_sellers: number;
    start_price: string | null;
    last_price: string | null;
  }>(
    `WITH nowts AS (
       SELECT COALESCE($2::bigint, (SELECT block_timestamp FROM indexer_checkpoints ORDER BY chain_id LIMIT 1), 0) AS ts
     ), w AS (
       SELECT name, iv, bucket, (SELECT ts FROM nowts) / bucket * bucket - seconds + bucket AS start
         FROM unnest($3::text[], $4::text[], $5::bigint[], $6::bigint[]) AS w(name, iv, bucket, seconds)
     )
     SELECT w.name,
            COALESCE(agg.volume, 0)::text AS volume, COALESCE(agg.trade_count, 0)::int AS trade_count,
            COALESCE(agg.buy_count, 0)::int AS buy_count, COALESCE(agg.sell_count, 0)::int AS sell_count,
            tr.unique_buyers, tr.unique_sellers,
            (SELECT c.close_price::text FROM candles c
              WHERE c.token_address = $1 AND c.interval = w.iv AND c.bucket_start < w.start AND c.close_price IS NOT NULL
              ORDER BY c.bucket_start DESC LIMIT 1) AS start_price,
            (SELECT c.close_price::text FROM candles c
              WHERE c.token_address = $1 AND c.interval = '1m' AND c.close_price IS NOT NULL
              ORDER BY c.bucket_start DESC LIMIT 1) AS last_price
       FROM w
       CROSS JOIN LATERAL (
         SELECT sum(c.volume) AS volume, sum(c.trade_count) AS trade_count, sum(c.buy_count) AS buy_count,
                sum(c.sell_count) AS sell_count
           FROM candles c WHERE c.token_address = $1 AND c.interval = w.iv AND c.bucket_start >= w.start) agg
       CROSS JOIN LATERAL (
         SELECT (count(DISTINCT ct.trader) FILTER (WHERE ct.bought))::int AS unique_buyers,
                (count(DISTINCT ct.trader) FILTER (WHERE ct.sold))::int AS unique_sellers
           FROM candle_traders ct WHERE ct.token_address = $1 AND ct.interval = w.iv AND ct.bucket_start >= w.start) tr`,
    [
      token,
      now === undefined ? null : String(now),
      STATS_WINDOWS.map((w) => w.name),
      STATS_WINDOWS.map((w) => w.interval),
      STATS_WINDOWS.map((w) => String(w.bucket)),
      STATS_WINDOWS.map((w) => String(w.seconds)),
    ],
  );
  const stats = {} as TokenStats;
  for (const row of rows) {
    const start = row.start_price === null ? null : BigInt(row.start_price);
    const last = row.last_price === null ? null : BigInt(row.last_price);
    stats[row.name] = {
      volume: row.volume,
      trade_count: row.trade_count,
      buy_count: row.buy_count,
      sell_count: row.sell_count,
      unique_buyers: row.unique_buyers,
      unique_sellers: row.unique_sellers,
      price_change_bps:
        start === null || last === null || start === 0n ? null : Number(((last - start) * 10_000n) / start),
    };
  }
  return stats;
}
