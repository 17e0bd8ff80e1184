import { valueAtPriceSql } from "@tmi/shared/market";
import { LATEST_ETH_USD_ANSWER_SQL, usdAmountSql } from "./usd-sql.js";

/**
 * SQL pieces of positions and holdings (docs/api.md "Wallets and traders"), over a `positions p`
 * row and its token `t`. The stored average-cost state is the indexer's (`positions`); what
 * depends on the token's `current_price` is computed here, per request, exactly:
 * `unrealized_pnl` = floor(open_quantity × current_price / 10^18) − cost_basis, `value` =
 * floor(balance × current_price / 10^18) (the value-at-price rule of `@tmi/shared/market`). A token without a price counts as price 0.
 */

/** floor(`qty` × current price of `t` / 10^18) (NUMERIC): the value-at-price rule of `@tmi/shared/market`, price 0 without one. */
export const valueAtCurrentPriceSql = (qty: string, t = "t") =>
  valueAtPriceSql(qty, `coalesce(${t}.current_price, 0)`);

/** `unrealized_pnl` of the position alias `p` at the current price of `t` (signed NUMERIC). */
export const unrealizedPnlSql = (p = "p", t = "t") =>
  `(${valueAtCurrentPriceSql(`${p}.open_quantity`, t)} - ${p}.cost_basis)`;

/** `pnl` of the position alias `p` at the current price of `t`: realized + unrealized (signed NUMERIC). */
export const pnlSql = (p = "p", t = "t") => `(${p}.realized_pnl + ${unrealizedPnlSql(p, t)})`;

/** `value_usd` of a wei expression at the latest indexed ETH/USD answer (null without an answer). */
export const latestUsdSql = (wei: string) => usdAmountSql(wei, LATEST_ETH_USD_ANSWER_SQL);

/** Columns of a position (alias `p`, token `t`) read by {@link positionFromRow}. */
export const POSITION_COLUMNS = (p = "p", t = "t") => `${p}.bought_tokens::text AS p_bought_tokens,
  ${p}.bought_reserve::text AS p_bought_reserve, ${p}.sold_tokens::text AS p_sold_tokens,
  ${p}.sold_reserve::text AS p_sold_reserve, ${p}.buy_count AS p_buy_count, ${p}.sell_count AS p_sell_count,
  ${p}.first_block_number::text AS p_first_block, ${p}.first_transaction_hash AS p_first_tx,
  ${p}.first_log_index AS p_first_log, ${p}.first_timestamp::text AS p_first_ts,
  ${p}.last_block_number::text AS p_last_block, ${p}.last_transaction_hash AS p_last_tx,
  ${p}.last_log_index AS p_last_log, ${p}.last_timestamp::text AS p_last_ts,
  ${p}.open_quantity::text AS p_open_quantity, ${p}.cost_basis::text AS p_cost_basis,
  ${p}.realized_pnl::text AS p_realized_pnl, ${unrealizedPnlSql(p, t)}::text AS p_unrealized_pnl,
  ${pnlSql(p, t)}::text AS p_pnl`;

/** A row carrying {@link POSITION_COLUMNS} (all null when the wallet never traded the token). */
export interface PositionColumns {
  p_bought_tokens: string | null;
  p_bought_reserve: string;
  p_sold_tokens: string;
  p_sold_reserve: string;
  p_buy_count: number;
  p_sell_count: number;
  p_first_block: string;
  p_first_tx: string;
  p_first_log: number;
  p_first_ts: string;
  p_last_block: string;
  p_last_tx: string;
  p_last_log: number;
  p_last_ts: string;
  p_open_quantity: string;
  p_cost_basis: string;
  p_realized_pnl: string;
  p_unrealized_pnl: string;
  p_pnl: string;
}

/** A trade's position on the wire: block, transaction hash, log index, block timestamp (Unix s). */
export interface TradePoint {
  block_number: number;
  transaction_hash: string;
  log_index: number;
  timestamp: number;
}

/** A position on the wire (docs/api.md "Positions"). Amounts: decimal strings, signed where noted. */
export interface PositionWire {
  bought_tokens: string;
  bought_reserve: string;
  sold_tokens: string;
  sold_reserve: string;
  buy_count: number;
  sell_count: number;
  first_trade: TradePoint;
  last_trade: TradePoint;
  open_quantity: string;
  cost_basis: string;
  realized_pnl: string;
  unrealized_pnl: string;
  pnl: string;
}

/** The position of a row with {@link POSITION_COLUMNS}; undefined when the row has none. */
export function positionFromRow(row: PositionColumns): PositionWire | undefined {
  if (row.p_bought_tokens === null) return undefined;
  return {
    bought_tokens: row.p_bought_tokens,
    bought_reserve: row.p_bought_reserve,
    sold_tokens: row.p_sold_tokens,
    sold_reserve: row.p_sold_reserve,
    buy_count: row.p_buy_count,
    sell_count: row.p_sell_count,
    first_trade: {
      block_number: Number(row.p_first_block),
      transaction_hash: row.p_first_tx,
      log_index: row.p_first_log,
      timestamp: Number(row.p_first_ts),
    },
    last_trade: {
      block_number: Number(row.p_last_block),
      transaction_hash: row.p_last_tx,
      log_index: row.p_last_log,
      timestamp: Number(row.p_last_ts),
    },
    open_quantity: row.p_open_quantity,
    cost_basis: row.p_cost_basis,
    realized_pnl: row.p_realized_pnl,
    unrealized_pnl: row.p_unrealized_pnl,
    pnl: row.p_pnl,
  };
}
