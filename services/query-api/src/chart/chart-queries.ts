import { CANDLE_INTERVALS, type CandleInterval } from "@tmi/shared/market";
import { type Int8, prepared, type ReadDb } from "../db.js";
import { chartRange } from "./chart-buckets.js";

const BOUNDS_SQL = `SELECT t.created_at, c.block_timestamp AS latest_timestamp
FROM tokens t LEFT JOIN indexer_checkpoints c ON c.chain_id = t.chain_id WHERE t.address = $1`;

// Gap-filled candles as JSON text, built by PostgreSQL: one row per bucket start of the range
// (generate_series), the stored candle when there is one (a `candles_pkey` range scan), else
// the empty bucket. Up to 1,000 buckets (~180 KB) per chart: building them in Node cost more
// CPU than the whole query.
const CANDLES_JSON_SQL = `SELECT coalesce(string_agg(
  CASE WHEN c.bucket_start IS NULL
    THEN '{"bucket_start":' || g.b || ',"trade_count":0,"buy_count":0,"sell_count":0,"volume":"0","unique_trader_count":0,"open_price":null,"high_price":null,"low_price":null,"close_price":null}'
    ELSE json_build_object('bucket_start', c.bucket_start, 'trade_count', c.trade_count, 'buy_count', c.buy_count,
      'sell_count', c.sell_count, 'volume', c.volume::text, 'unique_trader_count', c.unique_trader_count,
      'open_price', c.open_price::text, 'high_price', c.high_price::text, 'low_price', c.low_price::text,
      'close_price', c.close_price::text)::text
  END, ',' ORDER BY g.b), '') AS candles
FROM generate_series($3::int8, $4::int8, $5::int8) AS g(b)
LEFT JOIN (SELECT * FROM candles WHERE token_address = $1 AND interval = $2 AND bucket_start BETWEEN $3 AND $4) c
  ON c.bucket_start = g.b`;

const SUPPORTED_INTERVALS_JSON = JSON.stringify(CANDLE_INTERVALS);

/**
 * The chart response of `token` for `interval` (docs/api.md "Chart") as JSON text: the `limit` most
 * recent buckets up to the bucket of the latest indexed block (`indexer_checkpoints`), oldest
 * first, never before the launch bucket, gap-filled (counts 0, volume "0", null prices), with
 * `interval` and `supported_intervals`. `null` when the token has no canonical launch.
 * Source: `tokens`, `indexer_checkpoints`, `candles` (maintained by the indexer for every
 * interval, with exact distinct trader counts).
 */
export async function getChartJson(
  db: ReadDb,
  options: { token: string; interval: CandleInterval; limit: number },
): Promise<string | null> {
  const bounds = await prepared<{ created_at: Int8; latest_timestamp: Int8 | null }>(
    db,
    "qapi_chart_bounds",
    BOUNDS_SQL,
    [options.token],
  );
  const row = bounds.rows[0];
  if (!row) return null;
  const launch = Number(row.created_at);
  const latest = row.latest_timestamp === null ? launch : Number(row.latest_timestamp);
  const { from, to, step } = chartRange(launch, latest, options.interval, options.limit);
  const result = await prepared<{ candles: string }>(db, "qapi_chart_candles_json", CANDLES_JSON_SQL, [
    options.token,
    options.interval,
    from,
    to,
    step,
  ]);
  const candles = result.rows[0]?.candles ?? "";
  return `{"interval":"${options.interval}","supported_intervals":${SUPPORTED_INTERVALS_JSON},"candles":[${candles}]}`;
}
