import type { CursorCodec, CursorValue } from "@tmi/shared/codec";
import { AppError } from "@tmi/shared/errors";
import { invalidCursor } from "../common/invalid-cursor.js";
import {
  checkKeyset,
  decodeKeyset,
  type KeysetColumn,
  type KeysetPosition,
  keysetPositionOf,
} from "../common/keyset-page.js";
import { decodeNewest, JsonText, jsonPage } from "../common/route-helpers.js";
import type { SqlReader } from "../db.js";
import { listOrderedTokens, listRankedTokens, snapshotExists } from "./token-list-statements.js";
import type { TokenFilters, TokenOrder, TokenPageRow, TwoPartSort } from "./token-orders.js";
import type { SearchBudget } from "./token-page-sql.js";
import { type NewestPosition, newestPositionOf, type TokenJsonRow } from "./token-queries.js";

export { listTokensByAddress, TOKEN_LIST_STATEMENT_BOUND } from "./token-list-statements.js";
export * from "./token-orders.js";
export { SCREENER_WINDOW, SEARCH_BUDGET, type SearchBudget } from "./token-page-sql.js";
export * from "./token-screener.js";

// Discovery over every token (docs/api.md "Discovery: sorts, phase and batch"): the sorts of
// `GET /api/v1/tokens`, the `phase` filter, `search` combined with any sort, and the batch
// lookup. Every order is read from an index (prisma/migrations/*_discovery-indexes.sql): a page
// walks its index from the cursor and stops after `take` rows; with `search`, a bounded part of
// the order is filtered, else the prefix matches are collected, bounded, from the three prefix
// indexes and ordered (a sort of at most a few thousand matches, never of the table), or, past
// their cap, a bounded part of the order is walked as a screened page is; see
// `searchPageSql` (token-page-sql.ts; the orders: token-orders.ts; run by token-list-statements.ts). Trending and `volume_24h` are two parts: the trending snapshot's tokens
// (by rank, or by window volume), then every other token (newest first, or by address).

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
  db: SqlReader,
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
  type Keyed = { row: TokenPageRow; key: readonly KeysetColumn[] };
  const rows: Keyed[] = [];
  let stop: Keyed | undefined;
  let snapshotId = snapshot ?? 0n;
  const window = options.window !== undefined ? { window: options.window } : {};
  const budget = options.budget !== undefined ? { budget: options.budget } : {};
  if (!inRest) {
    const ranked = await listRankedTokens(db, {
      ranked: sort.ranked,
      filters,
      snapshot,
      after: rankedAfter,
      take: limit + 1,
      ...window,
    });
    if (snapshot !== null && snapshot !== 0n && ranked.snapshotId === null) throw expiredSnapshot();
    snapshotId = ranked.snapshotId ?? 0n;
    for (const row of ranked.rows) rows.push({ row, key: sort.ranked });
    if (ranked.stop !== undefined) stop = { row: ranked.stop, key: sort.ranked };
  } else if (snapshotId !== 0n && !(await snapshotExists(db, snapshotId))) {
    throw expiredSnapshot();
  }
  // The rest part starts once the snapshot part is done (a screened walk that stopped at its
  // bound resumes in the snapshot part).
  if (rows.length <= limit && stop === undefined) {
    const rest = await listOrderedTokens(db, {
      order: sort.rest,
      filters,
      after: restAfter,
      // Always a page's worth (the boundary page builds a few more items than it shows).
      take: limit + 1,
      notInSnapshot: snapshotId,
      ...window,
      ...budget,
    });
    for (const row of rest.rows) rows.push({ row, key: sort.rest.key });
    if (rest.stop !== undefined) stop = { row: rest.stop, key: sort.rest.key };
  }
  return tokenPage(
    rows,
    options,
    (r) => r.row.item,
    (r) => [snapshotId, ...keysetPositionOf(r, r.row)],
    stop,
  );
}

/**
 * One page of a one-part `order` (docs/api.md "Discovery: sorts, phase and batch"), `limit`
 * items, cursors bound to `route`.
 * @throws AppError `invalid_request` for a cursor of another route or shape.
 */
export async function orderedPage(
  db: SqlReader,
  options: TokenPageOptions & { order: TokenOrder },
): Promise<TokenJsonPage> {
  const { order, filters, limit, cursors, route } = options;
  const after = decodeKeyset(cursors, route, order, options.cursor);
  const { rows, stop } = await listOrderedTokens(db, {
    order,
    filters,
    after,
    take: limit + 1,
    ...(options.budget !== undefined ? { budget: options.budget } : {}),
    ...(options.window !== undefined ? { window: options.window } : {}),
  });
  return tokenPage(
    rows,
    options,
    (r) => r.item,
    (r) => keysetPositionOf(order, r),
    stop,
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

/**
 * What a page of the token list is asked: filters, size, the cursor and the route it is bound to;
 * `window`: the rows a screened page (or a search past its cap) examines per part of its order
 * (default `SCREENER_WINDOW`); `budget`: a search's bounded reads (default `SEARCH_BUDGET`).
 */
interface TokenPageOptions {
  budget?: SearchBudget;
  filters: TokenFilters;
  limit: number;
  cursor: string | undefined;
  cursors: CursorCodec;
  route: string;
  window?: number;
}

/**
 * The first `limit` of `rows` (read with `take = limit + 1`) as a page, with a cursor (bound to
 * `route`) at the last item shown when a further row exists, else at `stop` (the last row a
 * screened walk examined before its bound: the page may be short, even empty, and go on).
 */
function tokenPage<R>(
  rows: readonly R[],
  options: Pick<TokenPageOptions, "limit" | "cursors" | "route">,
  item: (row: R) => string,
  position: (row: R) => CursorValue[],
  stop?: R,
): TokenJsonPage {
  const shown = rows.slice(0, options.limit);
  const page: TokenJsonPage = { items: shown.map(item) };
  const last = shown[shown.length - 1];
  if (rows.length > options.limit && last !== undefined)
    page.nextCursor = options.cursors.encode(options.route, position(last));
  else if (stop !== undefined) page.nextCursor = options.cursors.encode(options.route, position(stop));
  return page;
}
