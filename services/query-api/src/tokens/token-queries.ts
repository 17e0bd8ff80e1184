import { type Lifecycle, pricingSource, type TradeSource } from "@tmi/shared/market";
import { TOKEN_FROM_SQL, tokenJsonSql } from "@tmi/shared/token";
import { firstRows, PAGE_TAKE_MAX } from "../common/keyset-page.js";
import { tokenUsdJsonSql } from "../common/usd-sql.js";
import { type Int8, prepared, type SqlReader } from "../db.js";
import type { CheckpointCache } from "../freshness/checkpoint-cache.js";
import { ATH_JSON_SQL, COMPACT_RISK_JSON_SQL, FULL_RISK_JSON_SQL } from "./risk/risk-sql.js";
import type { Pricing } from "./token-schemas.js";
import { type StatsCache, statsCacheKey } from "./token-stats-cache.js";
import { tokenStatsJsonSql } from "./token-stats-queries.js";

/** The page helpers of every list (defined with the keyset pages), used by the token pages. */
export { firstRows, PAGE_TAKE_MAX };

/**
 * SQL condition (over `tokens t`) that keeps tokens visible to discovery: neither the token nor
 * its creator is in `excluded_addresses` (docs/api.md "Lists, search and exclusions"). Evaluated at query time, so an
 * exclusion takes effect on the next request.
 */
export const VISIBLE_TOKEN = `NOT EXISTS (SELECT 1 FROM excluded_addresses x WHERE x.kind = 'token' AND x.address = t.address)
  AND NOT EXISTS (SELECT 1 FROM excluded_addresses x WHERE x.kind = 'creator' AND x.address = t.creator)`;

/** The `usd` member of the Token objects ({@link tokenUsdJsonSql}) as JSON text. */
const USD_JSON = `coalesce((${tokenUsdJsonSql("t")})::text, 'null')`;

/**
 * SQL expression (over `TOKEN_FROM_SQL`: `tokens t` and the finalized draft `m`) of the Token
 * object as JSON text (`tokenJsonSql` of `@tmi/shared/token`, the one definition metadata-api's
 * finalize response uses too), plus query-api's addition `usd`: the wei values × the latest
 * indexed ETH/USD answer ({@link tokenUsdJsonSql}; an uncorrelated subquery, evaluated once per
 * statement, not per row). Pages of tokens are served from these texts without parsing dozens
 * of columns per row in Node. Its `risk` is the compact one (`risk/risk-sql.ts`, a primary-key read
 * of `token_risk` per row).
 */
export const TOKEN_ITEM_JSON = tokenJsonSql([
  ["usd", USD_JSON],
  ["risk", COMPACT_RISK_JSON_SQL],
]);

/**
 * The token detail's object as JSON text: {@link TOKEN_ITEM_JSON} with the full `risk` instead of
 * the compact one, and `ath` (`risk/risk-sql.ts`: primary-key reads of `token_risk` and one probe of
 * `eth_usd_answers`).
 */
const TOKEN_DETAIL_JSON = tokenJsonSql([
  ["usd", USD_JSON],
  ["risk", FULL_RISK_JSON_SQL],
  ["ath", ATH_JSON_SQL],
]);

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

/**
 * `take` (rows a page statement reads) as its bind value.
 * @throws Error when `take` is not an integer from 1 to {@link PAGE_TAKE_MAX}.
 */
export function checkTake(take: number): number {
  if (!Number.isInteger(take) || take < 1 || take > PAGE_TAKE_MAX)
    throw new Error(`invalid page size ${take}`);
  return take;
}

/** The newest-first order over the columns of a {@link firstRows} page of {@link PAGE_COLUMNS}. */
export const NEWEST_PAGE_ORDER = "page.created_block_number DESC, page.created_log_index DESC";

/** Visible tokens, newest launch first: the first page of `$1` rows. */
const TOKENS_FIRST_SQL = firstRows(
  `SELECT ${PAGE_COLUMNS} FROM ${TOKEN_FROM_SQL}
  WHERE ${VISIBLE_TOKEN}
  ORDER BY t.created_block_number DESC, t.created_log_index DESC`,
  "$1",
  NEWEST_PAGE_ORDER,
);

/** Visible tokens, newest launch first, after the keyset position ($1, $2): `$3` rows. */
const TOKENS_AFTER_SQL = firstRows(
  `SELECT ${PAGE_COLUMNS} FROM ${TOKEN_FROM_SQL}
  WHERE ${VISIBLE_TOKEN}
    AND (t.created_block_number, t.created_log_index) < ($1::int8, $2::int4)
  ORDER BY t.created_block_number DESC, t.created_log_index DESC`,
  "$3",
  NEWEST_PAGE_ORDER,
);

