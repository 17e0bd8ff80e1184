// Read model `token_traders` (distinct traders per token): every trade (`RangeBuilder.trade`)
// names its trader with {@link addTokenTrader}; the candles of the range give each trader's first
// and last bucket of the long intervals. Offers the count of new traders per token (for
// `tokens.unique_trader_count`) and of traders already counted in a long bucket (for candles). Its CTEs: prepare/traders.ts.
import type { TraderBuckets } from "./candles.js";
import type { TradeRow } from "./trades.js";

/** A trader of a token within a range. */
export interface TokenTraderDelta {
  tokenAddress: string;
  trader: string;
  firstBlock: number;
  /** First bucket of each long interval (`LONG_INTERVALS`) in which the trader traded the token within the range. */
  firstBuckets: number[];
  /** Last bucket of each long interval. */
  lastBuckets: number[];
}

/** Records the trader of `trade` under `key` (token|trader) when it is the range's first trade of that pair. */
export function addTokenTrader(traders: Map<string, TokenTraderDelta>, key: string, trade: TradeRow): void {
  if (traders.has(key)) return;
  traders.set(key, {
    tokenAddress: trade.tokenAddress,
    trader: trade.trader,
    firstBlock: trade.blockNumber,
    firstBuckets: [],
    lastBuckets: [],
  });
}

/** Gives each trader of the range its first and last bucket of the long intervals (from `aggregateCandles`). */
export function setTraderBuckets(
  traders: Map<string, TokenTraderDelta>,
  buckets: Map<string, TraderBuckets>,
): void {
  for (const [key, tb] of buckets) {
    const tt = traders.get(key)!;
    tt.firstBuckets = tb.first;
    tt.lastBuckets = tb.last;
  }
}
