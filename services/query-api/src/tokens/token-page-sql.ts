import { lifecycleOf } from "@tmi/shared/market";
import { TOKEN_FROM_SQL, TOKEN_METADATA_JOIN_SQL } from "@tmi/shared/token";
import { type KeysetColumn, keyOf, keysetCondition, keysetOrderBy } from "../common/keyset-page.js";
import type { TokenOrder, TokenPhase } from "./token-orders.js";
import { firstRows, TOKEN_ITEM_JSON, VISIBLE_TOKEN } from "./token-queries.js";

// The statements of the token list's pages (docs/api.md "Discovery: sorts, phase and batch"),
// with named placeholders (`$take`, `$lo`, `$hi`, `$k0`, `$k1`, `$snapshot`) that
// token-list-queries.ts binds: a page of a one-part order walks its index from the cursor and
// stops after `$take` rows; with `search`, a bounded part of the order is filtered, else the
// prefix matches are collected, bounded, from the three prefix indexes and ordered (a sort of at
// most a few thousand matches, never of the table), or, past their cap, a bounded part of the
// order is walked as a screened page is (exact, possibly short); the snapshot part of a two-part sort reads
// the snapshot's entries. A text depends only on the shape (order, phase, search, cursor), never
// on a value: one prepared statement per shape (`TOKEN_LIST_STATEMENT_BOUND`).

/** `column` of `tokens t` starts with the prefix [$lo, $hi) (a `text_pattern_ops` range, index-backed). */
const inPrefix = (column: string) =>
  `(${column} ~>=~ (SELECT $lo::text) AND ${column} ~<~ (SELECT $hi::text))`;
/** The name, symbol or address of `tokens t` starts with the prefix. */
const SEARCH_MATCH = `(${inPrefix("t.search_name")} OR ${inPrefix("t.search_symbol")} OR ${inPrefix("t.address")})`;
/** The columns of `tokens t` a prefix is matched on, each with its `text_pattern_ops` index. */
const PREFIX_COLUMNS = ["t.search_name", "t.search_symbol", "t.address"] as const;

/**
 * The work a page of a search may do, whatever the prefix and the number of tokens
 * (docs/api.md "Discovery: sorts, phase and batch"): `window` tokens of the order read from the
 * cursor on, and at most `cap` + 1 prefix matches read from each of the three prefix indexes.
 */
export interface SearchBudget {
  window: number;
  cap: number;
}

/**
 * Sizes of the reads of a prefix index before the last one (`cap`): each runs only when the
 * one before was full (see `searchPageSql`).
 */
const SEARCH_TIERS = [32, 200];

/** The budget of query-api's search pages (docs/benchmarks.md "1M tokens, 10M trades"). */
export const SEARCH_BUDGET: SearchBudget = { window: 250, cap: 1000 };

/** The condition of `phase` over `tokens t` (none without a phase). */
export const phaseSql = (phase: TokenPhase | undefined): string[] =>
  phase === undefined ? [] : [`t.lifecycle = '${lifecycleOf(phase === "graduated")}'`];

/** Key columns in the select list, as `k0`, `k1`. */
const keyColumns = (k: readonly KeysetColumn[]) => k.map((c) => `${c.sql} AS ${c.column}`).join(", ");

/**
 * The columns of `tokens t` the key `k`'s expressions read, with `address` and `creator` (those
 * of `VISIBLE_TOKEN`): a row of them computes the key over any relation named `t`.
 */
const keyColumnsOf = (k: readonly KeysetColumn[]): string[] => [
  ...new Set([
    "address",
    "creator",
    ...k.flatMap((c) => [...c.sql.matchAll(/\bt\.([a-z0-9_]+)\b/g)].map((m) => m[1] as string)),
  ]),
];

/** The cursor condition of `k` with its values read from `$k0`, `$k1`, ... (init plans, see `inPrefix`). */
export const afterSql = (k: readonly KeysetColumn[]): string =>
  keysetCondition(k, "desc", (i, type) => `(SELECT $k${i}::${type})`);

