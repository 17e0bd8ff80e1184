import { createHash } from "node:crypto";
import { TOKEN_FROM_SQL } from "@tmi/shared/token";
import type { KeysetColumn, KeysetPosition } from "../common/keyset-page.js";
import { type Int8, prepared, type SqlReader } from "../db.js";
import {
  NEWEST_ORDER,
  PROGRESS_BPS_SQL,
  type ScreenedRows,
  TOKEN_ORDERS,
  TOKEN_PHASES,
  type TokenFilters,
  type TokenOrder,
  type TokenPageRow,
  TWO_PART_SORTS,
} from "./token-orders.js";
import {
  afterSql,
  orderedPageSql,
  type PageConditions,
  PREFIX_TABLE_MAX_CHARS,
  PREFIX_WINDOW,
  phaseSql,
  prefixPageSql,
  rankedPageSql,
  SCREENER_WINDOW,
  SEARCH_BUDGET,
  type SearchBudget,
  screenedPageSql,
  screenedPrefixPageSql,
  screenedRankedPageSql,
  searchPageSql,
} from "./token-page-sql.js";
import { checkTake, prefixRange, TOKEN_ITEM_JSON, VISIBLE_TOKEN } from "./token-queries.js";
import { type Screener, screenerSql, screenerValues } from "./token-screener.js";

// The statements of the token list (docs/api.md "Discovery: sorts, phase and batch"): each
// page's SQL (token-page-sql.ts, over the orders of token-orders.ts) run as a prepared statement
// named after its text, and the reads that return its rows; the pages are assembled from them in
// token-list-queries.ts.

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
 * the page size (bind parameters, `firstRows`), nor on which screener filters are set (one
 * condition holds them all, `token-screener.ts`). Shapes: the one-part sorts × `phase` (none,
 * `curve`, `graduated`) × `search` or not × cursor or not × screener or not; each part of the
 * two-part sorts likewise (the snapshot part: the latest snapshot's first page, or the cursor's
 * snapshot after a position); the plain list's first page and page after a cursor, the batch,
 * the snapshot check; the prefix table's search (newest first: the one-part sort and the rest of
 * `trending`) × `phase` × cursor or not × screener or not (`prefixPageSql`, `screenedPrefixPageSql`).
 */
export const TOKEN_LIST_STATEMENT_BOUND =
  (Object.keys(TOKEN_ORDERS).length + 2 * Object.keys(TWO_PART_SORTS).length) *
    (TOKEN_PHASES.length + 1) *
    2 *
    2 *
    2 +
  4 +
  2 * (TOKEN_PHASES.length + 1) * 2 * 2;

/**
 * Runs `text` (named placeholders) as a prepared statement named after its text: one of at most
 * {@link TOKEN_LIST_STATEMENT_BOUND}, as the text carries no value.
 */
