import { type Int8, prepared, type ReadDb } from "../db.js";
import type { Candle, ChartInterval } from "../schemas.js";
import { chartRange } from "./chart-buckets.js";

interface CandleRow {
  bucket_start: Int8;
  trade_count: number;
  buy_count: number;
  sell_count: number;
  volume: string;
  unique_trader_count: number;
  open_price: string | null;
  high_price: string | null;
  low_price: string | null;
  close_price: string | null;
}

const BOUNDS_SQL = `SELECT t.created_at, c.block_timestamp AS latest_timestamp
FROM tokens t LEFT JOIN indexer_checkpoints c ON c.chain_id = t.chain_id WHERE t.address = $1`;

const CANDLES_SQL = `SELECT bucket_start, trade_count, buy_count, sell_count, volume, unique_trader_count,
  open_price, high_price, low_price, close_price
FROM candles WHERE token_address = $1 AND interval = $2 AND bucket_start BETWEEN $3 AND $4 ORDER BY bucket_start`;

/**
 * Candles of `token` for `interval` (DESIGN.md §5): the `limit` most recent buckets up to the
 * bucket of the latest indexed block (`indexer_checkpoints`), oldest first, never before the
 * launch bucket, gap-filled (counts 0, volume "0", null prices). `null` when the token has no
 * canonical launch. Source: `tokens`, `indexer_checkpoints`, `candles` (maintained by the
 * indexer for every interval, with exact distinct trader counts).
 */
export async function getCandles(
  db: ReadDb,
  options: { token: string; interval: ChartInterval; limit: number },
): Promise<Candle[] | null> {
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
  const result = await prepared<CandleRow>(db, "qapi_chart_candles", CANDLES_SQL, [
    options.token,
    options.interval,
    from,
    to,
  ]);
  const byStart = new Map<number, CandleRow>();
  for (const candle of result.rows) byStart.set(Number(candle.bucket_start), candle);
  const candles: Candle[] = [];
  for (let start = from; start <= to; start += step) {
    const candle = byStart.get(start);
    candles.push(
      candle
        ? {
            bucket_start: start,
            trade_count: candle.trade_count,
            buy_count: candle.buy_count,
            sell_count: candle.sell_count,
            volume: candle.volume,
            unique_trader_count: candle.unique_trader_count,
            open_price: candle.open_price,
            high_price: candle.high_price,
            low_price: candle.low_price,
            close_price: candle.close_price,
          }
        : {
            bucket_start: start,
            trade_count: 0,
            buy_count: 0,
            sell_count: 0,
            volume: "0",
            unique_trader_count: 0,
            open_price: null,
            high_price: null,
            low_price: null,
            close_price: null,
          },
    );
  }
  return candles;
}
