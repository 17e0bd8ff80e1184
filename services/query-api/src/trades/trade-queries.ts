import type { EventPosition, PageOrder, PositionedRows } from "../common/route-helpers.js";
import { tradeReserveUsdSql } from "../common/usd-sql.js";
import { type Int8, prepared, type ReadDb } from "../db.js";
import type { Trade } from "./trade-schemas.js";

// Pages of trades: one statement shape (`tradesPageSql`) for a token's trades, a token's trades of
// one trader and a wallet's trades. A token's pages are a `LEFT JOIN LATERAL` from the token row,
// so one round trip tells an unknown token (no row) from a token without trades (one all-null
// row); they use the `(token_address, block_number DESC, transaction_index DESC, log_index DESC,
// transaction_hash DESC)` index forwards or backwards, the trader filter and wallet pages the
// `(trader, …)` one. `reserve_amount_usd`: the ETH/USD answer in force at the trade (a backward
// primary-key probe).

const TRADE_COLUMNS = `r.token_address, r.block_number, r.transaction_index, r.log_index, r.transaction_hash, r.trader,
  r.side, r.source, r.token_amount, r.reserve_amount, r.curve_value, r.protocol_fee, r.creator_fee,
  ${tradeReserveUsdSql("r")} AS reserve_amount_usd`;

/**
 * Statement of a trades page filtered by `where` (over `trades r`, parameters from `$1`), in
 * `order`, with the keyset position at `$k..$k+3` when `after`, the limit last.
 */
export function tradesPageSql(
  where: string,
  firstKeyParam: number,
  order: PageOrder,
  after: boolean,
): string {
  const cmp = order === "desc" ? "<" : ">";
  const dir = order === "desc" ? "DESC" : "ASC";
  const k = firstKeyParam;
  const keyset = after
    ? ` AND (r.block_number, r.transaction_index, r.log_index, r.transaction_hash) ${cmp} ($${k}::int8, $${k + 1}::int4, $${k + 2}::int4, $${k + 3}::text)`
    : "";
  return `SELECT ${TRADE_COLUMNS} FROM trades r WHERE ${where}${keyset}
  ORDER BY r.block_number ${dir}, r.transaction_index ${dir}, r.log_index ${dir}, r.transaction_hash ${dir}
  LIMIT $${after ? k + 4 : k}`;
}

/** A trades row as read by {@link tradesPageSql}. */
export interface TradePageRow {
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

/** Trades rows as wire Trades with their keyset positions. */
export function positionedTrades(rows: readonly TradePageRow[]): PositionedRows<Trade> {
  return {
    items: rows.map((row) => ({
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
    })),
    positions: rows.map((row) => [
      BigInt(row.block_number),
      row.transaction_index,
      row.log_index,
      row.transaction_hash,
    ]),
  };
}

/**
 * Trades of `token` (lowercase address) ordered by (block_number, transaction_index, log_index,
 * transaction_hash) in `order`, strictly after `after`, at most `take`. `null` when the token
 * has no canonical launch. `reserve_amount_usd` (addition): `reserve_amount` × the ETH/USD answer
 * in force at the trade's position, in the same statement. Source: `tokens`, `trades`, `eth_usd_answers`.
 */
export function listTrades(
  db: ReadDb,
  options: { token: string; order: PageOrder; after: EventPosition | null; take: number },
): Promise<PositionedRows<Trade> | null> {
  return tokenTradesPage(db, "qapi_trades", "r.token_address = $1", [options.token], options);
}

/**
 * Trades of `token` by `trader` (the `trader=` filter), same order and keyset as {@link listTrades}:
 * the trader's trades in order (`trades_trader_position_idx`) filtered by token, so the cost is
 * bounded by the trader's trades, not the token's. `null` when the token has no canonical launch. Source:
 * `tokens`, `trades`, `eth_usd_answers`.
 */
export function listTraderTrades(
  db: ReadDb,
  options: { token: string; trader: string; order: PageOrder; after: EventPosition | null; take: number },
): Promise<PositionedRows<Trade> | null> {
  const where = "r.token_address = $1 AND r.trader = $2";
  return tokenTradesPage(db, "qapi_trader_trades", where, [options.token, options.trader], options);
}

/** A token's page of trades matching `where` (parameters `values`, the token first); null for an unknown token. */
async function tokenTradesPage(
  db: ReadDb,
  name: string,
  where: string,
  values: unknown[],
  options: { order: PageOrder; after: EventPosition | null; take: number },
): Promise<PositionedRows<Trade> | null> {
  const { order, after, take } = options;
  const inner = tradesPageSql(where, values.length + 1, order, after !== null);
  const params = [...values];
  if (after) params.push(after[0].toString(), after[1], after[2], after[3]);
  params.push(take);
  const { rows } = await prepared<TradePageRow | { token_address: null }>(
    db,
    `${name}_${order}_${after ? "after" : "first"}`,
    `SELECT x.* FROM tokens t LEFT JOIN LATERAL (${inner}) x ON true WHERE t.address = $1`,
    params,
  );
  if (rows.length === 0) return null;
  return positionedTrades(rows.filter((r): r is TradePageRow => r.token_address !== null));
}
