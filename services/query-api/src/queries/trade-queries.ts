import { type Int8, prepared, type ReadDb } from "../db.js";
import { tradeReserveUsdSql } from "../features/usd/usd-sql.js";
import type { ActivityItem, Trade } from "../schemas.js";

/** Keyset position of a trade or chain event: (block_number, transaction_index, log_index, transaction_hash). */
export type EventPosition = [bigint, number, number, string];

/** Ordering of a trades or activity page: `desc` newest first, `asc` oldest first. */
export type PageOrder = "asc" | "desc";

/**
 * SQL of one page of rows of `table` for token `$1`, by position, in `order`, after `$2..$5`
 * (when `keyset`), at most `$n` rows. The page is a `LEFT JOIN LATERAL` from the token row, so
 * one round trip tells an unknown token (no row) from a token without rows (one all-null row).
 * Uses the `(token_address, block_number DESC, transaction_index DESC, log_index DESC,
 * transaction_hash DESC)` index of both tables, forwards or backwards.
 */
function pageSql(
  table: "trades" | "chain_events",
  columns: string,
  order: PageOrder,
  keyset: boolean,
): string {
  const dir = order === "desc" ? "DESC" : "ASC";
  const cmp = order === "desc" ? "<" : ">";
  const limit = keyset ? "$6" : "$2";
  const after = keyset
    ? ` AND (r.block_number, r.transaction_index, r.log_index, r.transaction_hash) ${cmp} ($2::int8, $3::int4, $4::int4, $5::text)`
    : "";
  return `SELECT x.* FROM tokens t LEFT JOIN LATERAL (
    SELECT ${columns} FROM ${table} r WHERE r.token_address = $1${after}
    ORDER BY r.block_number ${dir}, r.transaction_index ${dir}, r.log_index ${dir}, r.transaction_hash ${dir}
    LIMIT ${limit}) x ON true WHERE t.address = $1`;
}

const TRADE_COLUMNS = `r.block_number, r.transaction_index, r.log_index, r.transaction_hash, r.trader, r.side, r.source,
  r.token_amount, r.reserve_amount, r.curve_value, r.protocol_fee, r.creator_fee,
  ${tradeReserveUsdSql("r")} AS reserve_amount_usd`;
const ACTIVITY_COLUMNS =
  "r.block_number, r.transaction_index, r.log_index, r.transaction_hash, r.event_name, r.decoded";

const SQL = {
  trades: {
    desc: [pageSql("trades", TRADE_COLUMNS, "desc", false), pageSql("trades", TRADE_COLUMNS, "desc", true)],
    asc: [pageSql("trades", TRADE_COLUMNS, "asc", false), pageSql("trades", TRADE_COLUMNS, "asc", true)],
  },
  chain_events: {
    desc: [
      pageSql("chain_events", ACTIVITY_COLUMNS, "desc", false),
      pageSql("chain_events", ACTIVITY_COLUMNS, "desc", true),
    ],
    asc: [
      pageSql("chain_events", ACTIVITY_COLUMNS, "asc", false),
      pageSql("chain_events", ACTIVITY_COLUMNS, "asc", true),
    ],
  },
} as const;

interface PositionRow {
  block_number: Int8 | null;
  transaction_index: number;
  log_index: number;
  transaction_hash: string;
}

interface TradeRow extends PositionRow {
  trader: string;
  side: "buy" | "sell";
  source: "curve" | "dex_v3";
  token_amount: string;
  reserve_amount: string;
  curve_value: string;
  protocol_fee: string;
  creator_fee: string;
  reserve_amount_usd: string | null;
}

interface ActivityRow extends PositionRow {
  event_name: string;
  decoded: Record<string, unknown>;
}

/** Rows of one page plus the position of each (for cursors); `null` when the token is unknown. */
export interface PositionedRows<T> {
  items: T[];
  positions: EventPosition[];
}

async function page<R extends PositionRow>(
  db: ReadDb,
  table: "trades" | "chain_events",
  options: { token: string; order: PageOrder; after: EventPosition | null; take: number },
): Promise<{ rows: R[] } | null> {
  const sql = SQL[table][options.order][options.after === null ? 0 : 1];
  const values: unknown[] =
    options.after === null
      ? [options.token, options.take]
      : [
          options.token,
          options.after[0].toString(),
          options.after[1],
          options.after[2],
          options.after[3],
          options.take,
        ];
  const result = await prepared<R>(
    db,
    `qapi_${table}_${options.order}_${options.after === null ? "first" : "after"}`,
    sql,
    values,
  );
  if (result.rows.length === 0) return null;
  return { rows: result.rows.filter((row) => row.block_number !== null) };
}

function positionOf(row: PositionRow): EventPosition {
  return [BigInt(row.block_number as Int8), row.transaction_index, row.log_index, row.transaction_hash];
}

/**
 * Trades of `token` (lowercase address) ordered by (block_number, transaction_index, log_index,
 * transaction_hash) in `order`, strictly after `after`, at most `take`. `null` when the token
 * has no canonical launch. `reserve_amount_usd` (addition): `reserve_amount` × the ETH/USD answer
 * in force at the trade's position (a primary-key probe of `eth_usd_answers` per row, in the same
 * statement). Source: `trades`, `eth_usd_answers`.
 */
export async function listTrades(
  db: ReadDb,
  options: { token: string; order: PageOrder; after: EventPosition | null; take: number },
): Promise<PositionedRows<Trade> | null> {
  const result = await page<TradeRow>(db, "trades", options);
  if (result === null) return null;
  return {
    items: result.rows.map((row) => ({
      token_address: options.token,
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
    positions: result.rows.map(positionOf),
  };
}

/**
 * Canonical decoded chain events of `token` (launchpad events, the token's `Transfer`s, its
 * pool's `Swap`s: every `chain_events` row whose `token_address` is the token), ordered and
 * paged like {@link listTrades}. `null` when the token has no canonical launch. Source: `chain_events`.
 */
export async function listActivity(
  db: ReadDb,
  options: { token: string; order: PageOrder; after: EventPosition | null; take: number },
): Promise<PositionedRows<ActivityItem> | null> {
  const result = await page<ActivityRow>(db, "chain_events", options);
  if (result === null) return null;
  return {
    items: result.rows.map((row) => ({
      event_name: row.event_name,
      decoded: row.decoded,
      block_number: Number(row.block_number),
      transaction_index: row.transaction_index,
      transaction_hash: row.transaction_hash,
      log_index: row.log_index,
    })),
    positions: result.rows.map(positionOf),
  };
}
