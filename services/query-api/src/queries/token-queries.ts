import { type Int8, prepared, type ReadDb } from "../db.js";
import type { Pricing, TokenDetail, TokenItem } from "../schemas.js";

/**
 * Columns of a token list item, selected from `tokens t`. int8 columns arrive as strings from
 * `pg` and are safe integers (block numbers); NUMERIC amounts arrive as decimal strings and
 * are passed through untouched.
 */
export const TOKEN_ITEM_COLUMNS = `t.address, t.creator, t.name, t.symbol, t.initial_supply, t.created_block_number,
  t.created_transaction_hash, t.created_log_index, t.trade_count, t.buy_count, t.sell_count, t.volume, t.fees,
  t.unique_trader_count, t.current_price, t.fully_diluted_value, t.holder_count`;

/**
 * SQL condition (over `tokens t`) that keeps tokens visible to discovery: neither the token nor
 * its creator is in `excluded_addresses` (DESIGN.md §9). Evaluated at query time, so an
 * exclusion takes effect on the next request.
 */
export const VISIBLE_TOKEN = `NOT EXISTS (SELECT 1 FROM excluded_addresses x WHERE x.kind = 'token' AND x.address = t.address)
  AND NOT EXISTS (SELECT 1 FROM excluded_addresses x WHERE x.kind = 'creator' AND x.address = t.creator)`;

/**
 * SQL expression (over `tokens t`) of the wire Token (list item) as JSON text, built by
 * PostgreSQL: amounts as decimal strings (`::text`), block numbers and counts as numbers, the
 * same fields as {@link toTokenItem}. Pages of tokens are served from these texts without
 * parsing 17 columns per row in Node (the row parsing of `pg` was the bottleneck of the lists).
 */
export const TOKEN_ITEM_JSON = `json_build_object(
  'address', t.address, 'creator', t.creator, 'name', t.name, 'symbol', t.symbol,
  'initial_supply', t.initial_supply::text,
  'created_at', json_build_object('block_number', t.created_block_number,
    'transaction_hash', t.created_transaction_hash, 'log_index', t.created_log_index),
  'metrics', json_build_object('trade_count', t.trade_count, 'buy_count', t.buy_count, 'sell_count', t.sell_count,
    'volume', t.volume::text, 'fees', t.fees::text, 'unique_trader_count', t.unique_trader_count,
    'current_price', t.current_price::text, 'fully_diluted_value', t.fully_diluted_value::text,
    'holder_count', t.holder_count))::text`;

/** A token of a page: its newest-first position and its wire JSON ({@link TOKEN_ITEM_JSON}). */
export interface TokenJsonRow {
  created_block_number: Int8;
  created_log_index: number;
  /** The wire Token (list item), serialized. */
  item: string;
}

/** Position of a token row in the newest-first order. */
export function newestPositionOf(row: TokenJsonRow): NewestPosition {
  return [BigInt(row.created_block_number), row.created_log_index];
}

const PAGE_COLUMNS = `t.created_block_number, t.created_log_index, ${TOKEN_ITEM_JSON} AS item`;

/** A row selected with {@link TOKEN_ITEM_COLUMNS}. */
export interface TokenItemRow {
  address: string;
  creator: string;
  name: string;
  symbol: string;
  initial_supply: string;
  created_block_number: Int8;
  created_transaction_hash: string;
  created_log_index: number;
  trade_count: number;
  buy_count: number;
  sell_count: number;
  volume: string;
  fees: string;
  unique_trader_count: number;
  current_price: string | null;
  fully_diluted_value: string | null;
  holder_count: number;
}

/** Maps a {@link TokenItemRow} to the wire Token (list item). */
export function toTokenItem(row: TokenItemRow): TokenItem {
  return {
    address: row.address,
    creator: row.creator,
    name: row.name,
    symbol: row.symbol,
    initial_supply: row.initial_supply,
    created_at: {
      block_number: Number(row.created_block_number),
      transaction_hash: row.created_transaction_hash,
      log_index: row.created_log_index,
    },
    metrics: {
      trade_count: row.trade_count,
      buy_count: row.buy_count,
      sell_count: row.sell_count,
      volume: row.volume,
      fees: row.fees,
      unique_trader_count: row.unique_trader_count,
      current_price: row.current_price,
      fully_diluted_value: row.fully_diluted_value,
      holder_count: row.holder_count,
    },
  };
}

