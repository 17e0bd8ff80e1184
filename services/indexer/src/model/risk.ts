// Read models `token_risk` and `token_cohorts` (docs/api.md "Risk and all-time high"): what a range
// adds to a token's creator figures, dev buy, cohorts, concentration and all-time high. Handlers
// reach it through `RangeBuilder.trade` and `RangeBuilder.balance` (every `Transfer`); its SQL:
// prepare/risk.ts.
import { isExcludedHolder, type TokenPlatformContracts } from "@tmi/shared/market";
import type { TokenInfo } from "./known-state.js";
import type { TradeRow } from "./trades.js";

/** Blocks after the launch block in which a first buy makes a sniper (`launch_block + 2`). */
export const SNIPER_WINDOW_BLOCKS = 2;

const ZERO_ADDRESS = "0x0000000000000000000000000000000000000000";

/**
 * A candidate sniper: a wallet (not the creator) whose first trade of the token in the range is a
 * buy within the sniper window. It is a sniper when that trade is also its first trade of the
 * token ever (the stored position had none: checked by the write).
 */
export interface SniperCandidate {
  wallet: string;
  /** The first buy is in the launch block itself (a launch-block buyer). */
  launchBlock: boolean;
}

/** What one range changes on one token's risk figures (amounts in token base units, reserve in wei). */
export interface RiskDelta {
  tokenAddress: string;
  /** Σ `Transfer`s of the range from the creator to non-platform addresses other than itself. */
  creatorTransferredOut: bigint;
  /** The creator's buys of the range before the range's first trade of another address. */
  devBuyTokens: bigint;
  devBuyReserve: bigint;
  devBuyCount: number;
  /** The range holds a trade of another address than the creator (the dev buy ends there). */
  otherTraded: boolean;
  /** Net change of the Σ of holders' balances. */
  holdersDelta: bigint;
  /** Net change of the Σ of the token's platform contracts' balances (zero address excluded). */
  platformDelta: bigint;
  /** Wallets whose first trade of the range was seen (the sniper rule looks at first trades only). */
  seen: Set<string>;
  snipers: SniperCandidate[];
  /** insider wallet → Σ received from the creator in the range. */
  insiders: Map<string, bigint>;
  /** The range's highest trade price (the first trade reaching it), or null. */
  ath: { price: bigint; blockNumber: number; logIndex: number; timestamp: number } | null;
}

/** token → its risk delta of the range. */
export type RiskChanges = Map<string, RiskDelta>;

/** The token's risk delta of the range (created on first use). */
export function riskDelta(changes: RiskChanges, token: string): RiskDelta {
  let d = changes.get(token);
  if (!d) {
    d = {
      tokenAddress: token,
      creatorTransferredOut: 0n,
      devBuyTokens: 0n,
      devBuyReserve: 0n,
      devBuyCount: 0,
      otherTraded: false,
      holdersDelta: 0n,
      platformDelta: 0n,
      seen: new Set(),
      snipers: [],
      insiders: new Map(),
      ath: null,
    };
    changes.set(token, d);
  }
  return d;
}

/**
 * Adds a trade (the next in chain order) of a token with `info`: dev buy, sniper candidate,
 * all-time high.
 */
export function addRiskTrade(changes: RiskChanges, info: TokenInfo, trade: TradeRow): void {
  const d = riskDelta(changes, info.address);
  const buy = trade.side === "buy";
  if (trade.trader === info.creator) {
    if (buy && !d.otherTraded) {
      d.devBuyTokens += trade.tokenAmount;
      d.devBuyReserve += trade.reserveAmount;
      d.devBuyCount++;
    }
  } else {
    d.otherTraded = true;
    if (trade.blockNumber <= info.launchBlock + SNIPER_WINDOW_BLOCKS && !d.seen.has(trade.trader)) {
      d.seen.add(trade.trader);
      if (buy) d.snipers.push({ wallet: trade.trader, launchBlock: trade.blockNumber === info.launchBlock });
    }
  }
  if (trade.price !== null && (d.ath === null || trade.price > d.ath.price))
    d.ath = {
      price: trade.price,
      blockNumber: trade.blockNumber,
      logIndex: trade.logIndex,
      timestamp: trade.blockTimestamp,
    };
}

/**
 * Adds one side of a `Transfer` of the token of `contracts` (`amount` negative for the sender):
 * the Σ of holders' or of platform contracts' balances (`isExcludedHolder`; the zero address
 * counts in neither).
 */
export function addRiskBalance(
  changes: RiskChanges,
  contracts: TokenPlatformContracts,
  factory: string,
  holder: string,
  amount: bigint,
): void {
  if (amount === 0n || holder === ZERO_ADDRESS) return;
  const d = riskDelta(changes, contracts.address);
  if (isExcludedHolder(holder, contracts, factory)) d.platformDelta += amount;
  else d.holdersDelta += amount;
}

/**
 * Adds a `Transfer` of `value` from `from` to `to` of the token with `info`: when the creator sends
 * to an address that is neither itself nor a platform contract, the creator's transfers out and the
 * receiver's insider receipts grow. (A trade's token leg from the creator goes to its curve or pool,
 * platform contracts, so these are exactly the creator's transfers that are not part of a trade.)
 */
export function addRiskTransfer(
  changes: RiskChanges,
  info: TokenInfo,
  factory: string,
  from: string,
  to: string,
  value: bigint,
): void {
  if (from !== info.creator || to === info.creator || value === 0n || isExcludedHolder(to, info, factory))
    return;
  const d = riskDelta(changes, info.address);
  d.creatorTransferredOut += value;
  d.insiders.set(to, (d.insiders.get(to) ?? 0n) + value);
}
