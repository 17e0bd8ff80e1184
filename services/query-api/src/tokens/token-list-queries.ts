import { createHash } from "node:crypto";
import type { CursorCodec, CursorValue } from "@tmi/shared/codec";
import { AppError } from "@tmi/shared/errors";
import { TOKEN_FROM_SQL } from "@tmi/shared/token";
import { invalidCursor } from "../common/invalid-cursor.js";
import {
  checkKeyset,
  decodeKeyset,
  type KeysetColumn,
  type KeysetPosition,
  keysetPositionOf,
} from "../common/keyset-page.js";
import { decodeNewest, JsonText, jsonPage } from "../common/route-helpers.js";
import { type Int8, prepared, type ReadDb } from "../db.js";
import {
  TOKEN_ORDERS,
  TOKEN_PHASES,
  type TokenFilters,
  type TokenOrder,
  type TokenPageRow,
  TWO_PART_SORTS,
  type TwoPartSort,
} from "./token-orders.js";
import {
  afterSql,
  orderedPageSql,
  type PageConditions,
  phaseSql,
  rankedPageSql,
  SEARCH_BUDGET,
  type SearchBudget,
  searchPageSql,
} from "./token-page-sql.js";
import {
  checkTake,
  type NewestPosition,
  newestPositionOf,
  prefixRange,
  TOKEN_ITEM_JSON,
  type TokenJsonRow,
  VISIBLE_TOKEN,
} from "./token-queries.js";

export * from "./token-orders.js";
export { SEARCH_BUDGET, type SearchBudget } from "./token-page-sql.js";

// Discovery over every token (docs/api.md "Discovery: sorts, phase and batch"): the sorts of
// `GET /api/v1/tokens`, the `phase` filter, `search` combined with any sort, and the batch
// lookup. Every order is read from an index (prisma/migrations/*_discovery-indexes.sql): a page
// walks its index from the cursor and stops after `take` rows; with `search`, a bounded part of
// the order is filtered, else the prefix matches are collected, bounded, from the three prefix
// indexes and ordered (a sort of at most a few thousand matches, never of the table); see
// `searchPageSql` (token-page-sql.ts; the orders: token-orders.ts). Trending and `volume_24h` are two parts: the trending snapshot's tokens
// (by rank, or by window volume), then every other token (newest first, or by address).

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
