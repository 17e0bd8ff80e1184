import type { EventPosition, PageOrder, PositionedRows } from "../common/route-helpers.js";
import { tradeReserveUsdSql } from "../common/usd-sql.js";
import { type Int8, prepared, type ReadDb } from "../db.js";
import type { Trade } from "./trade-schemas.js";

// One page of a token's trades. Each statement is a `LEFT JOIN LATERAL` from the token row, so one
// round trip tells an unknown token (no row) from a token without trades (one all-null row). They
// use the `(token_address, block_number DESC, transaction_index DESC, log_index DESC,
// transaction_hash DESC)` index, forwards or backwards. `$1` token, keyset `$2..$5`, limit last.
// `reserve_amount_usd`: the ETH/USD answer in force at the trade (a backward primary-key probe).

const TRADES_DESC_FIRST_SQL = `SELECT x.* FROM tokens t LEFT JOIN LATERAL (
  SELECT r.block_number, r.transaction_index, r.log_index, r.transaction_hash, r.trader, r.side, r.source,
    r.token_amount, r.reserve_amount, r.curve_value, r.protocol_fee, r.creator_fee,
    ${tradeReserveUsdSql("r")} AS reserve_amount_usd
  FROM trades r WHERE r.token_address = $1
  ORDER BY r.block_number DESC, r.transaction_index DESC, r.log_index DESC, r.transaction_hash DESC
  LIMIT $2) x ON true WHERE t.address = $1`;

const TRADES_DESC_AFTER_SQL = `SELECT x.* FROM tokens t LEFT JOIN LATERAL (
  SELECT r.block_number, r.transaction_index, r.log_index, r.transaction_hash, r.trader, r.side, r.source,
    r.token_amount, r.reserve_amount, r.curve_value, r.protocol_fee, r.creator_fee,
    ${tradeReserveUsdSql("r")} AS reserve_amount_usd
  FROM trades r WHERE r.token_address = $1
    AND (r.block_number, r.transaction_index, r.log_index, r.transaction_hash) < ($2::int8, $3::int4, $4::int4, $5::text)
  ORDER BY r.block_number DESC, r.transaction_index DESC, r.log_index DESC, r.transaction_hash DESC
  LIMIT $6) x ON true WHERE t.address = $1`;

const TRADES_ASC_FIRST_SQL = `SELECT x.* FROM tokens t LEFT JOIN LATERAL (
  SELECT r.block_number, r.transaction_index, r.log_index, r.transaction_hash, r.trader, r.side, r.source,
    r.token_amount, r.reserve_amount, r.curve_value, r.protocol_fee, r.creator_fee,
    ${tradeReserveUsdSql("r")} AS reserve_amount_usd
  FROM trades r WHERE r.token_address = $1
  ORDER BY r.block_number ASC, r.transaction_index ASC, r.log_index ASC, r.transaction_hash ASC
  LIMIT $2) x ON true WHERE t.address = $1`;

const TRADES_ASC_AFTER_SQL = `SELECT x.* FROM tokens t LEFT JOIN LATERAL (
  SELECT r.block_number, r.transaction_index, r.log_index, r.transaction_hash, r.trader, r.side, r.source,
    r.token_amount, r.reserve_amount, r.curve_value, r.protocol_fee, r.creator_fee,
    ${tradeReserveUsdSql("r")} AS reserve_amount_usd
  FROM trades r WHERE r.token_address = $1
    AND (r.block_number, r.transaction_index, r.log_index, r.transaction_hash) > ($2::int8, $3::int4, $4::int4, $5::text)
  ORDER BY r.block_number ASC, r.transaction_index ASC, r.log_index ASC, r.transaction_hash ASC
  LIMIT $6) x ON true WHERE t.address = $1`;

interface TradeRow {
  block_number: Int8 | null;
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
 * Trades of `token` (lowercase address) ordered by (block_number, transaction_index, log_index,
 * transaction_hash) in `order`, strictly after `after`, at most `take`. `null` when the token
 * has no canonical launch. `reserve_amount_usd` (addition): `reserve_amount` × the ETH/USD answer
 * in force at the trade's position, in the same statement. Source: `tokens`, `trades`, `eth_usd_answers`.
 */
export async function listTrades(
  db: ReadDb,
  options: { token: string; order: PageOrder; after: EventPosition | null; take: number },
): Promise<PositionedRows<Trade> | null> {
  const { token, order, after, take } = options;
  const result =
    after === null
      ? await prepared<TradeRow>(
          db,
          `qapi_trades_${order}_first`,
          order === "desc" ? TRADES_DESC_FIRST_SQL : TRADES_ASC_FIRST_SQL,
          [token, take],
        )
      : await prepared<TradeRow>(
          db,
          `qapi_trades_${order}_after`,
          order === "desc" ? TRADES_DESC_AFTER_SQL : TRADES_ASC_AFTER_SQL,
          [token, after[0].toString(), after[1], after[2], after[3], take],
        );
  if (result.rows.length === 0) return null;
  const rows = result.rows.filter((row) => row.block_number !== null);
  return {
    items: rows.map((row) => ({
      token_address: token,
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
      BigInt(row.block_number as Int8),
      row.transaction_index,
      row.log_index,
      row.transaction_hash,
    ]),
  };
}
