// Read model `candles` (and `candle_traders`): the range's trades aggregated per token, interval
// and bucket ({@link aggregateCandles}, after the handlers ran), merged into the stored buckets by
// one group of CTEs (`candles_*`).
import { bucketStart, CANDLE_INTERVALS } from "@tmi/shared/market";
import { type SqlParams, str, type UnnestColumn, unnestRows } from "../store/sql-text.js";

/**
 * Intervals whose distinct traders per bucket are stored (`candle_traders`, with the sides taken):
 * the ones the API's window statistics read. Index < this: stored rows; the rest are counted
 * through each trader's last bucket ({@link LONG_INTERVALS}).
 */
export const TRADER_ROW_INTERVALS = 3;

/** The long intervals counted through `token_traders.last_bucket_<interval>`, in that column order. */
export const LONG_INTERVALS = CANDLE_INTERVALS.slice(TRADER_ROW_INTERVALS);

/** The fields of a trade the candle aggregation needs. */
export interface CandleInput {
  tokenAddress: string;
  trader: string;
  side: "buy" | "sell";
  /** Volume of the trade: its `curve_value`. */
  curveValue: bigint;
  price: bigint | null;
  blockTimestamp: number;
}

/** One bucket of one interval of a token: the key of a candle and of its traders' rows. */
export interface CandleBucket {
  tokenAddress: string;
  interval: string;
  /** Unix seconds. */
  bucketStart: number;
}

/** Aggregate of one (token, interval, bucket) over a set of trades, in chain order. */
export interface CandleDelta extends CandleBucket {
  tradeCount: number;
  buyCount: number;
  sellCount: number;
  /** Σ curve_value. */
  volume: bigint;
  open: bigint | null;
  high: bigint | null;
  low: bigint | null;
  close: bigint | null;
  /**
   * Long intervals: distinct traders of the bucket within the range (those already counted in the
   * bucket by earlier ranges are subtracted at write time); short intervals: 0 (counted through
   * the `candle_traders` rows that were new).
   */
  rangeTraders: number;
}

/** A distinct trader of a bucket and the sides they took (short intervals only). */
export interface CandleTraderRow extends CandleBucket {
  trader: string;
  bought: boolean;
  sold: boolean;
}

/** First and last bucket of each long interval in which a trader traded a token within the range. */
export interface TraderBuckets {
  tokenAddress: string;
  trader: string;
  /** One per {@link LONG_INTERVALS}. */
  first: number[];
  last: number[];
}

/**
 * Aggregates trades (in chain order, so bucket starts never decrease) into per-bucket candle
 * deltas for every interval; the distinct traders per bucket of the short intervals
 * (`candle_traders` rows); and per (token, trader) the first and last bucket of each long interval.
 * Merging a delta into a stored candle: counts and volume add, open keeps the stored one (when
 * set), close takes the delta's (when set), high/low extend; unique traders grow by the new
 * `candle_traders` rows (short) or by `rangeTraders` minus the traders whose stored last bucket is
 * this bucket (long).
 */
