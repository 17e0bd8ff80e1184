import { createHash } from "node:crypto";
import { TOKEN_FROM_SQL } from "@tmi/shared/token";
import type { KeysetColumn, KeysetPosition } from "../common/keyset-page.js";
import { type Int8, prepared, type SqlReader } from "../db.js";
import {
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
  phaseSql,
  rankedPageSql,
  SEARCH_BUDGET,
  type SearchBudget,
  searchPageSql,
} from "./token-page-sql.js";
import { checkTake, prefixRange, TOKEN_ITEM_JSON, VISIBLE_TOKEN } from "./token-queries.js";

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

/**
 * One page of `take` visible tokens in a one-part `order` after `after` (exclusive), filtered by
 * `filters` (with `search`, in bounded work: `budget`), leaving out the tokens of trending
 * snapshot `notInSnapshot` (the rest of a two-part sort).
 * Source: `tokens`, `excluded_addresses`, `metadata_drafts`, `eth_usd_answers`, `trending_entries`.
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
  db: SqlReader,
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
