import { CANDLE_INTERVALS } from "@tmi/shared/market";
import { DEFAULT_ETH_USD_DECIMALS } from "../../common/usd-schemas.js";
import { type Int8, prepared, type SqlReader } from "../../db.js";
import { type ChartWindowRequest, chartWindow } from "./chart-buckets.js";
import type { ChartCurrency } from "./chart-schemas.js";

const BOUNDS_SQL = `SELECT t.created_at, c.block_timestamp AS latest_timestamp
FROM tokens t LEFT JOIN indexer_checkpoints c ON c.chain_id = t.chain_id WHERE t.address = $1`;

// Gap-filled candles as JSON text, built by PostgreSQL: one row per bucket start of the range
// (generate_series), the stored candle when there is one (a `candles_pkey` range scan), else
// the empty bucket. Up to 1,000 buckets (~320 KB) per chart: building them in Node cost more
// CPU than the whole query. Each bucket is written by concatenation, compact (`{"key":value,…}`),
// which costs less than json_build_object (and its `" : "` layout) per bucket; an empty bucket
// is a constant around its start
// (docs/benchmarks.md "Charts: empty buckets as constants").

/** JSON string of a text expression, `null` when it is null. */
const jsonText = (text: string) => `coalesce('"' || ${text} || '"', 'null')`;

/** The fields of a stored candle `c` after `bucket_start`, in ETH (wei). */
const ETH_CANDLE_FIELDS = `',"trade_count":' || c.trade_count || ',"buy_count":' || c.buy_count
    || ',"sell_count":' || c.sell_count || ',"volume":"' || c.volume || '","buy_volume":"' || c.buy_volume
    || '","sell_volume":"' || c.sell_volume || '","unique_trader_count":' || c.unique_trader_count
    || ',"open_price":' || ${jsonText("c.open_price::text")} || ',"high_price":' || ${jsonText("c.high_price::text")}
    || ',"low_price":' || ${jsonText("c.low_price::text")} || ',"close_price":' || ${jsonText("c.close_price::text")}`;

/** The fields of an empty bucket after `bucket_start`, in the layout of {@link ETH_CANDLE_FIELDS}. */
const EMPTY_BUCKET_FIELDS = `,"trade_count":0,"buy_count":0,"sell_count":0,"volume":"0","buy_volume":"0","sell_volume":"0","unique_trader_count":0,"open_price":null,"high_price":null,"low_price":null,"close_price":null`;

const CANDLES_JSON_SQL = `SELECT coalesce(string_agg(
  CASE WHEN c.bucket_start IS NULL
    THEN '{"bucket_start":' || g.b || '${EMPTY_BUCKET_FIELDS}}'
    ELSE '{"bucket_start":' || g.b || ${ETH_CANDLE_FIELDS} || '}'
  END, ',' ORDER BY g.b), '') AS candles
FROM generate_series($3::int8, $4::int8, $5::int8) AS g(b)
LEFT JOIN (SELECT * FROM candles WHERE token_address = $1 AND interval = $2 AND bucket_start BETWEEN $3 AND $4) c
  ON c.bucket_start = g.b`;

