// Read model `trades`: one row per curve trade (`TokensBought`/`TokensSold`) and pool `Swap`.
// Handlers add a row through `RangeBuilder.trade` ({@link tradeRow}); the range writes them with
// one COPY ({@link TRADES_COPY}).
import { hideTradesSql, type TradeSide, type TradeSource } from "@tmi/shared/market";
import { type CopyTable, copyValue, type SqlParams, str } from "../store/sql-text.js";

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
  };
}

/** `trades` by COPY (append-only; a reorg removes the rows through the journal). */
export const TRADES_COPY: CopyTable<TradeRow> = {
  sql: "COPY trades (block_number, log_index, transaction_index, transaction_hash, block_timestamp, token_address, trader, side, source, token_amount, reserve_amount, curve_value, protocol_fee, creator_fee, price) FROM STDIN",
  line: (t) =>
    `${t.blockNumber}\t${t.logIndex}\t${t.transactionIndex}\t${t.transactionHash}\t${t.blockTimestamp}\t${t.tokenAddress}\t${t.trader}\t${t.side}\t${t.source}\t${t.tokenAmount}\t${t.reserveAmount}\t${t.curveValue}\t${t.protocolFee}\t${t.creatorFee}\t${copyValue(str(t.price))}\n`,
};

/**
 * CTE of the read-model statement that hides the range's trades of the tokens excluded from
 * discovery (`trades.hidden`, the rule of `hideTradesSql` in `@tmi/shared/market`): the range's
 * trades are copied not hidden, then the ones of excluded tokens and creators (new tokens of the
 * range included) are flagged, so the market-wide feed's indexes never hold them. Nothing to do
 * without exclusions.
 */
export function hiddenTradesCte(fromBlock: number, toBlock: number, q: SqlParams): string {
  return `hidden_trades AS (
    ${hideTradesSql(`r.block_number >= ${q.p(fromBlock, "bigint")} AND r.block_number <= ${q.p(toBlock, "bigint")}`)})`;
}
