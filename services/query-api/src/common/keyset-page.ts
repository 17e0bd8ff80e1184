import type { CursorCodec, CursorValue } from "@tmi/shared/codec";
import { toBigInt } from "@tmi/shared/codec";
import { CHAIN_POSITION_COLUMNS } from "@tmi/shared/market";
import { type Int8, prepared, type SqlReader } from "../db.js";
import { invalidCursor } from "./invalid-cursor.js";

// One keyset-page helper for every paged resource of query-api whose rows come from one table
// in one index order (trades, activity, holders, a wallet's trades, a token's traders). A resource
// describes its page once as a {@link KeysetSource}; the helper writes the four statements
// (asc/desc × first page/after a cursor), decodes and encodes the cursors, and cuts the page.

/** SQL type of a key column, which is also how its cursor value travels (`int8`, `numeric`: bigint; `int4`: number; `text`: string). */
export type KeysetType = "int8" | "int4" | "numeric" | "text";

/** One column of a keyset order. */
export interface KeysetColumn {
  /** The column's expression in the page statement (e.g. `r.block_number`). */
  sql: string;
  /**
   * The column's name in the result row (the page's `select` must return it, e.g. `block_number`),
   * of the key's own SQL type: {@link keysetSql} orders the page again over it (a `::text` copy of
   * a numeric key would sort as text).
   */
  column: string;
  type: KeysetType;
  /** `true` when this column descends in the `desc` order (the default order of a page). */
  descending: boolean;
  /**
   * A `text` column whose cursor carries another form of its value: an involution (its own
   * inverse) applied when a row's position is encoded and when a cursor is decoded, e.g. the
   * token list's tie key (the address with its hex digits inverted) travels as the address.
   */
  cursorForm?: (value: string) => string;
}

/**
 * A paged resource: the rows of `from` that match `where`, ordered by `key`.
 *
 * - `where` reads the page's filter values as `$1..$n` (n = the length of `filters` passed to
 *   {@link readKeysetPage}); the cursor's values and the page size follow them.
 * - `key` must be unique per row (a total order) and should match an index so a page reads only
 *   its own rows, forwards (`desc`) or backwards (`asc`). When every column has the same
 *   direction the keyset condition is a row comparison (`(a, b) < ($2, $3)`), else the
 *   lexicographic `OR` form.
 * - `parent`, when given, is a row the resource belongs to (`tokens t` with `t.address = $1`): the
 *   page is a `LEFT JOIN LATERAL` from it, so one round trip tells an unknown parent (no row:
 *   {@link readKeysetPage} returns `null`) from a parent without rows (an empty page).
 */
export interface KeysetSource {
  /** Stem of the prepared statements' names: `qapi_<name>_<order>_<first|after>`; unique per source. */
  name: string;
  /** Select list of a row, over the alias used in `from` (must include every `key[].column`). */
  select: string;
  /** `FROM` item with its alias, e.g. `trades r`. */
  from: string;
  /** Filter over `$1..$n`. */
  where: string;
  key: readonly KeysetColumn[];
  parent?: { from: string; where: string };
  /**
   * The page statement, when {@link keysetSql}'s is not the one to run (same parameters, rows and
   * order): e.g. a key computed per row is sorted on its own before the page's other columns are
   * read. Default: {@link keysetSql}.
   */
  statement?: (order: PageOrder, after: boolean, filterCount: number) => string;
}

/** The most rows a page statement reads: the largest page (`limit` 100) and the look-ahead row of its cursor. */
export const PAGE_TAKE_MAX = 101;

/**
 * The first `take` rows (a bind parameter, e.g. `$2`) of `ordered`, a `SELECT … ORDER BY …`
 * without `LIMIT`, in its order, which `orderBy` repeats over its output columns (`page.<column>`:
 * PostgreSQL then knows the rows come sorted and adds no sort). The page size is a value, so one named prepared statement serves
 * every page size (docs/operations.md "Prepared statements"). `ordered` is planned under the
 * constant `LIMIT` {@link PAGE_TAKE_MAX}: alone, `LIMIT $n` is planned as 10 % of the rows, so
 * PostgreSQL either re-plans the statement on every execution (the Token object's expression
 * costs more to plan than a page to read) or settles on a plan made for thousands of rows. The
 * outer `LIMIT` stops the inner one after `take` rows (it is read lazily).
 */
export function firstRows(ordered: string, take: string, orderBy: string): string {
  return `SELECT * FROM (${ordered}\n  LIMIT ${PAGE_TAKE_MAX}) page ORDER BY ${orderBy} LIMIT ${take}`;
}