async function run<R extends Record<string, unknown>>(
  db: SqlReader,
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

/** The latest trending snapshot's id (the `volume_24h` of a one-part sort's screener). */
const LATEST_SNAPSHOT_SQL = "SELECT id FROM trending_snapshots ORDER BY id DESC LIMIT 1";

/** The screener's condition (volume from the snapshot `snapshot`) and its values; none without a screener. */
function screenerParts(
  screener: Screener | undefined,
  snapshot: string,
): { conditions: string[]; values: Record<string, unknown> } {
  if (screener === undefined) return { conditions: [], values: {} };
  return { conditions: [screenerSql(PROGRESS_BPS_SQL, snapshot)], values: screenerValues(screener) };
}

/**
 * The rows of a windowed read (`screenedPageSql`, `screenedRankedPageSql`): those that pass,
 * and the window's last row as `stop` when fewer than `take` passed and the window was full.
 */
function screenedRows(
  rows: (TokenPageRow & { kept?: boolean; n?: Int8 })[],
  take: number,
  window: number,
): ScreenedRows {
  const kept = rows.filter((r) => r.kept === true);
  const last = rows[rows.length - 1];
  if (kept.length < take && last !== undefined && Number(last.n) === window)
    return { rows: kept, stop: last };
  return { rows: kept };
}

/**
 * One page of `take` visible tokens in a one-part `order` after `after` (exclusive), filtered by
 * `filters` (with `search`, in bounded work: `budget`, and past its cap at most `window` rows of
 * the order examined; with a screener and no search, at most `window` rows of the order
 * examined; `stop` tells where such a walk stopped), leaving out the
 * tokens of trending snapshot `notInSnapshot` (the rest of a two-part sort).
 * Source: `tokens`, `excluded_addresses`, `metadata_drafts`, `eth_usd_answers`, `trending_entries`,
 * `token_risk`, `indexer_checkpoints`.
 */
export async function listOrderedTokens(
  db: SqlReader,
  options: {
    order: TokenOrder;
    filters: TokenFilters;
    after: KeysetPosition | null;
    take: number;
    notInSnapshot?: bigint;
    budget?: SearchBudget;
    window?: number;
  },
): Promise<ScreenedRows> {
  const { order, filters, after, take } = options;
  const screener = screenerParts(
    filters.screener,
    options.notInSnapshot !== undefined ? "SELECT $snapshot::int8" : LATEST_SNAPSHOT_SQL,
  );
  const conditions: PageConditions = {
    position: after === null ? [] : [afterSql(order.key)],
    filters: [...phaseSql(filters.phase), ...screener.conditions],
  };
  if (options.notInSnapshot !== undefined)
    conditions.filters.push(
      filters.screener === undefined
        ? "NOT EXISTS (SELECT 1 FROM trending_entries e WHERE e.snapshot_id = (SELECT $snapshot::int8) AND e.token_address = t.address)"
        : // In a screened walk the condition is computed per row in the select list (`kept`), where
          // the generic plan turned NOT EXISTS into a hashed subplan that reads every entry of
          // `trending_entries`; a scalar subquery probes `trending_entries_token_idx` per row.
          "(SELECT e.rank FROM trending_entries e WHERE e.snapshot_id = (SELECT $snapshot::int8) AND e.token_address = t.address) IS NULL",
    );
  const values = {
    take: checkTake(take),
    ...searchValues(filters.search),
    ...positionValues(after),
    ...(options.notInSnapshot !== undefined ? { snapshot: options.notInSnapshot.toString() } : {}),
    ...screener.values,
  };
  // Newest first, a term the prefix table holds: exact whatever its matches (with filters, at
  // most `window` (default PREFIX_WINDOW) of its matches examined per page).
  if (
    filters.search !== "" &&
    order === NEWEST_ORDER &&
    [...filters.search].length <= PREFIX_TABLE_MAX_CHARS
  ) {
    const prefixed = { ...values, term: filters.search };
    if (conditions.filters.length === 0)
      return { rows: await run<TokenPageRow>(db, prefixPageSql(after !== null), prefixed) };
    const entries = options.window ?? PREFIX_WINDOW;
    return screenedRows(
      await run(db, screenedPrefixPageSql(conditions.filters, after !== null, entries), prefixed),
      take,
      entries,
    );
  }
  const window = options.window ?? SCREENER_WINDOW;
  // Any other search: exact from the order's window or the prefix indexes' matches, else (past
  // the budget's cap) a screened walk of at most `window` tokens of the order.
  if (filters.search !== "")
    return screenedRows(
      await run(db, searchPageSql(order, conditions, options.budget ?? SEARCH_BUDGET, window), values),
      take,
      window,
    );
  if (filters.screener === undefined)
    return { rows: await run<TokenPageRow>(db, orderedPageSql(order, conditions), values) };
  return screenedRows(await run(db, screenedPageSql(order, conditions, window), values), take, window);
}

/**
 * One page of the snapshot part of a two-part sort: visible tokens of snapshot `snapshot` (the
 * latest when null) in `ranked` order after `after`, filtered (a search filters the snapshot's
 * entries: bounded by the snapshot's size; with a screener, at most `window` entries examined:
 * `stop` tells where the walk stopped). `snapshotId` null: no such snapshot (none yet, or
 * pruned). Source: `trending_snapshots`, `trending_entries`, `tokens`, ...
 */
export async function listRankedTokens(
  db: SqlReader,
  options: {
    ranked: readonly KeysetColumn[];
    filters: TokenFilters;
    snapshot: bigint | null;
    after: KeysetPosition | null;
    take: number;
    window?: number;
  },
): Promise<ScreenedRows & { snapshotId: bigint | null }> {
  const { ranked, filters, snapshot, after, take } = options;
  const position = after === null ? [] : [afterSql(ranked)];
  const screener = screenerParts(filters.screener, "s.id");
  const values = {
    take: checkTake(take),
    ...searchValues(filters.search),
    ...positionValues(after),
    ...(snapshot !== null ? { snapshot: snapshot.toString() } : {}),
    ...screener.values,
  };
  const window = options.window ?? SCREENER_WINDOW;
  const sql =
    filters.screener === undefined
      ? rankedPageSql(
          ranked,
          [...phaseSql(filters.phase), ...position],
          filters.search !== "",
          snapshot === null,
        )
      : screenedRankedPageSql(
          ranked,
          position,
          [...phaseSql(filters.phase), ...screener.conditions],
          filters.search !== "",
          snapshot === null,
          window,
        );
  const rows = await run<TokenPageRow & { snapshot_id: Int8; kept?: boolean; n?: Int8 }>(db, sql, values);
  const first = rows[0];
  if (!first) return { snapshotId: null, rows: [] };
  const present = rows.filter((r) => r.k0 !== null);
  const snapshotId = BigInt(first.snapshot_id);
  if (filters.screener === undefined) return { snapshotId, rows: present };
  return { snapshotId, ...screenedRows(present, take, window) };
}

/** Whether trending snapshot `id` still exists. */
export async function snapshotExists(db: SqlReader, id: bigint): Promise<boolean> {
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
export async function listTokensByAddress(db: SqlReader, addresses: readonly string[]): Promise<string[]> {
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
