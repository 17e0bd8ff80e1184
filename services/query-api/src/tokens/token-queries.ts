import { tokenUsdJsonSql } from "../common/usd-sql.js";
import { type Int8, prepared, type ReadDb } from "../db.js";
import type { CheckpointCache } from "../freshness/checkpoint-cache.js";
import type { Pricing } from "./token-schemas.js";
import { type StatsCache, statsCacheKey } from "./token-stats-cache.js";
import { tokenStatsJsonSql } from "./token-stats-queries.js";

/**
 * SQL condition (over `tokens t`) that keeps tokens visible to discovery: neither the token nor
 * its creator is in `excluded_addresses` (docs/api.md "Lists, search and exclusions"). Evaluated at query time, so an
 * exclusion takes effect on the next request.
 */
export const VISIBLE_TOKEN = `NOT EXISTS (SELECT 1 FROM excluded_addresses x WHERE x.kind = 'token' AND x.address = t.address)
  AND NOT EXISTS (SELECT 1 FROM excluded_addresses x WHERE x.kind = 'creator' AND x.address = t.creator)`;

/**
 * SQL expression (over `tokens t`) of the wire Token (list item) as JSON text, built by
 * PostgreSQL: amounts as decimal strings (`::text`), block numbers and counts as numbers, the
 * fields of the Token schema (`schemas.ts`). Pages of tokens are served from these texts without
 * parsing 17 columns per row in Node (the row parsing of `pg` was the bottleneck of the lists).
 * `usd` (addition): the wei values × the latest indexed ETH/USD answer ({@link tokenUsdJsonSql};
 * the answer is an uncorrelated subquery, evaluated once per statement, not per row).
 */
export const TOKEN_ITEM_JSON = `json_build_object(
  'address', t.address, 'creator', t.creator, 'name', t.name, 'symbol', t.symbol,
  'initial_supply', t.initial_supply::text,
  'created_at', json_build_object('block_number', t.created_block_number,
    'transaction_hash', t.created_transaction_hash, 'log_index', t.created_log_index),
  'metrics', json_build_object('trade_count', t.trade_count, 'buy_count', t.buy_count, 'sell_count', t.sell_count,
    'volume', t.volume::text, 'fees', t.fees::text, 'unique_trader_count', t.unique_trader_count,
    'current_price', t.current_price::text, 'fully_diluted_value', t.fully_diluted_value::text,
    'holder_count', t.holder_count),
  'usd', ${tokenUsdJsonSql("t")})::text`;

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

/** Columns of a page of tokens: the newest-first position and the wire JSON. */
export const PAGE_COLUMNS = `t.created_block_number, t.created_log_index, ${TOKEN_ITEM_JSON} AS item`;

/** Keyset position in the newest-first token order: (created_block_number, created_log_index). */
export type NewestPosition = [bigint, number];

/** Visible tokens, newest launch first: the first page. */
const TOKENS_FIRST_SQL = `SELECT ${PAGE_COLUMNS} FROM tokens t
  WHERE ${VISIBLE_TOKEN}
  ORDER BY t.created_block_number DESC, t.created_log_index DESC LIMIT $1`;

/** Visible tokens, newest launch first, after the keyset position ($1, $2). */
const TOKENS_AFTER_SQL = `SELECT ${PAGE_COLUMNS} FROM tokens t
  WHERE ${VISIBLE_TOKEN}
    AND (t.created_block_number, t.created_log_index) < ($1::int8, $2::int4)
  ORDER BY t.created_block_number DESC, t.created_log_index DESC LIMIT $3`;

/** Visible tokens whose name, symbol or address starts with the `LIKE` pattern $1: the first page. */
const TOKENS_SEARCH_FIRST_SQL = `SELECT ${PAGE_COLUMNS} FROM tokens t
  WHERE ${VISIBLE_TOKEN}
    AND (t.search_name LIKE $1 OR t.search_symbol LIKE $1 OR t.address LIKE $1)
  ORDER BY t.created_block_number DESC, t.created_log_index DESC LIMIT $2`;

/** Visible tokens whose name, symbol or address starts with $1, after the keyset position ($2, $3). */
const TOKENS_SEARCH_AFTER_SQL = `SELECT ${PAGE_COLUMNS} FROM tokens t
  WHERE ${VISIBLE_TOKEN}
    AND (t.search_name LIKE $1 OR t.search_symbol LIKE $1 OR t.address LIKE $1)
    AND (t.created_block_number, t.created_log_index) < ($2::int8, $3::int4)
  ORDER BY t.created_block_number DESC, t.created_log_index DESC LIMIT $4`;

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
  const { searchPattern, after, take } = options;
  const result =
    searchPattern === null
      ? after === null
        ? await prepared<TokenJsonRow>(db, "qapi_tokens_all_first", TOKENS_FIRST_SQL, [take])
        : await prepared<TokenJsonRow>(db, "qapi_tokens_all_after", TOKENS_AFTER_SQL, [
            after[0].toString(),
            after[1],
            take,
          ])
      : after === null
        ? await prepared<TokenJsonRow>(db, "qapi_tokens_search_first", TOKENS_SEARCH_FIRST_SQL, [
            searchPattern,
            take,
          ])
        : await prepared<TokenJsonRow>(db, "qapi_tokens_search_after", TOKENS_SEARCH_AFTER_SQL, [
            searchPattern,
            after[0].toString(),
            after[1],
            take,
          ]);
  return result.rows;
}

