import { formatFixed } from "@tmi/shared/codec";
import { prepared, type SqlReader } from "../db.js";

/** Decimals of every launched token and of WETH. */
const DECIMALS = 18;

/** `value` base units as whole units with 18 decimals, trailing zeros trimmed (`"0.5"`, `"12"`). */
export function wholeUnits(value: bigint): string {
  const text = formatFixed(value, DECIMALS);
  return text.includes(".") ? text.replace(/0+$/, "").replace(/\.$/, "") : text;
}

/** The last indexed block (`indexer_checkpoints`), or null before the indexer's first commit. */
export async function latestIndexedBlock(
  db: SqlReader,
): Promise<{ blockNumber: number; blockTimestamp: number } | null> {
  const { rows } = await prepared<{ block_number: string; block_timestamp: string }>(
    db,
    "qapi_dex_latest_block",
    "SELECT block_number::text, block_timestamp::text FROM indexer_checkpoints ORDER BY chain_id LIMIT 1",
    [],
  );
  const row = rows[0];
  return row ? { blockNumber: Number(row.block_number), blockTimestamp: Number(row.block_timestamp) } : null;
}

/** A token as the adapter's asset and pair need it (`tokens`). */
export interface DexTokenRow {
  address: string;
  name: string;
  symbol: string;
  initial_supply: string;
  curve_address: string;
  creator: string;
  created_block_number: string;
  created_at: string;
  created_transaction_hash: string;
}

const TOKEN_COLUMNS = `address, name, symbol, initial_supply::text, curve_address, creator,
  created_block_number::text, created_at::text, created_transaction_hash`;

/** The token at `address` (primary key), or null. Source: `tokens`. */
export async function tokenByAddress(db: SqlReader, address: string): Promise<DexTokenRow | null> {
  const { rows } = await prepared<DexTokenRow>(
    db,
    "qapi_dex_asset",
    `SELECT ${TOKEN_COLUMNS} FROM tokens WHERE address = $1`,
    [address],
  );
  return rows[0] ?? null;
}

/** The token whose curve is `curve` (`tokens_curve_address_key`), or null. Source: `tokens`. */
export async function tokenByCurve(db: SqlReader, curve: string): Promise<DexTokenRow | null> {
  const { rows } = await prepared<DexTokenRow>(
    db,
    "qapi_dex_pair",
    `SELECT ${TOKEN_COLUMNS} FROM tokens WHERE curve_address = $1`,
    [curve],
  );
  return rows[0] ?? null;
}

/** One curve trade with the curve's real reserves after it (base units, decimal strings). */
export interface DexTradeRow {
  block_number: string;
  block_timestamp: string;
  transaction_hash: string;
  transaction_index: number;
  log_index: number;
  trader: string;
  side: "buy" | "sell";
  curve_address: string;
  token_amount: string;
  reserve_amount: string;
  price: string | null;
  /** Tokens held by the curve after the trade: curve allocation − soldSupply; null when unknown. */
  reserve_token: string | null;
  /** ETH held by the curve after the trade: reserveCoordinate; null when unknown. */
  reserve_eth: string | null;
}

/**
 * The curve trades of blocks `from`..`to` (inclusive; the `trades` primary key's range), in chain
 * order, each with the curve's real reserves after it as the indexer stored them on the row
 * (`curve_sold_supply`, `curve_reserve`: the curve state after the trade), so the work is bounded
 * by the range, not by the tokens' histories. Tokens held = `graduation_threshold` (the curve
 * allocation) − soldSupply. Pool trades (after graduation) are left out. A row written without
 * the state (never by the indexer) has null reserves.
 */
const EVENTS_SQL = `SELECT r.block_number::text, r.block_timestamp::text, r.transaction_hash, r.transaction_index,
       r.log_index, r.trader, r.side, t.curve_address, r.token_amount::text, r.reserve_amount::text, r.price::text,
       (t.graduation_threshold - r.curve_sold_supply)::text AS reserve_token, r.curve_reserve::text AS reserve_eth
  FROM trades r JOIN tokens t ON t.address = r.token_address
 WHERE r.block_number BETWEEN $1::int8 AND $2::int8 AND r.source = 'curve'
 ORDER BY r.block_number, r.transaction_index, r.log_index`;

/** The curve trades of blocks `from`..`to` with reserves after each (see the statement above). */
export async function curveTradesInRange(db: SqlReader, from: number, to: number): Promise<DexTradeRow[]> {
  const { rows } = await prepared<DexTradeRow>(db, "qapi_dex_events", EVENTS_SQL, [String(from), String(to)]);
  return rows;
}
