import { CHAIN_POSITION_KEY, type KeysetSource } from "../common/keyset-page.js";
import { tradeReserveUsdSql } from "../common/usd-sql.js";
import type { Int8 } from "../db.js";
import type { Trade } from "./trade-schemas.js";

/** Columns of a trade row (alias `r`), with `reserve_amount_usd`: the ETH/USD answer in force at the trade (a backward primary-key probe). */
const TRADE_COLUMNS = `r.token_address, r.block_number, r.transaction_index, r.log_index, r.transaction_hash, r.trader, r.side, r.source,
    r.token_amount, r.reserve_amount, r.curve_value, r.protocol_fee, r.creator_fee,
    ${tradeReserveUsdSql("r")} AS reserve_amount_usd`;

/**
 * The trades of one token (`$1`, lowercase), keyset-paged by chain position over the
 * `trades_token_position_idx` index `(token_address, block_number DESC, transaction_index DESC,
 * log_index DESC, transaction_hash DESC)`, forwards or backwards; a page of an unknown token is
 * `null` (the lateral join from `tokens`). Source: `tokens`, `trades`, `eth_usd_answers`.
 */
export const TOKEN_TRADES: KeysetSource = {
  name: "trades",
  select: TRADE_COLUMNS,
  from: "trades r",
  where: "r.token_address = $1",
  key: CHAIN_POSITION_KEY,
  parent: { from: "tokens t", where: "t.address = $1" },
};

/**
 * A token's trades by one trader (`$1` token, `$2` trader: the `trader=` filter), same order and
 * cursors as {@link TOKEN_TRADES}, over `trades_trader_position_idx` (the trader's trades in chain
 * order, filtered by token: the cost is bounded by the trader's trades, not the token's).
 */
export const TOKEN_TRADER_TRADES: KeysetSource = {
  ...TOKEN_TRADES,
  name: "trader_trades",
  where: "r.token_address = $1 AND r.trader = $2",
};

/**
 * A wallet's trades across all tokens (`$1` wallet), by chain position over
 * `trades_trader_position_idx`; with `source`, `$2` is the trade source.
 */
export function walletTradesSource(bySource: boolean): KeysetSource {
  return {
    name: bySource ? "wallet_trades_source" : "wallet_trades",
    select: TRADE_COLUMNS,
    from: "trades r",
    where: bySource ? "r.trader = $1 AND r.source = $2" : "r.trader = $1",
    key: CHAIN_POSITION_KEY,
  };
}

/**
 * The trade's token is visible to discovery: neither it nor its creator is excluded (docs/api.md
 * "Lists, search and exclusions"). Two key probes per row: the token's creator is looked up by
 * the token's primary key (a subplan); as a join of `tokens` to the excluded creators, the plan
 * materialized every token of every excluded creator and compared each row of the page with all
 * of them (a creator with 100k tokens excluded: 100k comparisons per row).
 */
const VISIBLE_TRADE = `NOT EXISTS (SELECT 1 FROM excluded_addresses x WHERE x.kind = 'token' AND x.address = r.token_address)
    AND NOT EXISTS (SELECT 1 FROM excluded_addresses x WHERE x.kind = 'creator'
      AND x.address = (SELECT xt.creator FROM tokens xt WHERE xt.address = r.token_address))`;

/**
 * Every token's trades (market-wide feed, `GET /api/v1/trades`), keyset-paged by chain position
 * over `trades_visible_position_idx` (the trades not `hidden`: excluded tokens' trades are not in
 * it, so they cost a page nothing; `@tmi/shared/market` "hidden-trades"), forwards or backwards;
 * each row is still checked against the exclusions (two primary-key probes), so a trade not yet
 * flagged is left out too. No filter parameter.
 * Source: `trades`, `tokens`, `excluded_addresses`, `eth_usd_answers`.
 */
export const MARKET_TRADES: KeysetSource = {
  name: "market_trades",
  select: TRADE_COLUMNS,
  from: "trades r",
  where: `NOT r.hidden AND ${VISIBLE_TRADE}`,
  key: CHAIN_POSITION_KEY,
};

/** {@link MARKET_TRADES} of one `source` (`$1`: `curve` or `uniswap_v3`), over `trades_visible_source_position_idx`. */
export const MARKET_TRADES_BY_SOURCE: KeysetSource = {
  ...MARKET_TRADES,
  name: "market_trades_source",
  where: `r.source = $1 AND NOT r.hidden AND ${VISIBLE_TRADE}`,
};

/** A row of a trades page ({@link TOKEN_TRADES}, {@link MARKET_TRADES}). */
export interface TradeRow extends Record<string, unknown> {
  token_address: string;
  block_number: Int8;
  transaction_index: number;
  log_index: number;
  transaction_hash: string;
  trader: string;
  side: "buy" | "sell";
  source: "curve" | "uniswap_v3";
  token_amount: string;
  reserve_amount: string;
  curve_value: string;
  protocol_fee: string;
  creator_fee: string;
  reserve_amount_usd: string | null;
}

/**
 * The wire Trade of a row. `reserve_amount_usd` (addition): `reserve_amount` × the ETH/USD
 * answer in force at the trade's position.
 */
export function tradeOf(row: TradeRow): Trade {
  return {
    token_address: row.token_address,
    trader: row.trader,
    side: row.side,
    token_amount: row.token_amount,
    reserve_amount: row.reserve_amount,
    curve_value: row.curve_value,
    protocol_fee: row.protocol_fee,
    creator_fee: row.creator_fee,
    source: row.source,
    block_number: Number(row.block_number),
    transaction_index: row.transaction_index,
    transaction_hash: row.transaction_hash,
    log_index: row.log_index,
    reserve_amount_usd: row.reserve_amount_usd,
  };
}
