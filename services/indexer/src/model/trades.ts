// Read model `trades`: one row per curve trade (`TokensBought`/`TokensSold`) and pool `Swap`.
// Handlers add a row through `RangeBuilder.trade` ({@link tradeRow}); the range writes them with
// one COPY (prepare/trades.ts).
import type { TradeSide, TradeSource } from "@tmi/shared/market";

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
  /** Curve trades: the curve's soldSupply after the trade (base units); null for pool trades. */
  curveSoldSupply: bigint | null;
  /** Curve trades: the curve's reserveCoordinate after the trade (wei); null for pool trades. */
  curveReserve: bigint | null;
}

/** Where a trade stands in the chain: its event's position (the first five fields of {@link TradeRow}). */
export type TradePosition = Pick<
  TradeRow,
  "blockNumber" | "logIndex" | "transactionIndex" | "transactionHash" | "blockTimestamp"
>;

/**
 * The `trades` row of a trade of the event at `p`.
 * @dev positional arguments, no intermediate objects: this runs once per trade (hot path).
 */
export function tradeRow(
  p: TradePosition,
  tokenAddress: string,
  trader: string,
  side: TradeSide,
  source: TradeSource,
  tokenAmount: bigint,
  reserveAmount: bigint,
  curveValue: bigint,
  protocolFee: bigint,
  creatorFee: bigint,
  price: bigint | null,
  curveSoldSupply: bigint | null,
  curveReserve: bigint | null,
): TradeRow {
  return {
    blockNumber: p.blockNumber,
    logIndex: p.logIndex,
    transactionIndex: p.transactionIndex,
    transactionHash: p.transactionHash,
    blockTimestamp: p.blockTimestamp,
    tokenAddress,
    trader,
    side,
    source,
    tokenAmount,
    reserveAmount,
    curveValue,
    protocolFee,
    creatorFee,
    price,
    curveSoldSupply,
    curveReserve,
  };
}
