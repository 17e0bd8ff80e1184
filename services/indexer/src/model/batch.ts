// What one committed block range writes: each field is a read model's own rows or deltas, of the
// type its module in `read-models/` defines (the module also owns the accumulator that fills it
// and the SQL that writes it).
import type { ChainEventRow } from "../read-models/activity.js";
import type { CandleDelta, CandleTraderRow } from "../read-models/candles.js";
import type { CreatorDelta } from "../read-models/creators.js";
import type { EthUsdRow } from "../read-models/eth-usd.js";
import type { BalanceDelta } from "../read-models/holders.js";
import type { PositionDelta } from "../read-models/positions.js";
import type { NewTokenRow, TokenDelta } from "../read-models/tokens.js";
import type { TokenTraderDelta } from "../read-models/traders.js";
import type { TradeRow } from "../read-models/trades.js";
import type { BlockHeader } from "../rpc/rpc-client.js";

/** Everything one committed block range writes. */
export interface Batch {
  fromBlock: number;
  toBlock: number;
  /** Header of `toBlock`: the new checkpoint. */
  endHeader: BlockHeader;
  /** Headers to keep in `blocks` (reorg checks). */
  headers: BlockHeader[];
  /** `chain_events` rows (read-models/activity). */
  events: ChainEventRow[];
  /** `trades` rows (read-models/trades). */
  trades: TradeRow[];
  /** Launches: new `tokens` rows (read-models/tokens). */
  newTokens: NewTokenRow[];
  /** token → its change over the range (read-models/tokens). */
  tokenDeltas: Map<string, TokenDelta>;
  /** Net balance changes of holders (read-models/holders). */
  balances: BalanceDelta[];
  /** token|trader → the pair's first trade and long-interval buckets in the range (read-models/traders). */
  tokenTraders: Map<string, TokenTraderDelta>;
  /** token|trader → the position's change over the range (read-models/positions). */
  positions: Map<string, PositionDelta>;
  /** Per-bucket candle deltas (read-models/candles). */
  candles: CandleDelta[];
  /** Distinct traders per short-interval bucket (read-models/candles). */
  candleTraders: CandleTraderRow[];
  /** creator → change over the range (read-models/creators). */
  creators: Map<string, CreatorDelta>;
  /** ETH/USD answers (read-models/eth-usd). */
  ethUsd: EthUsdRow[];
}