/**
 * Conditions of a page over `tokens t` (named parameters): `position` bounds the order's index
 * (the cursor), `filters` only keep rows (phase, left-out snapshot tokens).
 */
export interface PageConditions {
  position: string[];
  filters: string[];
}

/**
 * A page of `$take` visible tokens in `order` after the position, filtered, as
 * {@link TokenPageRow}s: without search, the order's index walked from the cursor.
 */
export function orderedPageSql(order: TokenOrder, conditions: PageConditions): string {
  const where = [...(order.where ? [order.where] : []), ...conditions.position, ...conditions.filters];
  // The page's rows first, then their metadata: joined to the whole order, PostgreSQL may
  // merge-join `metadata_drafts` in address order and read it from its start to the cursor.
  return `SELECT t.k0${order.key.length > 1 ? ", t.k1" : ""}, ${TOKEN_ITEM_JSON} AS item
  FROM (${firstRows(
    `SELECT ${keyColumns(order.key)}, t.* FROM tokens t
    WHERE ${[VISIBLE_TOKEN, ...where].join(" AND ")}
    ORDER BY ${keysetOrderBy(order.key, "desc")}`,
    "$take",
    keysetOrderBy(keyOf(order.key, "page"), "desc"),
  )}) t
  ${TOKEN_METADATA_JOIN_SQL}
  ORDER BY ${keysetOrderBy(keyOf(order.key, "t"), "desc")}`;
}

/**
 * The longest term the prefix table answers (`token_search_prefixes`: every prefix of 1 to this
 * many characters of each token's name, symbol and address, migration `token-search-prefixes`).
 */
export const PREFIX_TABLE_MAX_CHARS = 8;

/** Launch order over `token_search_prefixes p` (its primary key walked backwards), as `k0`, `k1`. */
const PREFIX_KEY: readonly KeysetColumn[] = [
  { sql: "p.created_block_number", column: "k0", type: "int8", descending: true },
  { sql: "p.created_log_index", column: "k1", type: "int4", descending: true },
];

/**
 * A page of `$take` visible tokens whose name, symbol or address starts with `$term` (at most
 * {@link PREFIX_TABLE_MAX_CHARS} characters), newest launch first, after the position `$k0`,
 * `$k1` when `after`, as {@link TokenPageRow}s: the term's rows of `token_search_prefixes` walked
 * backwards from the cursor, stopping after the page. Exact and bounded whatever the number of
 * matches (the rows read: the page plus the excluded tokens among them).
 */
export function prefixPageSql(after: boolean): string {
  return `SELECT t.k0, t.k1, ${TOKEN_ITEM_JSON} AS item
  FROM (${firstRows(
    `SELECT ${keyColumns(PREFIX_KEY)}, t.* FROM token_search_prefixes p JOIN tokens t ON t.address = p.address
    WHERE ${["p.prefix = $term", ...(after ? [afterSql(PREFIX_KEY)] : []), VISIBLE_TOKEN].join(" AND ")}
    ORDER BY ${keysetOrderBy(PREFIX_KEY, "desc")}`,
    "$take",
    keysetOrderBy(keyOf(PREFIX_KEY, "page"), "desc"),
  )}) t
  ${TOKEN_METADATA_JOIN_SQL}
  ORDER BY ${keysetOrderBy(keyOf(PREFIX_KEY, "t"), "desc")}`;
}

/**
 * Entries of `token_search_prefixes` a search page with filters examines at most (docs/api.md
 * "Search, exact in launch order"): each costs a primary-key read of `tokens`; 2,000 (the
 * screener's window) cost 16 ms of PostgreSQL per page of a sparse phase at 1M tokens.
 */
export const PREFIX_WINDOW = 500;

/**
 * {@link prefixPageSql} with `filters` (phase, screener, the trending snapshot's tokens left
 * out) in bounded work: the term's rows of `token_search_prefixes` walked from the cursor for at
 * most `window` rows, as {@link screenedPageSql} returns them (the rows that pass, and the
 * window's last row when the walk reached it: the position to resume from).
 */