/** Ordering of a page: `desc` (the key's own directions; newest first for chain positions) or `asc` (all reversed). */
export type PageOrder = "asc" | "desc";

/** Position of a row in a keyset order: one value per key column, typed as {@link KeysetType} says. */
export type KeysetPosition = CursorValue[];

/**
 * The page statement of `source` in `order`: the first page (`after` false) or the page after a
 * cursor, the page size the last parameter, applied by {@link firstRows} (planned under the
 * constant `LIMIT` {@link PAGE_TAKE_MAX}). Exported for EXPLAIN in tests and docs.
 */
export function keysetSql(
  source: KeysetSource,
  order: PageOrder,
  after: boolean,
  filterCount: number,
): string {
  const orderBy = keysetOrderBy(source.key, order);
  const keyset = after
    ? `\n    AND ${keysetCondition(source.key, order, (i, type) => `$${filterCount + 1 + i}::${type}`)}`
    : "";
  const limit = `$${filterCount + 1 + (after ? source.key.length : 0)}`;
  const ordered = `SELECT ${source.select}
  FROM ${source.from} WHERE ${source.where}${keyset}
  ORDER BY ${orderBy}`;
  // Planned under the constant `LIMIT` (firstRows): a bare `LIMIT $n` is planned as 10 % of its
  // input, the generic plan can then cost more than a custom one, and PostgreSQL plans the
  // statement again on every execution (docs/operations.md "Prepared statements").
  const page = firstRows(ordered, limit, keysetOrderBy(keyOf(source.key, "page"), order));
  if (!source.parent) return page;
  return `SELECT x.* FROM ${source.parent.from} LEFT JOIN LATERAL (
  ${page}) x ON true WHERE ${source.parent.where}`;
}

/** Whether `column` descends in `order`. */
const descends = (column: KeysetColumn, order: PageOrder) =>
  order === "desc" ? column.descending : !column.descending;

/** `k` read from its output columns (`column`) of the relation `alias` (a subquery or a materialized step). */
export const keyOf = (k: readonly KeysetColumn[], alias: string): KeysetColumn[] =>
  k.map((c) => ({ ...c, sql: `${alias}.${c.column}` }));

/** `ORDER BY` list of `key` in `order` (without the keywords). */
export function keysetOrderBy(key: readonly KeysetColumn[], order: PageOrder): string {
  return key.map((c) => `${c.sql} ${descends(c, order) ? "DESC" : "ASC"}`).join(", ");
}

/**
 * The condition "strictly after the position whose values are `param(i, type)`" in `key`'s
 * `order`. One direction: a row comparison (`(a, b) < ($1, $2)`, an index bound). Mixed
 * directions: the first column's bound (`a <= $1`, so an index on the key still starts at the
 * position) and the lexicographic `OR` form.
 */
export function keysetCondition(
  key: readonly KeysetColumn[],
  order: PageOrder,
  param: (index: number, type: KeysetType) => string,
): string {
  const p = (i: number) => param(i, key[i]?.type ?? "text");
  const first = key[0] as KeysetColumn;
  if (new Set(key.map((c) => descends(c, order))).size === 1) {
    const op = descends(first, order) ? "<" : ">";
    return `(${key.map((c) => c.sql).join(", ")}) ${op} (${key.map((_, i) => p(i)).join(", ")})`;
  }
  const terms = key.map((c, i) => {
    const equal = key.slice(0, i).map((q, j) => `${q.sql} = ${p(j)}`);
    return [...equal, `${c.sql} ${descends(c, order) ? "<" : ">"} ${p(i)}`].join(" AND ");
  });
  const bound = `${first.sql} ${descends(first, order) ? "<=" : ">="} ${p(0)}`;
  return `${bound} AND (${terms.map((t, i) => (i === 0 ? t : `(${t})`)).join(" OR ")})`;
}

/** The position of `row` in `source`'s order, read from its key columns, as a cursor carries it (`cursorForm`). */
export function keysetPositionOf(
  source: Pick<KeysetSource, "key">,
  row: Record<string, unknown>,
): KeysetPosition {
  return source.key.map((c) => {
    const value = row[c.column];
    if (c.type === "int4") return Number(value);
    if (c.type === "text") return c.cursorForm ? c.cursorForm(String(value)) : String(value);
    return typeof value === "bigint" ? value : toBigInt(String(value as Int8));
  });
}

/**
 * Decodes an optional cursor of `route` as a position of `source` (arity and the type of every
 * value checked).
 * @throws AppError `invalid_request` (field `cursor`) when it is not a cursor of this route and shape.
 */
