// The SQL text of read model `trades` (its rows and deltas: model/trades.ts): the statement
// parts that write a range's rows, composed by prepare-write.ts.
import { hideTradesSql } from "@tmi/shared/market";
import type { TradeRow } from "../model/trades.js";
import { type CopyTable, copyValue, type SqlParams, str } from "../sql/sql-text.js";

/** `trades` by COPY (append-only; a reorg removes the rows through the journal). */
export const TRADES_COPY: CopyTable<TradeRow> = {
  sql: "COPY trades (block_number, log_index, transaction_index, transaction_hash, block_timestamp, token_address, trader, side, source, token_amount, reserve_amount, curve_value, protocol_fee, creator_fee, price, curve_sold_supply, curve_reserve) FROM STDIN",
  line: (t) =>
    `${t.blockNumber}\t${t.logIndex}\t${t.transactionIndex}\t${t.transactionHash}\t${t.blockTimestamp}\t${t.tokenAddress}\t${t.trader}\t${t.side}\t${t.source}\t${t.tokenAmount}\t${t.reserveAmount}\t${t.curveValue}\t${t.protocolFee}\t${t.creatorFee}\t${copyValue(str(t.price))}\t${t.curveSoldSupply ?? "\\N"}\t${t.curveReserve ?? "\\N"}\n`,
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
