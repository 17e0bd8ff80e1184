// What one committed block range writes: each field is a read model's own rows or deltas, of the
// type its module `model/<model>.ts` defines (with the accumulator that fills it; the SQL that
// writes it is `prepare/<model>.ts`).

import type { BlockHeader } from "../rpc/rpc-client.js";
import type { ChainEventRow } from "./activity.js";
import type { CandleDelta, CandleTraderRow } from "./candles.js";
import type { CreatorDelta } from "./creators.js";
import type { EthUsdRow } from "./eth-usd.js";
import type { FeeDeltas } from "./fees.js";
import type { HolderHourChanges } from "./holder-history.js";
import type { BalanceDelta } from "./holders.js";
import type { PositionDelta } from "./positions.js";
import type { ProgressHighs } from "./progress.js";
import type { RewardRows } from "./rewards.js";
import type { RiskChanges } from "./risk.js";
import type { NewTokenRow, TokenDelta } from "./tokens.js";
import type { TokenTraderDelta } from "./traders.js";
import type { TradeRow } from "./trades.js";

/** Everything one committed block range writes. */
export interface Batch {
  fromBlock: number;
  toBlock: number;
  /** Header of `toBlock`: the new checkpoint. */
  endHeader: BlockHeader;
  /** Headers to keep in `blocks` (reorg checks). */
  headers: BlockHeader[];
  /** `chain_events` rows (model/activity). */
  events: ChainEventRow[];
  /** `trades` rows (model/trades). */
  trades: TradeRow[];
  /** Launches: new `tokens` rows (model/tokens). */
  newTokens: NewTokenRow[];
  /** token → its change over the range (model/tokens). */
  tokenDeltas: Map<string, TokenDelta>;
  /** Net balance changes of holders (model/holders). */
  balances: BalanceDelta[];
  /** token|holder|hour → the holder's balance change in that hour bucket (model/holder-history). */
  holderHours: HolderHourChanges;
  /** token|trader → the pair's first trade and long-interval buckets in the range (model/traders). */
  tokenTraders: Map<string, TokenTraderDelta>;
  /** token|trader → the position's change over the range (model/positions). */
  positions: Map<string, PositionDelta>;
  /** Per-bucket candle deltas (model/candles). */
  candles: CandleDelta[];
  /** Distinct traders per short-interval bucket (model/candles). */
  candleTraders: CandleTraderRow[];
  /** creator → change over the range (model/creators). */
  creators: Map<string, CreatorDelta>;
  /** token → its risk figures' change over the range (model/risk): every token a trade or Transfer touched. */
  risk: RiskChanges;
  /** token → the first trade reaching its highest curve progress in the range (model/progress). */
  progressHighs: ProgressHighs;
  /** ETH/USD answers (model/eth-usd). */
  ethUsd: EthUsdRow[];
  /** The fee economy's sums (model/fees). */
  fees: FeeDeltas;
  /** The trader-reward distributions and claims (model/rewards). */
  rewards: RewardRows;
}