export function aggregateCandles(trades: Iterable<CandleInput>): {
  candles: CandleDelta[];
  traders: CandleTraderRow[];
  traderBuckets: Map<string, TraderBuckets>;
} {
  // Nested maps with numeric keys (bucket · 8 + interval index): no key strings per trade.
  interface Slot {
    candle: CandleDelta;
    traders: Map<string, CandleTraderRow | null>;
  }
  const byToken = new Map<string, Map<number, Slot>>();
  const slots: Slot[] = [];
  const traderBuckets = new Map<string, TraderBuckets>();
  for (const trade of trades) {
    let perToken = byToken.get(trade.tokenAddress);
    if (!perToken) {
      perToken = new Map();
      byToken.set(trade.tokenAddress, perToken);
    }
    const key = `${trade.tokenAddress}|${trade.trader}`;
    let tb = traderBuckets.get(key);
    if (!tb) {
      tb = { tokenAddress: trade.tokenAddress, trader: trade.trader, first: [], last: [] };
      traderBuckets.set(key, tb);
    }
    const buy = trade.side === "buy";
    const p = trade.price;
    for (let i = 0; i < CANDLE_INTERVALS.length; i++) {
      const interval = CANDLE_INTERVALS[i]!;
      const start = bucketStart(trade.blockTimestamp, interval);
      const slotKey = start * 8 + i;
      let slot = perToken.get(slotKey);
      if (!slot) {
        slot = {
          candle: {
            tokenAddress: trade.tokenAddress,
            interval,
            bucketStart: start,
            tradeCount: 0,
            buyCount: 0,
            sellCount: 0,
            volume: 0n,
            open: null,
            high: null,
            low: null,
            close: null,
            rangeTraders: 0,
          },
          traders: new Map(),
        };
        perToken.set(slotKey, slot);
        slots.push(slot);
      }
      const c = slot.candle;
      c.tradeCount++;
      if (buy) c.buyCount++;
      else c.sellCount++;
      c.volume += trade.curveValue;
      if (p !== null) {
        if (c.open === null) c.open = p;
        c.close = p;
        if (c.high === null || p > c.high) c.high = p;
        if (c.low === null || p < c.low) c.low = p;
      }
      if (i < TRADER_ROW_INTERVALS) {
        let t = slot.traders.get(trade.trader);
        if (!t) {
          t = {
            tokenAddress: trade.tokenAddress,
            interval,
            bucketStart: start,
            trader: trade.trader,
            bought: false,
            sold: false,
          };
          slot.traders.set(trade.trader, t);
        }
        if (buy) t.bought = true;
        else t.sold = true;
      } else {
        const j = i - TRADER_ROW_INTERVALS;
        if (tb.first[j] === undefined) tb.first[j] = start;
        tb.last[j] = start;
        if (!slot.traders.has(trade.trader)) {
          slot.traders.set(trade.trader, null);
          c.rangeTraders++;
        }
      }
    }
  }
  const candles: CandleDelta[] = [];
  const traders: CandleTraderRow[] = [];
  for (const slot of slots) {
    candles.push(slot.candle);
    for (const t of slot.traders.values()) if (t) traders.push(t);
  }
  return { candles, traders, traderBuckets };
}

/** The key columns of both candle relations (as they are joined on): token `a`, interval `i`, bucket `b`. */
const BUCKET_KEY: Readonly<Record<string, UnnestColumn<CandleBucket>>> = {
  a: ["text", (r) => r.tokenAddress],
  i: ["text", (r) => r.interval],
  b: ["bigint", (r) => r.bucketStart],
};

/**
 * Candles (`candles`, `candle_traders`): the range's per-bucket deltas merged into the stored
 * buckets — counts and volume add, open kept, close replaced, high/low extended — and the bucket's
 * unique trader count grown exactly: short intervals by the `candle_traders` rows that were new
 * (rows that would not change are not written),
 * long intervals by the range's distinct traders minus those already counted there.
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
    LEFT JOIN candle_traders e
      ON e.token_address = d.a AND e.interval = d.i AND e.bucket_start = d.b AND e.trader = d.t)`,
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
                         unique_trader_count, open_price, high_price, low_price, close_price)
    SELECT c.a, c.i, c.b, c.tc, c.bc, c.sc, c.vol, coalesce(ctn.nt, 0) + c.rt - coalesce(ttd.n, 0), c.o, c.h, c.l, c.cl
    FROM ${unnestRows(q, cd, "c", {
      ...BUCKET_KEY,
      tc: ["int", (c) => c.tradeCount],
      bc: ["int", (c) => c.buyCount],
      sc: ["int", (c) => c.sellCount],
      vol: ["numeric", (c) => c.volume.toString()],
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
      unique_trader_count = candles.unique_trader_count + excluded.unique_trader_count,
      open_price = coalesce(candles.open_price, excluded.open_price),
      high_price = greatest(candles.high_price, excluded.high_price),
      low_price = least(candles.low_price, excluded.low_price),
      close_price = coalesce(excluded.close_price, candles.close_price))`,
  ];
}