export function screenedPrefixPageSql(filters: string[], after: boolean, window: number): string {
  return windowedSql(
    PREFIX_KEY,
    `SELECT ${keyColumns(PREFIX_KEY)}, t.address, (${[...filters, VISIBLE_TOKEN].join(" AND ")}) AS kept
      FROM token_search_prefixes p JOIN tokens t ON t.address = p.address
      WHERE ${["p.prefix = $term", ...(after ? [afterSql(PREFIX_KEY)] : [])].join(" AND ")}
      ORDER BY ${keysetOrderBy(PREFIX_KEY, "desc")}`,
    window,
  );
}

/**
 * A page of `$take` visible prefix matches of [$lo, $hi) in `order` after the position, filtered,
 * in bounded work (`budget`, `window`), exact: every match in order over the walk of the cursors.
 * One statement with a generic plan:
 *
 * 1. `recent`: the matches among the next `budget.window` tokens of the order's index from the
 *    cursor, stopping at `take` matches: the page when they fill it (frequent prefixes).
 * 2. Else the matches are read from the three prefix indexes, each in its own key order (an index
 *    scan the planner keeps: the `ORDER BY … USING ~<~` is the index's), at most `cap` + 1 of
 *    each, with their sort key. When no read reached `cap` + 1 matches they are every match: the
 *    page is the first `take` of these and of `recent` in the order (a sort of at most
 *    3 × (`cap` + 1) rows).
 * 3. Else (`capped`: a prefix index holds more than `cap` matches, the ones read need not be the
 *    next in the order) the page is a screened walk ({@link screenedPageSql}): at most `window`
 *    tokens of the order's index from the cursor, the matches among them and, when the walk
 *    reached its `window`-th token, that token (`n` = `window`: the position to resume from).
 *
 * Rows: {@link TokenPageRow} plus `kept` (false only for a window's last token that does not
 * match; `item` then null) and `n` (null outside the walk).
 */
