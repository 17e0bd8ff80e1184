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
  /** Tokens held by the curve after the trade: curve allocation − soldSupply. */
  reserve_token: string;
  /** ETH held by the curve after the trade: reserveCoordinate. */
  reserve_eth: string;
}

/**
 * The curve trades of blocks `from`..`to` (inclusive; the `trades` primary key's range), in chain
 * order, each with the curve's real reserves after it: soldSupply and reserveCoordinate are the
 * running sums of the token's curve trades (a buy adds token_amount and curve_value, a sell takes
 * them back, as the indexer moves the curve state), the sums before `from` read per token touched
 * (`trades_token_position_idx`). Tokens held = `graduation_threshold` (the curve allocation) −
 * soldSupply. Pool trades (after graduation) are left out.
 */
const EVENTS_SQL = `WITH r AS (
  SELECT block_number, block_timestamp, transaction_hash, transaction_index, log_index, trader, side,
         token_address, token_amount, reserve_amount, curve_value, price
    FROM trades WHERE block_number BETWEEN $1::int8 AND $2::int8 AND source = 'curve'
), base AS (
  SELECT k.token_address,
         coalesce(sum(CASE WHEN p.side = 'buy' THEN p.token_amount ELSE -p.token_amount END), 0) AS sold,
         coalesce(sum(CASE WHEN p.side = 'buy' THEN p.curve_value ELSE -p.curve_value END), 0) AS eth
    FROM (SELECT DISTINCT token_address FROM r) k
    LEFT JOIN trades p ON p.token_address = k.token_address AND p.block_number < $1::int8 AND p.source = 'curve'
   GROUP BY k.token_address
)
SELECT r.block_number::text, r.block_timestamp::text, r.transaction_hash, r.transaction_index, r.log_index,
       r.trader, r.side, t.curve_address, r.token_amount::text, r.reserve_amount::text, r.price::text,
       (t.graduation_threshold - b.sold
         - sum(CASE WHEN r.side = 'buy' THEN r.token_amount ELSE -r.token_amount END) OVER w)::text AS reserve_token,
       (b.eth + sum(CASE WHEN r.side = 'buy' THEN r.curve_value ELSE -r.curve_value END) OVER w)::text AS reserve_eth
  FROM r JOIN base b ON b.token_address = r.token_address JOIN tokens t ON t.address = r.token_address
WINDOW w AS (PARTITION BY r.token_address ORDER BY r.block_number, r.log_index ROWS UNBOUNDED PRECEDING)
 ORDER BY r.block_number, r.transaction_index, r.log_index`;

/** The curve trades of blocks `from`..`to` with reserves after each (see the statement above). */
export async function curveTradesInRange(db: SqlReader, from: number, to: number): Promise<DexTradeRow[]> {
  const { rows } = await prepared<DexTradeRow>(db, "qapi_dex_events", EVENTS_SQL, [String(from), String(to)]);
  return rows;
}