/** Keyset position in the newest-first token order: (created_block_number, created_log_index). */
export type NewestPosition = [bigint, number];


/**
 * Visible tokens, newest launch first (`tokens_newest_idx`), after `after` (exclusive), at most
 * `take` rows. With `searchPattern` (an escaped `LIKE` prefix pattern, see `likePrefix`), only
 * tokens whose `search_name`, `search_symbol` or `address` starts with it
 * (`text_pattern_ops` indexes). Source: `tokens`, `excluded_addresses`.
 */
export async function listTokens(
  db: ReadDb,
  options: { searchPattern: string | null; after: NewestPosition | null; take: number },
): Promise<TokenJsonRow[]> {
  const values: unknown[] = [];
  const where: string[] = [VISIBLE_TOKEN];
  if (options.searchPattern !== null) {
    values.push(options.searchPattern);
    where.push(
      `(t.search_name LIKE $${values.length} OR t.search_symbol LIKE $${values.length} OR t.address LIKE $${values.length})`,
    );
  }
  if (options.after !== null) {
    values.push(options.after[0].toString(), options.after[1]);
    where.push(
      `(t.created_block_number, t.created_log_index) < ($${values.length - 1}::int8, $${values.length}::int4)`,
    );
  }
  values.push(options.take);
  const sql = `SELECT ${PAGE_COLUMNS} FROM tokens t WHERE ${where.join(" AND ")}
    ORDER BY t.created_block_number DESC, t.created_log_index DESC LIMIT $${values.length}`;
  const name = `qapi_tokens_${options.searchPattern === null ? "all" : "search"}_${options.after === null ? "first" : "after"}`;
  const result = await prepared<TokenJsonRow>(db, name, sql, values);
  return result.rows;
}

/**
 * Visible tokens of `creator`, newest first (`tokens_creator_newest_idx`), after `after`, at
 * most `take` rows. Source: `tokens`, `excluded_addresses`.
 */
export async function listCreatorTokens(
  db: ReadDb,
  options: { creator: string; after: NewestPosition | null; take: number },
): Promise<TokenJsonRow[]> {
  const values: unknown[] = [options.creator];
  let keyset = "";
  if (options.after !== null) {
    values.push(options.after[0].toString(), options.after[1]);
    keyset = ` AND (t.created_block_number, t.created_log_index) < ($2::int8, $3::int4)`;
  }
  values.push(options.take);
  const sql = `SELECT ${PAGE_COLUMNS} FROM tokens t WHERE t.creator = $1${keyset} AND ${VISIBLE_TOKEN}
    ORDER BY t.created_block_number DESC, t.created_log_index DESC LIMIT $${values.length}`;
  const result = await prepared<TokenJsonRow>(
    db,
    `qapi_creator_tokens_${options.after === null ? "first" : "after"}`,
    sql,
    values,
  );
  return result.rows;
}

interface TokenDetailRow extends TokenItemRow {
  state: string;
  reserve_balance: string;
  token_balance: string;
  real_reserve: string;
  tokens_sold: string;
  graduation_threshold: string;
  pool_address: string | null;
  graduated_block_number: Int8 | null;
  graduated_transaction_hash: string | null;
  graduated_log_index: number | null;
  graduated_at: Int8 | null;
  md_id: string | null;
  md_description: string | null;
  md_image_key: string | null;
  md_metadata_key: string | null;
  md_website_url: string | null;
  md_x_url: string | null;
  md_telegram_url: string | null;
  md_discord_url: string | null;
}

