// The SQL text of read model `candles` (its rows and deltas: model/candles.ts): the statement
// parts that write a range's rows, composed by prepare-write.ts.

import type { CandleBucket, CandleDelta, CandleTraderRow } from "../model/candles.js";
import { type SqlParams, str, type UnnestColumn, unnestRows } from "../sql/sql-text.js";

/** The key columns of both candle relations (as they are joined on): token `a`, interval `i`, bucket `b`. */
const BUCKET_KEY: Readonly<Record<string, UnnestColumn<CandleBucket>>> = {
  a: ["text", (r) => r.tokenAddress],
  i: ["text", (r) => r.interval],
  b: ["bigint", (r) => r.bucketStart],
};

/**
 * Candles (`candles`, `candle_traders`): the range's per-bucket deltas merged into the stored
 * buckets — counts and volumes (total, buy, sell) add, open kept, close replaced, high/low extended — and the bucket's
 * unique trader count grown exactly: short intervals by the `candle_traders` rows that were new
 * (rows that would not change are not written),
 * long intervals by the range's distinct traders minus those already counted there.
 * The stored `candle_traders` rows are read by one primary-key probe per range row (a LATERAL
 * with LIMIT 1, which the planner keeps as a nested loop): a join it could flatten was planned as a
 * hash of the whole table, a cost that grew with the history.
 * @param countedTraders name of a relation (token_address, interval, bucket_start, n): per long
 *   bucket, the range's traders already counted in it by earlier ranges (the traders read model's).
 */
export function candlesCtes(
  cd: CandleDelta[],
  ct: CandleTraderRow[],
  countedTraders: string,
  q: SqlParams,
): string[] {
  return [
    `candles_traders_in AS (
    SELECT d.*, e.trader IS NULL AS is_new, coalesce(e.bought, false) AS eb, coalesce(e.sold, false) AS es
    FROM ${unnestRows(q, ct, "d", {
      ...BUCKET_KEY,
      t: ["text", (t) => t.trader],
      bo: ["bool", (t) => t.bought],
      so: ["bool", (t) => t.sold],
    })}
    LEFT JOIN LATERAL (
      SELECT e.trader, e.bought, e.sold FROM candle_traders e
      WHERE e.token_address = d.a AND e.interval = d.i AND e.bucket_start = d.b AND e.trader = d.t
      LIMIT 1) e ON true)`,
    `candles_traders_up AS (
    INSERT INTO candle_traders (token_address, interval, bucket_start, trader, bought, sold)
    SELECT a, i, b, t, bo OR eb, so OR es FROM candles_traders_in
    WHERE is_new OR (bo AND NOT eb) OR (so AND NOT es)
    ON CONFLICT (token_address, interval, bucket_start, trader) DO UPDATE SET
      bought = excluded.bought, sold = excluded.sold)`,
    `candles_traders_new AS (
    SELECT a AS token_address, i AS interval, b AS bucket_start, count(*) FILTER (WHERE is_new)::int AS nt
    FROM candles_traders_in GROUP BY 1, 2, 3)`,
    `candles_up AS (
    INSERT INTO candles (token_address, interval, bucket_start, trade_count, buy_count, sell_count, volume,
                         buy_volume, sell_volume, unique_trader_count, open_price, high_price, low_price, close_price)
    SELECT c.a, c.i, c.b, c.tc, c.bc, c.sc, c.vol, c.bv, c.sv, coalesce(ctn.nt, 0) + c.rt - coalesce(ttd.n, 0), c.o, c.h, c.l, c.cl
    FROM ${unnestRows(q, cd, "c", {
      ...BUCKET_KEY,
      tc: ["int", (c) => c.tradeCount],
      bc: ["int", (c) => c.buyCount],
      sc: ["int", (c) => c.sellCount],
      vol: ["numeric", (c) => c.volume.toString()],
      bv: ["numeric", (c) => c.buyVolume.toString()],
      sv: ["numeric", (c) => c.sellVolume.toString()],
      o: ["numeric", (c) => str(c.open)],
      h: ["numeric", (c) => str(c.high)],
      l: ["numeric", (c) => str(c.low)],
      cl: ["numeric", (c) => str(c.close)],
      rt: ["int", (c) => c.rangeTraders],
    })}
    LEFT JOIN candles_traders_new ctn ON ctn.token_address = c.a AND ctn.interval = c.i AND ctn.bucket_start = c.b
    LEFT JOIN ${countedTraders} ttd ON ttd.token_address = c.a AND ttd.interval = c.i AND ttd.bucket_start = c.b
    ON CONFLICT (token_address, interval, bucket_start) DO UPDATE SET
      trade_count = candles.trade_count + excluded.trade_count,
      buy_count = candles.buy_count + excluded.buy_count,
      sell_count = candles.sell_count + excluded.sell_count,
      volume = candles.volume + excluded.volume,
      buy_volume = candles.buy_volume + excluded.buy_volume,
      sell_volume = candles.sell_volume + excluded.sell_volume,
      unique_trader_count = candles.unique_trader_count + excluded.unique_trader_count,
      open_price = coalesce(candles.open_price, excluded.open_price),
      high_price = greatest(candles.high_price, excluded.high_price),
      low_price = least(candles.low_price, excluded.low_price),
      close_price = coalesce(excluded.close_price, candles.close_price))`,
  ];
}