/** The detail JSON object (without `stats`) over `tokens t` and `metadata_drafts m`. */
const DETAIL_JSON = `json_build_object(
  'address', t.address, 'creator', t.creator, 'name', t.name, 'symbol', t.symbol,
  'initial_supply', t.initial_supply::text,
  'created_at', json_build_object('block_number', t.created_block_number,
    'transaction_hash', t.created_transaction_hash, 'log_index', t.created_log_index),
  'metrics', json_build_object('trade_count', t.trade_count, 'buy_count', t.buy_count, 'sell_count', t.sell_count,
    'volume', t.volume::text, 'fees', t.fees::text, 'unique_trader_count', t.unique_trader_count,
    'current_price', t.current_price::text, 'fully_diluted_value', t.fully_diluted_value::text,
    'holder_count', t.holder_count),
  'usd', ${tokenUsdJsonSql("t")},
  'state', t.state,
  'curve', json_build_object('reserve_balance', t.reserve_balance::text, 'token_balance', t.token_balance::text,
    'real_reserve', t.real_reserve::text, 'tokens_sold', t.tokens_sold::text,
    'graduation_threshold', t.graduation_threshold::text,
    'progress_bps', CASE WHEN t.state = 'graduated' THEN 10000
                         WHEN t.graduation_threshold <= 0 THEN 0
                         ELSE LEAST(10000, floor(t.real_reserve * 10000 / t.graduation_threshold))::int END),
  'metadata', CASE WHEN m.id IS NULL THEN NULL ELSE json_build_object(
    'description', m.description,
    'image_url', '/objects/' || ltrim(m.image_key, '/'),
    'metadata_url', '/objects/' || ltrim(m.metadata_key, '/'),
    'website_url', m.website_url, 'x_url', m.x_url, 'telegram_url', m.telegram_url, 'discord_url', m.discord_url) END,
  'graduation', CASE WHEN t.pool_address IS NULL OR t.graduated_block_number IS NULL THEN NULL ELSE json_build_object(
    'pool_address', t.pool_address, 'block_number', t.graduated_block_number,
    'transaction_hash', t.graduated_transaction_hash, 'log_index', t.graduated_log_index,
    'timestamp', t.graduated_at) END
)::text`;
const DETAIL_FROM = `FROM tokens t LEFT JOIN metadata_drafts m ON m.token_address = t.address AND m.status = 'finalized'`;

/** Detail without `stats` (the stats come from the cache). */
const DETAIL_SQL = `SELECT ${DETAIL_JSON} AS detail ${DETAIL_FROM} WHERE t.address = $1`;

/**
 * Detail, its `stats` and the checkpoint they were computed at (`<block>:<hash>`, null before the
 * first commit), in one statement: the checkpoint row read here gives the windows' "now".
 */
const DETAIL_WITH_STATS_SQL = `SELECT ${DETAIL_JSON} AS detail,
  ${tokenStatsJsonSql("t.address", "COALESCE(cp.block_timestamp, 0)")}::text AS stats,
  cp.block_number::text || ':' || cp.block_hash AS stats_key
  ${DETAIL_FROM}
  LEFT JOIN (SELECT block_number, block_hash, block_timestamp FROM indexer_checkpoints ORDER BY chain_id LIMIT 1) cp ON true
  WHERE t.address = $1`;

/** Where {@link getTokenDetail} may take `stats` from instead of computing them. */
export interface DetailStatsSource {
  /** The current checkpoint (cached at most 250 ms: the freshness headers' cache). */
  checkpoint: CheckpointCache;
  cache: StatsCache;
}

/**
 * Token detail (docs/api.md "Token detail") of `address` (lowercase) as wire JSON text, or `null` when no
 * canonical launch is indexed. Built by PostgreSQL in one row: the list item plus `state`,
 * `curve` (`progress_bps` = real_reserve × 10000 / graduation_threshold, floored, at most 10000;
 * 10000 once graduated), `metadata` (the finalized `metadata_drafts` row bound to the token, object
 * keys as `/objects/<key>` paths; null otherwise) and `graduation` (null before it). Detail is
 * not filtered by exclusions (they hide tokens from discovery only). Additions: `usd` (as the list
 * item) and `stats` (window figures from the candle rollups, {@link tokenStatsJsonSql}), in the same
 * statement; with `statsSource`, the stats of the current checkpoint block are taken from its
 * cache when present (they are exact for that block), else computed and cached.
 * Source: `tokens`, `metadata_drafts`, `eth_usd_answers`, `candles`, `candle_traders`, `indexer_checkpoints`.
 */
export async function getTokenDetail(
  db: ReadDb,
  address: string,
  statsSource?: DetailStatsSource,
): Promise<string | null> {
  if (statsSource !== undefined) {
    const position = await statsSource.checkpoint.get().catch(() => null);
    const stats = position ? statsSource.cache.get(address, statsCacheKey(position)) : undefined;
    if (stats !== undefined) {
      const result = await prepared<{ detail: string }>(db, "qapi_token_detail_json", DETAIL_SQL, [address]);
      const detail = result.rows[0]?.detail;
      return detail === undefined ? null : withStats(detail, stats);
    }
  }
  const result = await prepared<{ detail: string; stats: string; stats_key: string | null }>(
    db,
    "qapi_token_detail_stats_json",
    DETAIL_WITH_STATS_SQL,
    [address],
  );
  const row = result.rows[0];
  if (!row) return null;
  if (statsSource !== undefined && row.stats_key !== null)
    statsSource.cache.set(address, row.stats_key, row.stats);
  return withStats(row.detail, row.stats);
}

/** Appends `"stats": <stats>` to the detail object text. */
function withStats(detail: string, stats: string): string {
  return `${detail.slice(0, -1)},"stats":${stats}}`;
}

/**
 * Pricing of `address`, or `null` when no canonical launch is indexed. `source` is
 * `indexed_v3_market` only when the token graduated and its latest indexed trade is a
 * `dex_v3` swap, `indexed_v3_curve` otherwise (docs/api.md "Pricing"). Source: `tokens`.
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