export function decodeKeyset(
  cursors: CursorCodec,
  route: string,
  source: Pick<KeysetSource, "key">,
  cursor: string | undefined,
): KeysetPosition | null {
  if (cursor === undefined) return null;
  return checkKeyset(source.key, cursors.decode(route, cursor, source.key.length));
}

/**
 * `values` (decoded from a cursor) as a position of `key`: one value per column, of its type, in
 * the column's form (`cursorForm` applied).
 * @throws AppError `invalid_request` (field `cursor`) otherwise.
 */
export function checkKeyset(key: readonly KeysetColumn[], values: readonly CursorValue[]): KeysetPosition {
  if (values.length !== key.length) throw invalidCursor();
  key.forEach((c, i) => {
    const value = values[i];
    const ok =
      c.type === "int4"
        ? typeof value === "number"
        : c.type === "text"
          ? typeof value === "string"
          : typeof value === "bigint";
    if (!ok) throw invalidCursor();
  });
  return key.map((c, i) => {
    const value = values[i] as CursorValue;
    return c.cursorForm && typeof value === "string" ? c.cursorForm(value) : value;
  });
}

/** One page read by {@link readKeysetPage}: at most `limit` rows and the cursor of the next page when one exists. */
export interface KeysetPage<R> {
  rows: R[];
  nextCursor?: string;
}

/**
 * Reads one page of `source`: decodes `cursor` (bound to `route`, which should name the resource,
 * its parent and every parameter that changes the order or the rows, e.g.
 * `tokens.trades:<token>:<order>`), runs the prepared statement with `filters` and `limit + 1`,
 * and returns the first `limit` rows plus `nextCursor` (the last returned row's position) when
 * a further row exists. Returns `null` when `source.parent` is set and matches no row.
 *
 * @example
 * const page = await readKeysetPage<TradeRow>(db, TOKEN_TRADES, {
 *   filters: [token], order: "desc", limit: 20, cursor, cursors, route: `tokens.trades:${token}:desc`,
 * });
 * @throws AppError `invalid_request` (field `cursor`) for a cursor of another route or shape.
 * @throws RangeError when `limit` is above 100 ({@link PAGE_TAKE_MAX} − 1: the statements' constant `LIMIT`).
 */
export async function readKeysetPage<R extends Record<string, unknown>>(
  db: SqlReader,
  source: KeysetSource,
  options: {
    filters: readonly unknown[];
    order: PageOrder;
    limit: number;
    cursor: string | undefined;
    cursors: CursorCodec;
    route: string;
  },
): Promise<KeysetPage<R> | null> {
  const { filters, order, limit, cursors, route } = options;
  if (limit + 1 > PAGE_TAKE_MAX)
    throw new RangeError(`a keyset page reads at most ${PAGE_TAKE_MAX - 1} rows`);
  const after = decodeKeyset(cursors, route, source, options.cursor);
  const values = [
    ...filters,
    ...(after ?? []).map((v) => (typeof v === "bigint" ? v.toString() : v)),
    limit + 1,
  ];
  const result = await prepared<R>(
    db,
    `qapi_${source.name}_${order}_${after === null ? "first" : "after"}`,
    (source.statement ?? ((o, a, n) => keysetSql(source, o, a, n)))(order, after !== null, filters.length),
    values,
  );
  if (source.parent && result.rows.length === 0) return null;
  const first = source.key[0]?.column ?? "";
  // A parent without rows comes back as one all-null row of the lateral join.
  const rows = source.parent ? result.rows.filter((row) => row[first] !== null) : result.rows;
  const shown = rows.slice(0, limit);
  const last = shown[shown.length - 1];
  const page: KeysetPage<R> = { rows: shown };
  if (rows.length > limit && last !== undefined)
    page.nextCursor = cursors.encode(route, keysetPositionOf(source, last));
  return page;
}

/** The wire Page (`{items, next_cursor?}`) of a {@link KeysetPage}, each row mapped by `item`. */
export function keysetBody<R, T>(
  page: KeysetPage<R>,
  item: (row: R) => T,
): { items: T[]; next_cursor?: string } {
  const body: { items: T[]; next_cursor?: string } = { items: page.rows.map(item) };
  if (page.nextCursor !== undefined) body.next_cursor = page.nextCursor;
  return body;
}

/** Key of a chain event or trade: (block_number, transaction_index, log_index, transaction_hash) over alias `r`, newest first. */
export const CHAIN_POSITION_KEY: readonly KeysetColumn[] = CHAIN_POSITION_COLUMNS.map((c) => ({
  sql: `r.${c.column}`,
  column: c.column,
  type: c.type,
  descending: true,
}));
