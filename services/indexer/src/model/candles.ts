import { bucketStart, CANDLE_INTERVALS, INTERVAL_SECONDS } from "@tmi/shared/market";

const INTERVALS = CANDLE_INTERVALS.map((i) => [i, INTERVAL_SECONDS[i]] as const);

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

/** Aggregate of one (token, interval, bucket) over a set of trades, in chain order. */
export interface CandleDelta {
  tokenAddress: string;
  interval: string;
  bucketStart: number;
  tradeCount: number;
  buyCount: number;
  sellCount: number;
  /** Σ curve_value. */
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
  // Nested maps with numeric keys (bucket · 8 + interval index): no key strings per trade.
  interface Slot {
    candle: CandleDelta;
    traders: Map<string, CandleTraderRow>;
  }
  const byToken = new Map<string, Map<number, Slot>>();
  const slots: Slot[] = [];
  for (const trade of trades) {
    let perToken = byToken.get(trade.tokenAddress);
    if (!perToken) {
      perToken = new Map();
      byToken.set(trade.tokenAddress, perToken);
    }
    const buy = trade.side === "buy";
    const p = trade.price;
    for (let i = 0; i < INTERVALS.length; i++) {
      const [interval, seconds] = INTERVALS[i]!;
      const start = bucketStart(trade.blockTimestamp, seconds);
      const key = start * 8 + i;
      let slot = perToken.get(key);
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
          },
          traders: new Map(),
        };
        perToken.set(key, slot);
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
    }
  }
  const candles: CandleDelta[] = [];
  const traders: CandleTraderRow[] = [];
  for (const slot of slots) {
    candles.push(slot.candle);
    for (const t of slot.traders.values()) traders.push(t);
  }
  return { candles, traders };
}
