// Read model `candles` (and `candle_traders`): the range's trades aggregated per token, interval
// and bucket ({@link aggregateCandles}, after the handlers ran), merged into the stored buckets by
// one group of CTEs (`candles_*`, prepare/candles.ts).
import { bucketStart, CANDLE_INTERVALS } from "@tmi/shared/market";

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
  /** Σ curve_value of the buys (wei). */
  buyVolume: bigint;
  /** Σ curve_value of the sells (wei). */
  sellVolume: bigint;
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
            buyVolume: 0n,
            sellVolume: 0n,
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
      if (buy) {
        c.buyCount++;
        c.buyVolume += trade.curveValue;
      } else {
        c.sellCount++;
        c.sellVolume += trade.curveValue;
      }
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
