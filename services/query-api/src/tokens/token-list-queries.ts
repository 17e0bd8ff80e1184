import { createHash } from "node:crypto";
import type { CursorCodec, CursorValue } from "@tmi/shared/codec";
import { AppError } from "@tmi/shared/errors";
import { lifecycleOf, progressBpsSql } from "@tmi/shared/market";
import { TOKEN_FROM_SQL, TOKEN_METADATA_JOIN_SQL } from "@tmi/shared/token";
import { invalidCursor } from "../common/invalid-cursor.js";
import {
  checkKeyset,
  decodeKeyset,
  type KeysetColumn,
  type KeysetPosition,
  keysetCondition,
  keysetOrderBy,
  keysetPositionOf,
} from "../common/keyset-page.js";
import { decodeNewest, JsonText, jsonPage } from "../common/route-helpers.js";
import { type Int8, prepared, type ReadDb } from "../db.js";
import {
  checkTake,
  firstRows,
  type NewestPosition,
  newestPositionOf,
  prefixRange,
  TOKEN_ITEM_JSON,
  type TokenJsonRow,
  VISIBLE_TOKEN,
} from "./token-queries.js";

// Discovery over every token (docs/api.md "Discovery: sorts, phase and batch"): the sorts of
// `GET /api/v1/tokens`, the `phase` filter, `search` combined with any sort, and the batch
// lookup. Every order is read from an index (prisma/migrations/*_discovery-indexes.sql): a page
// walks its index from the cursor and stops after `take` rows; with `search`, a bounded part of
// the order is filtered, else the prefix matches are collected, bounded, from the three prefix
// indexes and ordered (a sort of at most a few thousand matches, never of the table); see
// `searchPageSql`. Trending and `volume_24h` are two parts: the trending snapshot's tokens
// (by rank, or by window volume), then every other token (newest first, or by address).

/** Values of the `sort` query parameter. */
export const TOKEN_SORTS = [
  "newest",
  "market_cap",
  "volume_24h",
  "progress",
  "last_trade",
  "holders",
  "trending",
] as const;
/** A sort of the token list. */
export type TokenSort = (typeof TOKEN_SORTS)[number];

/** Values of the `phase` query parameter: `curve` (before graduation) or `graduated`. */
export const TOKEN_PHASES = ["curve", "graduated"] as const;
/** A lifecycle phase filter. */
export type TokenPhase = (typeof TOKEN_PHASES)[number];

/** `curve.progress_bps` of `tokens t` (the rule of `@tmi/shared/market`; the expression of `tokens_progress_idx`). */
const PROGRESS_BPS_SQL = `(${progressBpsSql("t.sold_supply", "t.graduation_threshold")})`;

/** A key of the token list over `tokens t`, its columns named `k0`, `k1`. */
const key = (...columns: [sql: string, type: KeysetColumn["type"], descending: boolean][]): KeysetColumn[] =>
  columns.map(([sql, type, descending], i) => ({ sql, column: `k${i}`, type, descending }));

/** Value descending, then address ascending. */
const byValue = (sql: string, type: KeysetColumn["type"]) =>
  key([sql, type, true], ["t.address", "text", false]);

/** One-part orders over `tokens t`: the key (an index's) and the rows it holds. */
export interface TokenOrder {
  key: readonly KeysetColumn[];
  /** Condition of the order's rows (the partial index's). */
  where?: string;
}

/** Newest launch first (`tokens_newest_idx`). */
export const NEWEST_ORDER: TokenOrder = {
  key: key(["t.created_block_number", "int8", true], ["t.created_log_index", "int4", true]),
};
/** Address ascending (the primary key): the tokens outside the trending window in `volume_24h`. */
const ADDRESS_ORDER: TokenOrder = { key: key(["t.address", "text", false]) };

