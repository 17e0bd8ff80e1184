import type { Batch } from "../../model/batch.js";
import { ONE_ROW, type SqlParams, str } from "../sql-text.js";

/**
 * Candles (`candles`, `candle_traders`): the range's per-bucket deltas merged into the stored
 * buckets — counts and volume add, open kept, close replaced, high/low extended — and the bucket's
 * unique trader count grown exactly: short intervals by the `candle_traders` rows that were new
 * (rows that would not change are not written),
 * long intervals by the range's distinct traders minus those already counted there (`ttd`).
 * Needs the CTE `ttd` (traders model).
 */
export function candlesCtes(batch: Batch, q: SqlParams): string[] {
  const ct = batch.candleTraders;
  const cd = batch.candles;
  return [
    `ctd AS (
    SELECT d.*, e.trader IS NULL AS is_new, coalesce(e.bought, false) AS eb, coalesce(e.sold, false) AS es
    FROM unnest(${q.p(
      ct.map((t) => t.tokenAddress),
      "text[]",
    )}, ${q.p(
      ct.map((t) => t.interval),
      "text[]",
    )}, ${q.p(
      ct.map((t) => t.bucketStart),
      "bigint[]",
    )}, ${q.p(
      ct.map((t) => t.trader),
      "text[]",
    )}, ${q.p(
      ct.map((t) => t.bought),
      "bool[]",
    )}, ${q.p(
      ct.map((t) => t.sold),
      "bool[]",
    )}) AS d(a, i, b, t, bo, so)
    LEFT JOIN LATERAL (SELECT e.trader, e.bought, e.sold FROM candle_traders e
      WHERE e.token_address = d.a AND e.interval = d.i AND e.bucket_start = d.b AND e.trader = d.t ${ONE_ROW}) e ON true)`,
    `ct AS (
    INSERT INTO candle_traders (token_address, interval, bucket_start, trader, bought, sold)
    SELECT a, i, b, t, bo OR eb, so OR es FROM ctd
    WHERE is_new OR (bo AND NOT eb) OR (so AND NOT es)
    ON CONFLICT (token_address, interval, bucket_start, trader) DO UPDATE SET
      bought = excluded.bought, sold = excluded.sold)`,
    `ctn AS (
    SELECT a AS token_address, i AS interval, b AS bucket_start, count(*) FILTER (WHERE is_new)::int AS nt
    FROM ctd GROUP BY 1, 2, 3)`,
    `cu AS (
    INSERT INTO candles (token_address, interval, bucket_start, trade_count, buy_count, sell_count, volume,
                         unique_trader_count, open_price, high_price, low_price, close_price)
    SELECT c.a, c.i, c.b, c.tc, c.bc, c.sc, c.vol, coalesce(ctn.nt, 0) + c.rt - coalesce(ttd.n, 0), c.o, c.h, c.l, c.cl
    FROM unnest(${q.p(
      cd.map((c) => c.tokenAddress),
      "text[]",
    )}, ${q.p(
      cd.map((c) => c.interval),
      "text[]",
    )}, ${q.p(
      cd.map((c) => c.bucketStart),
      "bigint[]",
    )}, ${q.p(
      cd.map((c) => c.tradeCount),
      "int[]",
    )}, ${q.p(
      cd.map((c) => c.buyCount),
      "int[]",
    )}, ${q.p(
      cd.map((c) => c.sellCount),
      "int[]",
    )}, ${q.p(
      cd.map((c) => c.volume.toString()),
      "numeric[]",
    )}, ${q.p(
      cd.map((c) => str(c.open)),
      "numeric[]",
    )}, ${q.p(
      cd.map((c) => str(c.high)),
      "numeric[]",
    )}, ${q.p(
      cd.map((c) => str(c.low)),
      "numeric[]",
    )}, ${q.p(
      cd.map((c) => str(c.close)),
      "numeric[]",
    )}, ${q.p(
      cd.map((c) => c.rangeTraders),
      "int[]",
    )}) AS c(a, i, b, tc, bc, sc, vol, o, h, l, cl, rt)
    LEFT JOIN ctn ON ctn.token_address = c.a AND ctn.interval = c.i AND ctn.bucket_start = c.b
    LEFT JOIN ttd ON ttd.token_address = c.a AND ttd.interval = c.i AND ttd.bucket_start = c.b
    ON CONFLICT (token_address, interval, bucket_start) DO UPDATE SET
      trade_count = candles.trade_count + excluded.trade_count,
      buy_count = candles.buy_count + excluded.buy_count,
      sell_count = candles.sell_count + excluded.sell_count,
      volume = candles.volume + excluded.volume,
      unique_trader_count = candles.unique_trader_count + excluded.unique_trader_count,
      open_price = coalesce(candles.open_price, excluded.open_price),
      high_price = greatest(candles.high_price, excluded.high_price),
      low_price = least(candles.low_price, excluded.low_price),
      close_price = coalesce(excluded.close_price, candles.close_price))`,
  ];
}
