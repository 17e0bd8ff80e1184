// Read model `positions` (one row per token and trader; docs/api.md "Positions"): every trade
// (`RangeBuilder.trade`) adds to its position's delta with {@link addPositionTrade}; the range's
// deltas are folded into the stored rows by one group of CTEs (`positions_*`, prepare/positions.ts).
import type { TradeRow } from "./trades.js";

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

/**
 * Adds a trade (the next in chain order) to its position's delta under `key` (token|trader):
 * sums, counts, first/latest trade, and a fold step — a sell, or the buy merged into a directly
 * preceding buy step.
 */
export function addPositionTrade(positions: Map<string, PositionDelta>, key: string, trade: TradeRow): void {
  let p = positions.get(key);
  if (!p) {
    p = {
      tokenAddress: trade.tokenAddress,
      trader: trade.trader,
      boughtTokens: 0n,
      boughtReserve: 0n,
      soldTokens: 0n,
      soldReserve: 0n,
      buyCount: 0,
      sellCount: 0,
      first: trade,
      last: trade,
      steps: [],
    };
    positions.set(key, p);
  }
  p.last = trade;
  const buy = trade.side === "buy";
  if (buy) {
    p.boughtTokens += trade.tokenAmount;
    p.boughtReserve += trade.reserveAmount;
    p.buyCount++;
  } else {
    p.soldTokens += trade.tokenAmount;
    p.soldReserve += trade.reserveAmount;
    p.sellCount++;
  }
  const prev = p.steps[p.steps.length - 1];
  if (buy && prev?.buy) {
    prev.tokens += trade.tokenAmount;
    prev.reserve += trade.reserveAmount;
  } else {
    p.steps.push({ buy, tokens: trade.tokenAmount, reserve: trade.reserveAmount });
  }
}