export function searchPageSql(
  order: TokenOrder,
  conditions: PageConditions,
  budget: SearchBudget,
  window: number,
): string {
  if (
    !Number.isInteger(budget.window) ||
    !Number.isInteger(budget.cap) ||
    budget.window < 1 ||
    budget.cap < 1
  )
    throw new Error(`invalid search budget ${JSON.stringify(budget)}`);
  // The page size: a value, applied as `firstRows` does (under the constant limit of the largest
  // page). A bare `LIMIT $take` is estimated as 10 % of its input in the generic plan, which then
  // costs more than a custom plan for the actual size: PostgreSQL re-planned this statement (the
  // eleven reads and the Token object) on every execution, about as costly as running it.
  const limit = "$take";
  const byPage = keysetOrderBy(keyOf(order.key, "page"), "desc");
  const walked = [...(order.where ? [order.where] : []), ...conditions.position];
  const inOrder = [...walked, ...conditions.filters];
  const byKey = keysetOrderBy(keyOf(order.key, "t"), "desc");
  const kept = inOrder.length === 0 ? "true" : inOrder.join(" AND ");
  // A read's rows carry the columns of the order's key, not its values: these are computed only
  // when the reads make the page (not capped). Past the cap they are only counted, and the key
  // (an expression: the value's `coalesce`, `progress_bps`; the tie's `translate` of the address
  // before it was the stored `address_tie`, ≈ 7 µs a row at 1M tokens) of their up to 1,235 rows
  // per index was computed for nothing.
  const columns = keyColumnsOf(order.key);
  const row = `${columns.map((c) => `t.${c}`).join(", ")}, ${kept} AS kept`;
  const rowOf = (alias: string) => `${columns.map((c) => `${alias}.${c}`).join(", ")}, ${alias}.kept`;
  // Per prefix index, reads of growing size, each only when the one before found as many
  // matches as it could hold: the first with both bounds (at most `SEARCH_TIERS[0]` + 1 rows:
  // rare prefixes end here), the next ones the next n + 1 index entries from the prefix on, then
  // the ones in its range. With both bounds as the index condition the generic plan estimates
  // 0.5 % of the table: under a limit above that it reads every match through a bitmap and sorts
  // them; with the lower bound alone it estimates a third of the table and keeps the ordered
  // index scan, which stops at the limit.
  const tiers = [...SEARCH_TIERS.filter((n) => n < budget.cap), budget.cap];
  const reads = PREFIX_COLUMNS.flatMap((column, i) =>
    tiers.map((n, k) => {
      const name = `read${i}_${k}`;
      const gate =
        k === 0 ? "(SELECT short FROM state)" : `(SELECT count(*) FROM read${i}_${k - 1}) > ${tiers[k - 1]}`;
      const text =
        k === 0
          ? `SELECT ${row} FROM tokens t WHERE ${gate} AND ${inPrefix(column)}
    ORDER BY ${column} USING ~<~ LIMIT ${n + 1}`
          : `SELECT ${rowOf("l")} FROM (
      SELECT ${row}, ${column} AS prefixed FROM tokens t WHERE ${gate} AND ${column} ~>=~ (SELECT $lo::text)
      ORDER BY ${column} USING ~<~ LIMIT ${n + 1}) l
    WHERE l.prefixed ~<~ (SELECT $hi::text)`;
      return { name, sql: `${name} AS MATERIALIZED (\n    ${text})` };
    }),
  );
  // `capped`: a last read holding `cap` + 1 rows in the range means more than `cap` matches
  // (fewer: it reached the range's end, every match was read). Its OR stops at the first capped
  // index, and the next indexes' reads (CTEs run when first read) then do not run at all.
  return `WITH recent AS MATERIALIZED (
    ${firstRows(
      `SELECT t.* FROM (
      SELECT ${keyColumns(order.key)}, t.address, t.creator, t.search_name, t.search_symbol${conditions.filters.length === 0 ? "" : `, ${conditions.filters.join(" AND ")} AS kept`}
      FROM tokens t WHERE ${walked.length === 0 ? "true" : walked.join(" AND ")}
      ORDER BY ${keysetOrderBy(order.key, "desc")} LIMIT ${budget.window}) t
    WHERE ${SEARCH_MATCH}${conditions.filters.length === 0 ? "" : " AND t.kept"} AND ${VISIBLE_TOKEN}
    ORDER BY ${byKey}`,
      limit,
      byPage,
    )}),
  state AS MATERIALIZED (SELECT count(*) < ${limit} AS short FROM recent),
  ${reads.map((r) => r.sql).join(",\n  ")},
  capped AS MATERIALIZED (SELECT ${PREFIX_COLUMNS.map((_, i) => `(SELECT count(*) FROM read${i}_${tiers.length - 1}) > ${budget.cap}`).join(" OR ")} AS capped),
  walk AS MATERIALIZED (
    ${windowRowsSql(
      order.key,
      `SELECT ${keyColumns(order.key)}, t.address, (${[SEARCH_MATCH, ...conditions.filters, VISIBLE_TOKEN].join(" AND ")}) AS kept
      FROM tokens t WHERE ${["(SELECT capped FROM capped)", ...walked].join(" AND ")}
      ORDER BY ${keysetOrderBy(order.key, "desc")}`,
      window,
    )}),
  page AS (
    SELECT address, true AS kept, NULL::int8 AS n FROM recent WHERE NOT (SELECT short FROM state)
    UNION ALL
    SELECT address, kept, n FROM walk
    UNION ALL
    SELECT m.address, true, NULL FROM (${firstRows(
      `SELECT t.* FROM (
      SELECT ${keyOf(order.key, "r")
        .map((c) => c.sql)
        .join(", ")}, r.address, r.creator, true AS kept
      FROM recent r WHERE (SELECT short FROM state)
      ${reads.map((r) => `UNION SELECT ${keyColumns(order.key)}, t.address, t.creator, t.kept FROM ${r.name} t`).join("\n      ")}) t
      WHERE t.kept AND ${VISIBLE_TOKEN} AND NOT (SELECT capped FROM capped)
      ORDER BY ${byKey}`,
      limit,
      byPage,
    )}) m)
  SELECT ${keyColumns(order.key)}, p.kept, p.n, CASE WHEN p.kept THEN ${TOKEN_ITEM_JSON} END AS item
  FROM page p, ${TOKEN_FROM_SQL}
  WHERE t.address = p.address
  ORDER BY ${keysetOrderBy(order.key, "desc")}`;
}

