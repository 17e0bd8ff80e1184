import { invertHexDigits } from "@tmi/shared/codec";
import { lifecycleOf, progressBpsSql } from "@tmi/shared/market";
import type { KeysetColumn } from "../common/keyset-page.js";
import type { Screener } from "./token-screener.js";

// The orders and filters of the token list (docs/api.md "Discovery: sorts, phase and batch"):
// each sort's key over `tokens t` (an index's, prisma/migrations/*_discovery-indexes.sql), the
// two-part sorts over the trending snapshot, the `phase` filter. Read by token-page-sql.ts (the
// statements) and token-list-queries.ts (the pages).

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
export const PROGRESS_BPS_SQL = `(${progressBpsSql("t.sold_supply", "t.graduation_threshold")})`;

/** A key of the token list over `tokens t`, its columns named `k0`, `k1`. */
const key = (...columns: [sql: string, type: KeysetColumn["type"], descending: boolean][]): KeysetColumn[] =>
  columns.map(([sql, type, descending], i) => ({ sql, column: `k${i}`, type, descending }));

/**
 * The tie of the value sorts over `tokens t`: `tokens.address_tie`, the address with every hex
 * digit d written 15 − d (a stored column PostgreSQL generates, migration
 * `tokens-address-tie-column`), descending — the address ascending (addresses are stored
 * lowercase), in the same direction as the value, so the whole key is one direction and a cursor
 * is a row comparison that starts the index scan at the position instead of filtering the value's
 * tie group (the four value-sort indexes hold the column). A column, not the `translate`
 * expression: PostgreSQL 15 evaluates an ORDER BY expression again for every row an index scan
 * returns (≈ 7 µs a row at 1M tokens, 2,000 of them per walk of a capped search or a screener).
 */
export const ADDRESS_TIE_SQL = "t.address_tie";

/** Value descending, then address ascending (as {@link ADDRESS_TIE_SQL} descending). */
const byValue = (sql: string, type: KeysetColumn["type"]): KeysetColumn[] => [
  { sql, column: "k0", type, descending: true },
  { sql: ADDRESS_TIE_SQL, column: "k1", type: "text", descending: true, cursorForm: invertHexDigits },
];

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
  /** Screener filters (`token-screener.ts`); absent: none. */
  screener?: Screener | undefined;
}

/** A row of a token page: its key values (`k0`, `k1`) and its wire JSON. */
export interface TokenPageRow extends Record<string, unknown> {
  k0: unknown;
  k1?: unknown;
  item: string;
}

/**
 * The rows of a screened page (docs/api.md "Screener filters"): the tokens that pass, in order,
 * and `stop`, the last row the page examined when it stopped at its bound before finding a row
 * past the page (the position the next page resumes from); absent when the rows read were not cut
 * by the bound.
 */
export interface ScreenedRows {
  rows: TokenPageRow[];
  stop?: TokenPageRow;
}
