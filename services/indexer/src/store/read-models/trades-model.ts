import type { Batch } from "../../model/batch.js";
import { copyChunks, copyValue, str } from "../sql-text.js";

/** COPY of `trades`. */
export const COPY_TRADES =
  "COPY trades (block_number, log_index, transaction_index, transaction_hash, block_timestamp, token_address, trader, side, source, token_amount, reserve_amount, curve_value, protocol_fee, creator_fee, price) FROM STDIN";

/** The COPY text of a range's trades (append-only; a reorg removes them through the journal). */
export function tradesCopy(batch: Batch): Promise<string[]> {
  return copyChunks(
    batch.trades,
    (t) =>
      `${t.blockNumber}\t${t.logIndex}\t${t.transactionIndex}\t${t.transactionHash}\t${t.blockTimestamp}\t${t.tokenAddress}\t${t.trader}\t${t.side}\t${t.source}\t${t.tokenAmount}\t${t.reserveAmount}\t${t.curveValue}\t${t.protocolFee}\t${t.creatorFee}\t${copyValue(str(t.price))}\n`,
  );
}