const DETAIL_SQL = `SELECT ${TOKEN_ITEM_COLUMNS}, t.state, t.reserve_balance, t.token_balance, t.real_reserve, t.tokens_sold,
  t.graduation_threshold, t.pool_address, t.graduated_block_number, t.graduated_transaction_hash, t.graduated_log_index,
  t.graduated_at, m.id AS md_id, m.description AS md_description, m.image_key AS md_image_key,
  m.metadata_key AS md_metadata_key, m.website_url AS md_website_url, m.x_url AS md_x_url,
  m.telegram_url AS md_telegram_url, m.discord_url AS md_discord_url
FROM tokens t LEFT JOIN metadata_drafts m ON m.token_address = t.address AND m.status = 'finalized'
WHERE t.address = $1`;

/** `/objects/<key>` path of a stored object key. */
export function objectPath(key: string): string {
  return `/objects/${key.replace(/^\/+/, "")}`;
}

/** Graduation progress in basis points: real_reserve × 10000 / graduation_threshold, floored, ≤ 10000; 10000 once graduated. */
export function progressBps(state: string, realReserve: bigint, threshold: bigint): number {
  if (state === "graduated") return 10_000;
  if (threshold <= 0n) return 0;
  const bps = (realReserve * 10_000n) / threshold;
  return Number(bps > 10_000n ? 10_000n : bps);
}

/**
 * Token detail (DESIGN.md §7) of `address` (lowercase), or `null` when no canonical launch is
 * indexed. Detail is not filtered by exclusions (they hide tokens from discovery only).
 * Source: `tokens`, the finalized `metadata_drafts` row bound to the token.
 */
export async function getTokenDetail(db: ReadDb, address: string): Promise<TokenDetail | null> {
  const result = await prepared<TokenDetailRow>(db, "qapi_token_detail", DETAIL_SQL, [address]);
  const row = result.rows[0];
  if (!row) return null;
  const state = row.state === "graduated" ? "graduated" : "curve";
  return {
    ...toTokenItem(row),
    state,
    curve: {
      reserve_balance: row.reserve_balance,
      token_balance: row.token_balance,
      real_reserve: row.real_reserve,
      tokens_sold: row.tokens_sold,
      graduation_threshold: row.graduation_threshold,
      progress_bps: progressBps(state, BigInt(row.real_reserve), BigInt(row.graduation_threshold)),
    },
    metadata:
      row.md_id === null
        ? null
        : {
            description: row.md_description,
            image_url: objectPath(row.md_image_key ?? ""),
            metadata_url: objectPath(row.md_metadata_key ?? ""),
            website_url: row.md_website_url,
            x_url: row.md_x_url,
            telegram_url: row.md_telegram_url,
            discord_url: row.md_discord_url,
          },
    graduation:
      row.pool_address !== null && row.graduated_block_number !== null
        ? {
            pool_address: row.pool_address,
            block_number: Number(row.graduated_block_number),
            transaction_hash: row.graduated_transaction_hash ?? "",
            log_index: row.graduated_log_index ?? 0,
            timestamp: Number(row.graduated_at ?? 0),
          }
        : null,
  };
}

/**
 * Pricing of `address`, or `null` when no canonical launch is indexed. `source` is
 * `indexed_v3_market` only when the token graduated and its latest indexed trade is a
 * `dex_v3` swap, `indexed_v3_curve` otherwise (DESIGN.md §3). Source: `tokens`.
 */
export async function getPricing(db: ReadDb, address: string): Promise<Pricing | null> {
  const result = await db.query<{
    current_price: string | null;
    fully_diluted_value: string | null;
    state: string;
    last_trade_source: string | null;
  }>("SELECT current_price, fully_diluted_value, state, last_trade_source FROM tokens WHERE address = $1", [
    address,
  ]);
  const row = result.rows[0];
  if (!row) return null;
  return {
    token_address: address,
    current_price: row.current_price,
    fully_diluted_value: row.fully_diluted_value,
    source:
      row.state === "graduated" && row.last_trade_source === "dex_v3"
        ? "indexed_v3_market"
        : "indexed_v3_curve",
  };
}
