// Read model `tokens`: a launch (`onTokenLaunched`) inserts the row; every other change of a range
// is one {@link TokenDelta} per token — trades through {@link addTokenTrade}, the curve state,
// graduation, settlement and platform contracts set by their handlers — applied by one CTE
// (`tokens_up`) that also takes the traders' and holders' counts as relations it is given (both
// statements: prepare/tokens.ts).
import type { TradeSource } from "@tmi/shared/market";
import type { TradeRow } from "./trades.js";

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
  /** The token. */
  address: string;
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
  /** Community vault named by the range's `CommunityLPFeesForwarded`. */
  communityVault: string | null;
  /** Trader-rewards vault named by the range's `TraderRewardsLPFeesForwarded`. */
  traderRewardsVault: string | null;
  lastTradeSource: TradeSource | null;
  lastTradeBlock: number | null;
  latestTradeTimestamp: number | null;
  updatedBlock: number;
}

/** A fresh token delta. */
function emptyTokenDelta(address: string, block: number): TokenDelta {
  return {
    address,
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
    communityVault: null,
    traderRewardsVault: null,
    lastTradeSource: null,
    lastTradeBlock: null,
    latestTradeTimestamp: null,
    updatedBlock: block,
  };
}

/** The range's delta of token `address` (created on first use; `updatedBlock` moves forward to `block`). */
export function tokenDelta(deltas: Map<string, TokenDelta>, address: string, block: number): TokenDelta {
  let d = deltas.get(address);
  if (!d) {
    d = emptyTokenDelta(address, block);
    deltas.set(address, d);
  }
  if (block > d.updatedBlock) d.updatedBlock = block;
  return d;
}

/** A trade's effect on its token: counts, volume (Σ curve_value), fees, latest trade and price. */
export function addTokenTrade(d: TokenDelta, trade: TradeRow): void {
  d.tradeCount++;
  if (trade.side === "buy") d.buyCount++;
  else d.sellCount++;
  d.volume += trade.curveValue;
  d.fees += trade.protocolFee + trade.creatorFee;
  d.lastTradeSource = trade.source;
  d.lastTradeBlock = trade.blockNumber;
  d.latestTradeTimestamp = trade.blockTimestamp;
  d.price = trade.price;
}
