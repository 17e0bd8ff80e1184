// Read model `trades`: one row per curve trade (`TokensBought`/`TokensSold`) and pool `Swap`.
// Handlers add a row through `RangeBuilder.trade`; the range writes them with one COPY.
import type { TradeSide, TradeSource } from "@tmi/shared/market";
import { copyChunks, copyValue, str } from "../store/sql-text.js";

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

/** COPY of `trades`. */
export const COPY_TRADES =
  "COPY trades (block_number, log_index, transaction_index, transaction_hash, block_timestamp, token_address, trader, side, source, token_amount, reserve_amount, curve_value, protocol_fee, creator_fee, price) FROM STDIN";

/** The COPY text of a range's trades (append-only; a reorg removes them through the journal). */
export function tradesCopy(trades: TradeRow[]): Promise<string[]> {
  return copyChunks(
    trades,
    (t) =>
      `${t.blockNumber}\t${t.logIndex}\t${t.transactionIndex}\t${t.transactionHash}\t${t.blockTimestamp}\t${t.tokenAddress}\t${t.trader}\t${t.side}\t${t.source}\t${t.tokenAmount}\t${t.reserveAmount}\t${t.curveValue}\t${t.protocolFee}\t${t.creatorFee}\t${copyValue(str(t.price))}\n`,
  );
}
