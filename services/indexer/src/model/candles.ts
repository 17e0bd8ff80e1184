import { bucketStart, INTERVALS } from "./market-math.js";

/** The fields of a trade the candle aggregation needs. */
export interface CandleInput {
  tokenAddress: string;
  trader: string;
  side: "buy" | "sell";
  reserveAmount: bigint;
  price: bigint | null;
  blockTimestamp: number;
}

/** Aggregate of one (token, interval, bucket) over a set of trades, in chain order. */
export interface CandleDelta {
  tokenAddress: string;
  interval: string;
  bucketStart: number;
  tradeCount: number;
  buyCount: number;
  sellCount: number;
  volume: bigint;
  open: bigint | null;
  high: bigint | null;
  low: bigint | null;
  close: bigint | null;
}

/** A distinct trader of a bucket and the sides they took. */
export interface CandleTraderRow {
  tokenAddress: string;
  interval: string;
  bucketStart: number;
  trader: string;
  bought: boolean;
  sold: boolean;
}

/**
 * Aggregates trades (in chain order) into per-bucket candle deltas for every interval, and the
 * distinct traders per bucket. Merging a delta into an existing candle: counts and volume add,
 * open keeps the existing one (when set), close takes the delta's (when set), high/low extend;
 * unique traders grow by the number of trader rows that were new.
 */
export function aggregateCandles(trades: Iterable<CandleInput>): {
  candles: CandleDelta[];
  traders: CandleTraderRow[];
} {
  const candles = new Map<string, CandleDelta>();
  const traders = new Map<string, CandleTraderRow>();
  for (const trade of trades) {
    for (const [interval, seconds] of INTERVALS) {
      const start = bucketStart(trade.blockTimestamp, seconds);
      const key = `${trade.tokenAddress}|${interval}|${start}`;
      let c = candles.get(key);
      if (!c) {
        c = {
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
        };
        candles.set(key, c);
      }
      c.tradeCount++;
      if (trade.side === "buy") c.buyCount++;
      else c.sellCount++;
      c.volume += trade.reserveAmount;
      const p = trade.price;
      if (p !== null) {
        if (c.open === null) c.open = p;
        c.close = p;
        if (c.high === null || p > c.high) c.high = p;
        if (c.low === null || p < c.low) c.low = p;
      }
      const traderKey = `${key}|${trade.trader}`;
      let t = traders.get(traderKey);
      if (!t) {
        t = {
          tokenAddress: trade.tokenAddress,
          interval,
          bucketStart: start,
          trader: trade.trader,
          bought: false,
          sold: false,
        };
        traders.set(traderKey, t);
      }
      if (trade.side === "buy") t.bought = true;
      else t.sold = true;
    }
  }
  return { candles: [...candles.values()], traders: [...traders.values()] };
}