/** The one-part sorts. */
export const TOKEN_ORDERS: Record<Exclude<TokenSort, "trending" | "volume_24h">, TokenOrder> = {
  newest: NEWEST_ORDER,
  market_cap: { key: byValue("coalesce(t.fully_diluted_value, -1)", "numeric") },
  last_trade: { key: byValue("coalesce(t.latest_trade_timestamp, -1)", "int8") },
  holders: { key: byValue("t.holder_count", "int4") },
  progress: { key: byValue(PROGRESS_BPS_SQL, "int4"), where: `t.lifecycle = '${lifecycleOf(false)}'` },
};

/** The snapshot part of a two-part sort: a key over `trending_entries e`. */
const RANK_KEY = key(["e.rank", "int4", false]);
const VOLUME_KEY = key(["e.window_volume", "numeric", true], ["e.token_address", "text", false]);

/** A two-part sort: the snapshot's tokens in `ranked` order, then every other token in `rest` order. */
export interface TwoPartSort {
  ranked: readonly KeysetColumn[];
  rest: TokenOrder;
}

/** `trending`: by rank, then newest first; `volume_24h`: by window volume, then by address. */
export const TWO_PART_SORTS: Record<"trending" | "volume_24h", TwoPartSort> = {
  trending: { ranked: RANK_KEY, rest: NEWEST_ORDER },
  volume_24h: { ranked: VOLUME_KEY, rest: ADDRESS_ORDER },
};

/** Filters of a token page. */
export interface TokenFilters {
  /** Normalized search prefix (`normalizeSearch`), `""` for none. */
  search: string;
  phase: TokenPhase | undefined;
}

/** A row of a token page: its key values (`k0`, `k1`) and its wire JSON. */
export interface TokenPageRow extends Record<string, unknown> {
  k0: unknown;
  k1?: unknown;
  item: string;
}

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

const phaseSql = (phase: TokenPhase | undefined) =>
  phase === undefined ? [] : [`t.lifecycle = '${lifecycleOf(phase === "graduated")}'`];

/** Key columns in the select list, as `k0`, `k1`. */
const keyColumns = (k: readonly KeysetColumn[]) => k.map((c) => `${c.sql} AS ${c.column}`).join(", ");

/** `k` read from the columns `k0`, `k1` of the relation `alias` (a materialized step of a statement). */
const keyOf = (k: readonly KeysetColumn[], alias: string) =>
  k.map((c) => ({ ...c, sql: `${alias}.${c.column}` }));

/** The cursor condition of `k` with its values read from `$k0`, `$k1`, ... (init plans, see `inPrefix`). */
const afterSql = (k: readonly KeysetColumn[]) =>
  keysetCondition(k, "desc", (i, type) => `(SELECT $k${i}::${type})`);

/**
 * Conditions of a page over `tokens t` (named parameters): `position` bounds the order's index
 * (the cursor), `filters` only keep rows (phase, left-out snapshot tokens).
 */
interface PageConditions {
  position: string[];
  filters: string[];
}

/**
 * A page of `$take` visible tokens in `order` after the position, filtered, as
 * {@link TokenPageRow}s: without search, the order's index walked from the cursor.
 */