// The same in USD, with the ETH/USD answer in force at each bucket's end (the latest positive
// answer whose round `updated_at` is before it) read from `eth_usd_buckets`: its rows of the
// range (one `eth_usd_buckets_pkey` range scan, at most one per bucket) carried forward over the
// buckets without one (a running max of [bucket_start, answer] keeps the last one's: one window over
// the buckets in their order, no second sort), and
// the row before the range for the buckets ahead of the range's first row (one backward probe,
// evaluated once). Multiplied in numeric like the other `usd` fields. Before: one LATERAL probe
// of `eth_usd_answers` per bucket (docs/benchmarks.md).
// Built by concatenation as the ETH chart; the factor
// `answer × 10^-(18 + decimals)` is computed once per bucket (`k`) instead of once per field
// (exact either way: numeric products keep every digit). docs/benchmarks.md "USD chart by
// concatenation". An empty bucket multiplies nothing: its fields are the constant of the ETH
// chart, then its `eth_usd`.
const USD_FACTOR = `'1e-${18 + DEFAULT_ETH_USD_DECIMALS}'::numeric`;
/** JSON string of `wei` in USD at the bucket's factor `u.k`. */
const usd = (wei: string) => jsonText(`trim_scale(${wei} * u.k)::text`);
/** A volume: "0" when zero, else its USD value. */
const usdVolume = (wei: string) => `CASE WHEN ${wei} = 0 THEN '"0"' ELSE ${usd(wei)} END`;
const USD_CANDLES_JSON_SQL = `WITH a AS (
  SELECT g.b, c.trade_count, c.buy_count, c.sell_count, c.volume, c.buy_volume, c.sell_volume,
         c.unique_trader_count, c.open_price, c.high_price, c.low_price, c.close_price,
         coalesce((max(CASE WHEN e.answer IS NOT NULL THEN ARRAY[e.bucket_start::numeric, e.answer] END)
           OVER (ORDER BY g.b))[2],
           (SELECT p.answer FROM eth_usd_buckets p WHERE p.interval = $2 AND p.bucket_start < $3
             ORDER BY p.bucket_start DESC LIMIT 1)) AS answer
  FROM generate_series($3::int8, $4::int8, $5::int8) AS g(b)
  LEFT JOIN (SELECT * FROM candles WHERE token_address = $1 AND interval = $2 AND bucket_start BETWEEN $3 AND $4) c
    ON c.bucket_start = g.b
  LEFT JOIN (SELECT bucket_start, answer FROM eth_usd_buckets WHERE interval = $2 AND bucket_start BETWEEN $3 AND $4) e
    ON e.bucket_start = g.b
), u AS (
  SELECT a.*, a.answer * ${USD_FACTOR} AS k FROM a
)
SELECT coalesce(string_agg('{"bucket_start":' || u.b || CASE WHEN u.trade_count IS NULL
    THEN '${EMPTY_BUCKET_FIELDS}'
    ELSE ',"trade_count":' || u.trade_count || ',"buy_count":' || u.buy_count
    || ',"sell_count":' || u.sell_count
    || ',"volume":' || ${usdVolume("u.volume")} || ',"buy_volume":' || ${usdVolume("u.buy_volume")}
    || ',"sell_volume":' || ${usdVolume("u.sell_volume")}
    || ',"unique_trader_count":' || u.unique_trader_count
    || ',"open_price":' || ${usd("u.open_price")} || ',"high_price":' || ${usd("u.high_price")}
    || ',"low_price":' || ${usd("u.low_price")} || ',"close_price":' || ${usd("u.close_price")}
    END
    || ',"eth_usd":' || ${jsonText(`trim_scale(u.answer * '1e-${DEFAULT_ETH_USD_DECIMALS}'::numeric)::text`)} || '}',
  ',' ORDER BY u.b), '') AS candles
FROM u`;

const SUPPORTED_INTERVALS_JSON = JSON.stringify(CANDLE_INTERVALS);

/**
 * The time bounds of a token's charts: its launch timestamp and the latest indexed block's (the
 * launch's before the first checkpoint), or null when no canonical launch is indexed. Source:
 * `tokens`, `indexer_checkpoints`.
 */
export async function readChartBounds(
  db: SqlReader,
  token: string,
): Promise<{ launch: number; latest: number } | null> {
  const bounds = await prepared<{ created_at: Int8; latest_timestamp: Int8 | null }>(
    db,
    "qapi_chart_bounds",
    BOUNDS_SQL,
    [token],
  );
  const row = bounds.rows[0];
  if (!row) return null;
  const launch = Number(row.created_at);
  return { launch, latest: row.latest_timestamp === null ? launch : Number(row.latest_timestamp) };
}

/**
 * The chart response of `token` (docs/api.md "Chart") as JSON text: the buckets of
 * {@link chartWindow} (by default the `limit` most recent up to the bucket of the latest indexed
 * block, `indexer_checkpoints`), oldest first, never before the launch bucket, gap-filled (counts
 * 0, volume "0", null prices), with `interval` and `supported_intervals`. `currency` `usd` adds
 * `"currency":"usd"` and gives prices and volume in USD with the ETH/USD answer in force at each
 * bucket's end (`eth_usd` per candle). `null` when the token has no canonical launch.
 * Source: `tokens`, `indexer_checkpoints`, `candles` (maintained by the indexer for every
 * interval, with exact distinct trader counts), `eth_usd_buckets` for USD.
 * @throws AppError `invalid_request` for a bad range (see {@link chartWindow}).
 */
export async function getChartJson(
  db: SqlReader,
  options: { token: string; window: ChartWindowRequest; currency: ChartCurrency },
): Promise<string | null> {
  const bounds = await readChartBounds(db, options.token);
  if (!bounds) return null;
  const window = chartWindow(bounds.launch, bounds.latest, options.window);
  const usd = options.currency === "usd";
  let candles = "";
  if (window) {
    const result = await prepared<{ candles: string }>(
      db,
      usd ? "qapi_chart_candles_usd_json" : "qapi_chart_candles_json",
      usd ? USD_CANDLES_JSON_SQL : CANDLES_JSON_SQL,
      [options.token, options.window.interval, window.from, window.to, window.step],
    );
    candles = result.rows[0]?.candles ?? "";
  }
  const head = `{"interval":"${options.window.interval}","supported_intervals":${SUPPORTED_INTERVALS_JSON}`;
  return `${head}${usd ? ',"currency":"usd"' : ""},"candles":[${candles}]}`;
}