/**
 * The `text_pattern_ops` range [lower, upper) of the strings that start with `prefix` (non-empty):
 * `upper` is `prefix` with its last code point incremented (UTF-8 byte order is code point
 * order, so exactly the strings starting with `prefix` lie in between).
 * @throws Error on an empty prefix.
 */
export function prefixRange(prefix: string): [string, string] {
  const chars = [...prefix];
  const last = chars.pop();
  if (last === undefined) throw new Error("empty search prefix");
  return [prefix, `${chars.join("")}${String.fromCodePoint((last.codePointAt(0) ?? 0) + 1)}`];
}

/**
 * Visible tokens, newest launch first (`tokens_newest_idx`), after `after` (exclusive), at most
 * `take` rows (a search is a sort of `token-list-queries.ts`).
 * Source: `tokens`, `excluded_addresses`, `metadata_drafts`, `eth_usd_answers`.
 */
export async function listTokens(
  db: SqlReader,
  options: { after: NewestPosition | null; take: number },
): Promise<TokenJsonRow[]> {
  const { after, take } = options;
  const result =
    after === null
      ? await prepared<TokenJsonRow>(db, "qapi_tokens_all_first", TOKENS_FIRST_SQL, [checkTake(take)])
      : await prepared<TokenJsonRow>(db, "qapi_tokens_all_after", TOKENS_AFTER_SQL, [
          after[0].toString(),
          after[1],
          checkTake(take),
        ]);
  return result.rows;
}

/** Detail without `stats` (the stats come from the cache). */
const DETAIL_SQL = `SELECT ${TOKEN_DETAIL_JSON} AS detail FROM ${TOKEN_FROM_SQL} WHERE t.address = $1`;

/**
 * Detail, its `stats` and the checkpoint they were computed at (`<block>:<hash>`, null before the
 * first commit), in one statement: the checkpoint row read here gives the windows' "now".
 */
const DETAIL_WITH_STATS_SQL = `SELECT ${TOKEN_DETAIL_JSON} AS detail,
  ${tokenStatsJsonSql("t.address", "COALESCE(cp.block_timestamp, 0)")}::text AS stats,
  cp.block_number::text || ':' || cp.block_hash AS stats_key
  FROM ${TOKEN_FROM_SQL}
  LEFT JOIN (SELECT block_number, block_hash, block_timestamp FROM indexer_checkpoints ORDER BY chain_id LIMIT 1) cp ON true
  WHERE t.address = $1`;

/** Where {@link getTokenDetail} may take `stats` from instead of computing them. */
export interface DetailStatsSource {
  /** The current checkpoint (cached at most 250 ms: the freshness headers' cache). */
  checkpoint: CheckpointCache;
  cache: StatsCache;
}

/**
 * Token detail (docs/api.md "Token detail") of `address` (lowercase) as wire JSON text, or `null`
 * when no canonical launch is indexed: the Token object of the lists ({@link TOKEN_ITEM_JSON}) with
 * the full `risk` and `ath` ({@link TOKEN_DETAIL_JSON}) plus `stats`. Detail is not filtered by exclusions (they hide tokens from discovery only).
 * `stats` (window figures from the candle rollups, {@link tokenStatsJsonSql}), in the same
 * statement; with `statsSource`, the stats of the current checkpoint block are taken from its
 * cache when present (they are exact for that block), else computed and cached.
 * Source: `tokens`, `metadata_drafts`, `eth_usd_answers`, `candles`, `candle_traders`, `indexer_checkpoints`,
 * `token_risk`.
 */
export async function getTokenDetail(
  db: SqlReader,
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
 * `uniswap_v3` swap, `indexed_v3_curve` otherwise (docs/api.md "Pricing"). Source: `tokens`.
 */
export async function getPricing(db: SqlReader, address: string): Promise<Pricing | null> {
  const result = await db.query<{
    current_price: string | null;
    fully_diluted_value: string | null;
    lifecycle: Lifecycle;
    last_trade_source: string | null;
  }>(
    "SELECT current_price, fully_diluted_value, lifecycle, last_trade_source FROM tokens WHERE address = $1",
    [address],
  );
  const row = result.rows[0];
  if (!row) return null;
  return {
    token_address: address,
    current_price: row.current_price,
    fully_diluted_value: row.fully_diluted_value,
    source: pricingSource(row.lifecycle, row.last_trade_source as TradeSource | null),
  };
}