/**
 * The snapshot part of a two-part sort: `$take` visible tokens of snapshot `$snapshot` (or the
 * latest when `latest`) in `ranked` order, filtered (with `search`, prefix matches of [$lo, $hi)
 * only); one row with null `k0` when the snapshot exists but holds no such token, none when
 * there is no snapshot.
 */
export function rankedPageSql(
  ranked: readonly KeysetColumn[],
  conditions: string[],
  search: boolean,
  latest: boolean,
) {
  const snapshot = latest
    ? "SELECT id FROM trending_snapshots ORDER BY id DESC LIMIT 1"
    : "SELECT id FROM trending_snapshots WHERE id = $snapshot";
  const entries = ["e.snapshot_id = s.id", ...conditions];
  if (!search)
    return `SELECT s.id AS snapshot_id, x.* FROM (${snapshot}) s LEFT JOIN LATERAL (
    ${firstRows(
      `SELECT ${keyColumns(ranked)}, ${TOKEN_ITEM_JSON} AS item
    FROM trending_entries e JOIN tokens t ON t.address = e.token_address
      ${TOKEN_METADATA_JOIN_SQL}
    WHERE ${[...entries, VISIBLE_TOKEN].join(" AND ")}
    ORDER BY ${keysetOrderBy(ranked, "desc")}`,
      "$take",
      keysetOrderBy(keyOf(ranked, "page"), "desc"),
    )}) x ON true`;
  // The snapshot's tokens first (`OFFSET 0`: the match is not pushed into the join), then the
  // prefix matches among them: bounded by the snapshot's size. With the match beside the join,
  // the generic plan read every match of the three prefix indexes (a BitmapOr) and hash-joined
  // them to the snapshot.
  return `SELECT s.id AS snapshot_id, x.* FROM (${snapshot}) s LEFT JOIN LATERAL (
    ${firstRows(
      `SELECT ${ranked.map((c) => `t.${c.column}`).join(", ")}, ${TOKEN_ITEM_JSON} AS item
    FROM (SELECT ${keyColumns(ranked)}, t.* FROM trending_entries e JOIN tokens t ON t.address = e.token_address
      WHERE ${entries.join(" AND ")}
      ORDER BY ${keysetOrderBy(ranked, "desc")} OFFSET 0) t
      ${TOKEN_METADATA_JOIN_SQL}
    WHERE ${SEARCH_MATCH} AND ${VISIBLE_TOKEN}
    ORDER BY ${keysetOrderBy(keyOf(ranked, "t"), "desc")}`,
      "$take",
      keysetOrderBy(keyOf(ranked, "page"), "desc"),
    )}) x ON true`;
}

/**
 * Rows a page with screener filters examines at most (docs/api.md "Screener filters"): rows of
 * the order's index (or of the trending snapshot's entries) read from the cursor on, per part of
 * the order.
 */
export const SCREENER_WINDOW = 2000;

/**
 * The windowed walk of a screened page (see {@link screenedPageSql}): `walk` (a `SELECT` of the
 * key columns, `address` (null: no token) and `kept`, ordered by `k`, without `LIMIT`) cut to
 * `window` rows; the first `$take` rows that pass (`kept`) or are the window's last
 * (`n` = `window`), with their Token JSON (only for the rows that pass). The walk carries the
 * address, not the token's row: the window's rows (all of them, through the window function)
 * were as wide as `tokens`, and only the page's are read again (a primary-key read each).
 */
function windowedSql(k: readonly KeysetColumn[], walk: string, window: number): string {
  return `SELECT ${k.map((c) => `w.${c.column}`).join(", ")}, w.kept, w.n, CASE WHEN w.kept THEN ${TOKEN_ITEM_JSON} END AS item
  FROM (${windowRowsSql(k, walk, window)}) w
  LEFT JOIN tokens t ON t.address = w.address
  ${TOKEN_METADATA_JOIN_SQL}
  ORDER BY ${keysetOrderBy(keyOf(k, "w"), "desc")}`;
}