function orderedPageSql(order: TokenOrder, conditions: PageConditions): string {
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
 * A page of `$take` visible prefix matches of [$lo, $hi) in `order` after the position, filtered,
 * in bounded work (`budget`), as {@link TokenPageRow}s. One statement with a generic plan:
 *
 * 1. `recent`: the matches among the next `budget.window` tokens of the order's index from the
 *    cursor, stopping at `take` matches: the page when they fill it (frequent prefixes).
 * 2. Else the matches are read from the three prefix indexes, each in its own key order (an index
 *    scan the planner keeps: the `ORDER BY … USING ~<~` is the index's), at most `cap` + 1 of
 *    each, with their sort key; the page is the first `take` of these and of `recent` in the
 *    order (a sort of at most 3 × (`cap` + 1) rows).
 *
 * Exact unless a prefix index holds more than `cap` matches and they are sparse at this point of
 * the order: then the page is taken from the matches read (docs/api.md).
 */
function searchPageSql(order: TokenOrder, conditions: PageConditions, budget: SearchBudget): string {
  if (
    !Number.isInteger(budget.window) ||
    !Number.isInteger(budget.cap) ||
    budget.window < 1 ||
    budget.cap < 1
  )
    throw new Error(`invalid search budget ${JSON.stringify(budget)}`);
  // The page size: a value, over rows already bounded by the budget (no plan depends on it).
  const limit = "$take";
  const walked = [...(order.where ? [order.where] : []), ...conditions.position];
  const inOrder = [...walked, ...conditions.filters];
  const byKey = keysetOrderBy(keyOf(order.key, "t"), "desc");
  const kept = inOrder.length === 0 ? "true" : inOrder.join(" AND ");
  const row = `${keyColumns(order.key)}, t.address, t.creator, ${kept} AS kept`;
  const rowOf = (alias: string) =>
    `${keyOf(order.key, alias)
      .map((c) => c.sql)
      .join(", ")}, ${alias}.address, ${alias}.creator, ${alias}.kept`;
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
  return `WITH recent AS MATERIALIZED (
    SELECT t.* FROM (
      SELECT ${keyColumns(order.key)}, t.address, t.creator, t.search_name, t.search_symbol${conditions.filters.length === 0 ? "" : `, ${conditions.filters.join(" AND ")} AS kept`}
      FROM tokens t WHERE ${walked.length === 0 ? "true" : walked.join(" AND ")}
      ORDER BY ${keysetOrderBy(order.key, "desc")} LIMIT ${budget.window}) t
    WHERE ${SEARCH_MATCH}${conditions.filters.length === 0 ? "" : " AND t.kept"} AND ${VISIBLE_TOKEN}
    ORDER BY ${byKey} LIMIT ${limit}),
  state AS MATERIALIZED (SELECT count(*) < ${limit} AS short FROM recent),
  ${reads.map((r) => r.sql).join(",\n  ")},
  page AS (
    SELECT address FROM recent WHERE NOT (SELECT short FROM state)
    UNION ALL
    (SELECT t.address FROM (
      SELECT ${keyOf(order.key, "r")
        .map((c) => c.sql)
        .join(", ")}, r.address, r.creator, true AS kept
      FROM recent r WHERE (SELECT short FROM state)
      ${reads.map((r) => `UNION SELECT ${rowOf(r.name)} FROM ${r.name}`).join("\n      ")}) t
      WHERE t.kept AND ${VISIBLE_TOKEN}
      ORDER BY ${byKey} LIMIT ${limit}))
  SELECT ${keyColumns(order.key)}, ${TOKEN_ITEM_JSON} AS item
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
function rankedPageSql(
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

/** Turns `$name` placeholders into `$1..$n` (in order of first use) and picks their values. */
function bind(text: string, values: Record<string, unknown>): { text: string; values: unknown[] } {
  const names: string[] = [];
  const numbered = text.replace(/\$([a-z][a-z0-9_]*)/g, (_, name: string) => {
    if (!(name in values)) throw new Error(`no value for $${name}`);
    let i = names.indexOf(name);
    if (i < 0) i = names.push(name) - 1;
    return `$${i + 1}`;
  });
  return { text: numbered, values: names.map((n) => values[n]) };
}

/**
 * The most named prepared statements the token list (`GET /api/v1/tokens`, its `/newest` alias
 * and the batch) prepares on one connection, whatever its parameters (docs/operations.md
 * "Prepared statements"): a statement's text depends only on its shape, never on a value or
 * the page size (bind parameters, `firstRows`). Shapes: the one-part sorts × `phase` (none,
 * `curve`, `graduated`) × `search` or not × cursor or not; each part of the two-part sorts
 * likewise (the snapshot part: the latest snapshot's first page, or the cursor's snapshot after
 * a position); the plain list's first page and page after a cursor, the batch, the snapshot check.
 */
export const TOKEN_LIST_STATEMENT_BOUND =
  (Object.keys(TOKEN_ORDERS).length + 2 * Object.keys(TWO_PART_SORTS).length) *
    (TOKEN_PHASES.length + 1) *
    2 *
    2 +
  4;

/**
 * Runs `text` (named placeholders) as a prepared statement named after its text: one of at most
 * {@link TOKEN_LIST_STATEMENT_BOUND}, as the text carries no value.
 */
async function run<R extends Record<string, unknown>>(
  db: ReadDb,
  text: string,
  values: Record<string, unknown>,
): Promise<R[]> {
  const bound = bind(text, values);
  const name = `qapi_tl_${createHash("sha1").update(bound.text).digest("hex").slice(0, 24)}`;
  return (await prepared<R>(db, name, bound.text, bound.values)).rows;
}

/** Named values of a search and of a keyset position. */
function searchValues(search: string): Record<string, unknown> {
  if (search === "") return {};
  const [lo, hi] = prefixRange(search);
  return { lo, hi };
}
const positionValues = (after: KeysetPosition | null): Record<string, unknown> =>
  Object.fromEntries((after ?? []).map((v, i) => [`k${i}`, typeof v === "bigint" ? v.toString() : v]));

/**
 * One page of `take` visible tokens in a one-part `order` after `after` (exclusive), filtered by
 * `filters` (with `search`, in bounded work: `budget`), leaving out the tokens of trending
 * snapshot `notInSnapshot` (the rest of a two-part sort).
 * Source: `tokens`, `excluded_addresses`, `metadata_drafts`, `eth_usd_answers`, `trending_entries`.
 */
export async function listOrderedTokens(
  db: ReadDb,
  options: {
    order: TokenOrder;
    filters: TokenFilters;
    after: KeysetPosition | null;
    take: number;
    notInSnapshot?: bigint;
    budget?: SearchBudget;
  },
): Promise<TokenPageRow[]> {
  const { order, filters, after, take } = options;
  const conditions: PageConditions = {
    position: after === null ? [] : [afterSql(order.key)],
    filters: phaseSql(filters.phase),
  };
  if (options.notInSnapshot !== undefined)
    conditions.filters.push(
      "NOT EXISTS (SELECT 1 FROM trending_entries e WHERE e.snapshot_id = (SELECT $snapshot::int8) AND e.token_address = t.address)",
    );
  const values = {
    take: checkTake(take),
    ...searchValues(filters.search),
    ...positionValues(after),
    ...(options.notInSnapshot !== undefined ? { snapshot: options.notInSnapshot.toString() } : {}),
  };
  const sql =
    filters.search === ""
      ? orderedPageSql(order, conditions)
      : searchPageSql(order, conditions, options.budget ?? SEARCH_BUDGET);
  return run<TokenPageRow>(db, sql, values);
}

/**
 * One page of the snapshot part of a two-part sort: visible tokens of snapshot `snapshot` (the
 * latest when null) in `ranked` order after `after`, filtered (a search filters the snapshot's
 * entries: bounded by the snapshot's size). `snapshotId` null: no such snapshot (none yet, or
 * pruned). Source: `trending_snapshots`, `trending_entries`, `tokens`, ...
 */
export async function listRankedTokens(
  db: ReadDb,
  options: {
    ranked: readonly KeysetColumn[];
    filters: TokenFilters;
    snapshot: bigint | null;
    after: KeysetPosition | null;
    take: number;
  },
): Promise<{ snapshotId: bigint | null; rows: TokenPageRow[] }> {
  const { ranked, filters, snapshot, after, take } = options;
  const conditions = [...phaseSql(filters.phase)];
  if (after !== null) conditions.push(afterSql(ranked));
  const rows = await run<TokenPageRow & { snapshot_id: Int8 }>(
    db,
    rankedPageSql(ranked, conditions, filters.search !== "", snapshot === null),
    {
      take: checkTake(take),
      ...searchValues(filters.search),
      ...positionValues(after),
      ...(snapshot !== null ? { snapshot: snapshot.toString() } : {}),
    },
  );
  const first = rows[0];
  if (!first) return { snapshotId: null, rows: [] };
  return { snapshotId: BigInt(first.snapshot_id), rows: rows.filter((r) => r.k0 !== null) };
}

/** Whether trending snapshot `id` still exists. */
export async function snapshotExists(db: ReadDb, id: bigint): Promise<boolean> {
  const { rows } = await prepared(
    db,
    "qapi_trending_snapshot_exists",
    "SELECT 1 FROM trending_snapshots WHERE id = $1",
    [id.toString()],
  );
  return rows.length > 0;
}

/**
 * The visible tokens among `addresses` (lowercase, distinct, at most 100), in the given order;
 * unknown and excluded ones left out (primary-key lookups). Source: as the token list.
 */
export async function listTokensByAddress(db: ReadDb, addresses: readonly string[]): Promise<string[]> {
  const { rows } = await prepared<{ item: string }>(
    db,
    "qapi_tokens_batch",
    `SELECT ${TOKEN_ITEM_JSON} AS item
  FROM unnest($1::text[]) WITH ORDINALITY a(address, n) JOIN ${TOKEN_FROM_SQL} ON t.address = a.address
  WHERE ${VISIBLE_TOKEN}
  ORDER BY a.n`,
    [addresses],
  );
  return rows.map((r) => r.item);
}

/** At most this many addresses in one batch (`addresses=`). */
export const BATCH_MAX = 100;

/** `{"items":[...],"next_cursor"?:...}` of a {@link TokenJsonPage}. */
export function tokenPageBody(page: TokenJsonPage): JsonText {
  const cursor = page.nextCursor === undefined ? "" : `,"next_cursor":${JSON.stringify(page.nextCursor)}`;
  return new JsonText(`{"items":[${page.items.join(",")}]${cursor}}`);
}

/** A page of tokens: the items' JSON texts and the cursor of the next page. */
export interface TokenJsonPage {
  items: string[];
  nextCursor?: string;
}

/** The error of a cursor whose trending snapshot was pruned. */
export function expiredSnapshot(): AppError {
  return new AppError(
    "invalid_request",
    "cursor expired: its trending snapshot is gone; start again from the first page",
    { details: [{ field: "cursor", reason: "trending snapshot no longer available" }] },
  );
}

/**
 * One page of a two-part sort (docs/api.md "Trending"): the tokens of the trending snapshot in
 * `sort.ranked` order, then every other visible token in `sort.rest` order, `limit` items. A
 * cursor (bound to `route`) holds the snapshot id and the position in its part
 * (`[snapshot, ...ranked key]` or `[snapshot, ...rest key]`, told apart by their lengths), so a
 * walk stays on the snapshot it started from, across both parts; snapshot 0: there was none.
 * @throws AppError `invalid_request` for a cursor of another route or shape, or whose snapshot was pruned.
 */
export async function twoPartPage(
  db: ReadDb,
  options: TokenPageOptions & { sort: TwoPartSort },
): Promise<TokenJsonPage> {
  const { sort, filters, limit, cursors, route } = options;
  let snapshot: bigint | null = null;
  let rankedAfter: KeysetPosition | null = null;
  let restAfter: KeysetPosition | null = null;
  let inRest = false;
  if (options.cursor !== undefined) {
    const [snap, ...position] = cursors.decode(route, options.cursor);
    if (typeof snap !== "bigint") throw invalidCursor();
    snapshot = snap;
    if (position.length === sort.ranked.length) rankedAfter = checkKeyset(sort.ranked, position);
    else {
      restAfter = checkKeyset(sort.rest.key, position);
      inRest = true;
    }
  }
  const rows: { row: TokenPageRow; key: readonly KeysetColumn[] }[] = [];
  let snapshotId = snapshot ?? 0n;
  if (!inRest) {
    const ranked = await listRankedTokens(db, {
      ranked: sort.ranked,
      filters,
      snapshot,
      after: rankedAfter,
      take: limit + 1,
    });
    if (snapshot !== null && snapshot !== 0n && ranked.snapshotId === null) throw expiredSnapshot();
    snapshotId = ranked.snapshotId ?? 0n;
    for (const row of ranked.rows) rows.push({ row, key: sort.ranked });
  } else if (snapshotId !== 0n && !(await snapshotExists(db, snapshotId))) {
    throw expiredSnapshot();
  }
  if (rows.length <= limit) {
    const rest = await listOrderedTokens(db, {
      order: sort.rest,
      filters,
      after: restAfter,
      // Always a page's worth (the boundary page builds a few more items than it shows).
      take: limit + 1,
      notInSnapshot: snapshotId,
    });
    for (const row of rest) rows.push({ row, key: sort.rest.key });
  }
  return tokenPage(
    rows,
    options,
    (r) => r.row.item,
    (r) => [snapshotId, ...keysetPositionOf(r, r.row)],
  );
}

/**
 * One page of a one-part `order` (docs/api.md "Discovery: sorts, phase and batch"), `limit`
 * items, cursors bound to `route`.
 * @throws AppError `invalid_request` for a cursor of another route or shape.
 */
export async function orderedPage(
  db: ReadDb,
  options: TokenPageOptions & { order: TokenOrder; budget?: SearchBudget },
): Promise<TokenJsonPage> {
  const { order, filters, limit, cursors, route } = options;
  const after = decodeKeyset(cursors, route, order, options.cursor);
  const rows = await listOrderedTokens(db, {
    order,
    filters,
    after,
    take: limit + 1,
    ...(options.budget !== undefined ? { budget: options.budget } : {}),
  });
  return tokenPage(
    rows,
    options,
    (r) => r.item,
    (r) => keysetPositionOf(order, r),
  );
}

/**
 * One page of visible tokens newest first (the default list and a creator's tokens), `limit`
 * items; `list` reads `take` rows after a position (null: from the newest). Cursors, bound to
 * `route`, hold the position (created block, log index).
 * @throws AppError `invalid_request` for a cursor of another route or shape.
 */
export async function newestTokenPage(
  options: { limit: number; cursor?: string | undefined; cursors: CursorCodec; route: string },
  list: (after: NewestPosition | null, take: number) => Promise<TokenJsonRow[]>,
): Promise<{ items: string; nextCursor: string | undefined }> {
  const { limit, cursors, route } = options;
  const rows = await list(decodeNewest(cursors, route, options.cursor), limit + 1);
  return jsonPage(rows, limit, (row) => row.item, newestPositionOf, cursors, route);
}

/** What a page of the token list is asked: filters, size, the cursor and the route it is bound to. */
interface TokenPageOptions {
  filters: TokenFilters;
  limit: number;
  cursor: string | undefined;
  cursors: CursorCodec;
  route: string;
}

/**
 * The first `limit` of `rows` (read with `take = limit + 1`) as a page, with a cursor (bound to
 * `route`) at the last item shown when a further row exists.
 */
function tokenPage<R>(
  rows: readonly R[],
  options: Pick<TokenPageOptions, "limit" | "cursors" | "route">,
  item: (row: R) => string,
  position: (row: R) => CursorValue[],
): TokenJsonPage {
  const shown = rows.slice(0, options.limit);
  const page: TokenJsonPage = { items: shown.map(item) };
  const last = shown[shown.length - 1];
  if (rows.length > options.limit && last !== undefined)
    page.nextCursor = options.cursors.encode(options.route, position(last));
  return page;
}
