import type { TradeSide, TradeSource } from "@tmi/shared/market";
import type { BlockHeader } from "../rpc/rpc-client.js";
import type { CandleDelta, CandleTraderRow } from "./candles.js";

/** One row of `trades` (amounts in wei / token base units, price in wei per whole token). */
export interface TradeRow {
  blockNumber: number;
  logIndex: number;
  transactionIndex: number;
  transactionHash: string;
  blockTimestamp: number;
  tokenAddress: string;
  trader: string;
  side: TradeSide;
  source: TradeSource;
  tokenAmount: bigint;
  reserveAmount: bigint;
  curveValue: bigint;
  protocolFee: bigint;
  creatorFee: bigint;
  /** Post-trade price (curve: spotPrice() after the trade; pool: the swap's sqrtPriceX96 price). */
  price: bigint | null;
}

/** One row of `chain_events` (the activity log). `decoded` is the JSON text of the exact arguments. */
export interface ChainEventRow {
  blockNumber: number;
  logIndex: number;
  blockHash: string;
  blockTimestamp: number;
  transactionIndex: number;
  transactionHash: string;
  contractAddress: string;
  eventName: string;
  tokenAddress: string | null;
  decoded: string;
}

/** A launch: the new `tokens` row (curve state at launch, metrics zero). */
export interface NewTokenRow {
  address: string;
  creator: string;
  /** `name()` of the token, sanitized. */
  name: string;
  /** `symbol()` of the token, sanitized. */
  symbol: string;
  initialSupply: bigint;
  blockNumber: number;
  transactionIndex: number;
  transactionHash: string;
  logIndex: number;
  timestamp: number;
  curve: string;
  pool: string;
  tokenIsToken0: boolean;
  feeManager: string | null;
  graduationThreshold: bigint;
  /** spotPrice() at launch. */
  price: bigint;
}

/** `Graduated`: the curve closed (position = the API's `curve_terminal_at`). */
export interface GraduationChange {
  manager: string;
  tokenAmount: bigint;
  ethAmount: bigint;
  soldSupply: bigint;
  blockNumber: number;
  transactionHash: string;
  logIndex: number;
  timestamp: number;
}

/** `GraduatedV3`: the LP position minted (position = the API's `settled_at`). */
export interface SettlementChange {
  custodian: string;
  positionTokenId: bigint;
  liquidity: bigint;
  blockNumber: number;
  transactionHash: string;
  logIndex: number;
}

/** What a range changes on one token (counters add; the rest replace when set). */
export interface TokenDelta {
  tradeCount: number;
  buyCount: number;
  sellCount: number;
  /** Σ curve_value of the range's trades. */
  volume: bigint;
  /** Σ (protocol_fee + creator_fee). */
  fees: bigint;
  /** Curve state after the range's last curve trade (absolute). */
  curve: { soldSupply: bigint; reserveCoordinate: bigint } | null;
  /** Price after the range's last price-setting event (undefined: unchanged). */
  price: bigint | null | undefined;
  graduation: GraduationChange | null;
  settlement: SettlementChange | null;
  /** Residual escrow named by the range's `ResidualDeposited`. */
  escrow: string | null;
  /** Permanent LP fee vault named by the range's `PermanentLPFeesAccrued`. */
  feeVault: string | null;
  lastTradeSource: TradeSource | null;
  lastTradeBlock: number | null;
  latestTradeTimestamp: number | null;
  updatedBlock: number;
}

/** A trader of a token within a range (see {@link Batch.tokenTraders}). */
export interface TokenTraderDelta {
  tokenAddress: string;
  trader: string;
  firstBlock: number;
  firstBuckets: number[];
  lastBuckets: number[];
}

/**
 * One step of a position's average-cost fold (docs/api.md "Positions"): a sell, or a run of
 * consecutive buys merged into one (buys only add, so a run folds to its sums).
 */
export interface PositionStep {
  buy: boolean;
  /** Tokens bought or sold (base units). */
  tokens: bigint;
  /** `reserve_amount`: wei paid (buy) or received (sell). */
  reserve: bigint;
}

/**
 * What a range changes on one position (token, trader): sums and counts that add up, the first
 * and latest trade of the range, and the steps the stored (open_quantity, cost_basis,
 * realized_pnl) are folded through in chain order (`tmi_position_fold`).
 */
export interface PositionDelta {
  tokenAddress: string;
  trader: string;
  boughtTokens: bigint;
  boughtReserve: bigint;
  soldTokens: bigint;
  soldReserve: bigint;
  buyCount: number;
  sellCount: number;
  first: TradeRow;
  last: TradeRow;
  steps: PositionStep[];
}

/** Per-creator change of a range. */
export interface CreatorDelta {
  tokenCount: number;
  /** Σ curve_value of the creator's tokens' trades. */
  volume: bigint;
  updatedBlock: number;
}

/** A net balance change of one holder (never a platform contract) of one token over the range. */
export interface BalanceDelta {
  tokenAddress: string;
  holder: string;
  delta: bigint;
}

/** An `AnswerUpdated` of the ETH/USD feed. */
export interface EthUsdRow {
  blockNumber: number;
  logIndex: number;
  roundId: bigint;
  answer: bigint;
  updatedAt: bigint;
}

/** Everything one committed block range writes. */
export interface Batch {
  fromBlock: number;
  toBlock: number;
  /** Header of `toBlock`: the new checkpoint. */
  endHeader: BlockHeader;
  /** Headers to keep in `blocks` (reorg checks). */
  headers: BlockHeader[];
  events: ChainEventRow[];
  trades: TradeRow[];
  newTokens: NewTokenRow[];
  tokenDeltas: Map<string, TokenDelta>;
  balances: BalanceDelta[];
  /**
   * token|trader → first block in the range, and the first/last bucket of each long candle interval
   * (`LONG_INTERVALS`: 1h, 4h, 1d, 1w) in which the trader traded the token within the range.
   */
  tokenTraders: Map<string, TokenTraderDelta>;
  /** token|trader → the position's change over the range (trades in chain order). */
  positions: Map<string, PositionDelta>;
  candles: CandleDelta[];
  candleTraders: CandleTraderRow[];
  creators: Map<string, CreatorDelta>;
  ethUsd: EthUsdRow[];
}

/** A fresh token delta. */
export function emptyTokenDelta(block: number): TokenDelta {
  return {
    tradeCount: 0,
    buyCount: 0,
    sellCount: 0,
    volume: 0n,
    fees: 0n,
    curve: null,
    price: undefined,
    graduation: null,
    settlement: null,
    escrow: null,
    feeVault: null,
    lastTradeSource: null,
    lastTradeBlock: null,
    latestTradeTimestamp: null,
    updatedBlock: block,
  };
}