/**
 * The rows of a windowed walk without their Token JSON: `walk` (a `SELECT` of the key columns
 * `k0`, `k1`, … and `kept`, ordered by `k`, without `LIMIT`) cut to `window` rows, numbered `n`;
 * the first `$take` that pass (`kept`) or are the window's last (`n` = `window`), in order.
 */
function windowRowsSql(k: readonly KeysetColumn[], walk: string, window: number): string {
  if (!Number.isInteger(window) || window < 1) throw new Error(`invalid screener window ${window}`);
  const byW = keysetOrderBy(keyOf(k, "w"), "desc");
  return firstRows(
    `SELECT w.* FROM (
      SELECT w.*, row_number() OVER (ORDER BY ${byW}) AS n FROM (${walk}
      LIMIT ${window}) w) w
    WHERE w.kept OR w.n = ${window}
    ORDER BY ${byW}`,
    "$take",
    keysetOrderBy(keyOf(k, "page"), "desc"),
  );
}

/**
 * A page of `$take` visible tokens in `order` after the position that pass `conditions.filters`
 * (the screener's among them), in bounded work: the order's index is walked from the cursor for
 * at most `window` rows; returns the rows that pass (`kept`) and, when the walk reached its
 * `window`-th row, that row (`n` = `window`, `kept` possibly false: the position to resume from).
 * Rows: {@link TokenPageRow} plus `kept` and `n`; `item` null for a row that does not pass.
 */
export function screenedPageSql(order: TokenOrder, conditions: PageConditions, window: number): string {
  const walked = [...(order.where ? [order.where] : []), ...conditions.position];
  const kept = [...conditions.filters, VISIBLE_TOKEN].join(" AND ");
  return windowedSql(
    order.key,
    `SELECT ${keyColumns(order.key)}, t.address, (${kept}) AS kept FROM tokens t
      WHERE ${walked.length === 0 ? "true" : walked.join(" AND ")}
      ORDER BY ${keysetOrderBy(order.key, "desc")}`,
    window,
  );
}

/**
 * The snapshot part of a two-part sort with screener filters: as {@link screenedPageSql} over
 * the entries of snapshot `$snapshot` (the latest when `latest`) in `ranked` order after
 * `position`, keeping those that pass `filters` (and, with `search`, match the prefix
 * [$lo, $hi)). One row with null `k0` when the snapshot exists but the window holds no such row,
 * none when there is no snapshot. The entries are cut to `window` in their index order before
 * their tokens are read (one primary-key read each): joined first, the generic plan hash-joined
 * every entry of the snapshot to `tokens` and sorted them.
 */
export function screenedRankedPageSql(
  ranked: readonly KeysetColumn[],
  position: string[],
  filters: string[],
  search: boolean,
  latest: boolean,
  window: number,
): string {
  const snapshot = latest
    ? "SELECT id FROM trending_snapshots ORDER BY id DESC LIMIT 1"
    : "SELECT id FROM trending_snapshots WHERE id = $snapshot";
  // An entry counts in the window even without its token row (it then does not pass).
  const kept = ["t.address IS NOT NULL", ...filters, ...(search ? [SEARCH_MATCH] : []), VISIBLE_TOKEN].join(
    " AND ",
  );
  return `SELECT s.id AS snapshot_id, x.* FROM (${snapshot}) s LEFT JOIN LATERAL (
    ${windowedSql(
      ranked,
      `SELECT ${keyColumns(ranked)}, t.address, (${kept}) AS kept
      FROM (SELECT e.* FROM trending_entries e WHERE ${["e.snapshot_id = s.id", ...position].join(" AND ")}
        ORDER BY ${keysetOrderBy(ranked, "desc")} LIMIT ${window}) e
      LEFT JOIN LATERAL (SELECT * FROM tokens t WHERE t.address = e.token_address OFFSET 0) t ON true
      ORDER BY ${keysetOrderBy(ranked, "desc")}`,
      window,
    )}) x ON true`;
}
