import type { CursorCodec } from "@tmi/shared/codec";
import {
  decodeKeyset,
  firstRows,
  type KeysetColumn,
  type KeysetPage,
  type KeysetSource,
  keyOf,
  keysetCondition,
  keysetOrderBy,
  keysetPositionOf,
  type PageOrder,
  readKeysetPage,
} from "../../common/keyset-page.js";
import { POSITION_COLUMNS, type PositionColumns, pnlSql } from "../../common/position-sql.js";
import type { SqlReader } from "../../db.js";
import { type PnlRankings, pnlKeysetPage } from "./pnl-ranking.js";
import type { TraderSort } from "./trader-schemas.js";

/**
 * The ordering expression of each traders sort over `positions p` (token `t`). All but `pnl` are
 * stored columns with an index `(token_address, <column> DESC, trader)`, so a page is an index
 * range read whatever the cursor's depth; `pnl` depends on the token's current price and is
 * computed and sorted over the token's positions (primary key range, cost linear in the token's
 * trader count): {@link readTokenTraders} answers it from a per-process ranking instead
 * (pnl-ranking.ts) and reads it so only when the ranking cannot be used, with
 * {@link pnlPageSql}.
 */
const SORT_EXPR: Record<TraderSort, string> = {
  volume: "p.volume",
  pnl: pnlSql(),
  realized_pnl: "p.realized_pnl",
  bought: "p.bought_reserve",
  sold: "p.sold_reserve",
};

/**
 * A token's traders (`$1` token: every address with a trade of it) with their balance and
 * position, by `sort` descending then trader ascending; `sort_key` is the sort's value (the
 * cursor). An unknown token is `null` (lateral join from `tokens`). Source: `positions`,
 * `token_balances`, `tokens`.
 */
export function tokenTradersSource(sort: TraderSort): KeysetSource {
  const k = SORT_EXPR[sort];
  return {
    name: `traders_${sort}`,
    // The balance by key, per row of the page (a subplan): joined, the generic plan rescanned the
    // token's balances per trader (21 × 2,360 rows for a page of a token with 2,360 holders; `pnpm
    // bench api-plans`). Without `balance > 0` it cannot take the partial `token_balances_rank_idx`
    // (token, balance, holder), which would read the token's whole range for one holder.
    select: `p.trader, coalesce((SELECT b.balance FROM token_balances b
      WHERE b.token_address = p.token_address AND b.holder = p.trader), 0)::text AS balance,
    ${k} AS sort_key, ${POSITION_COLUMNS()}`,
    from: "positions p",
    where: "p.token_address = $1",
    key: [
      { sql: k, column: "sort_key", type: "numeric", descending: true },
      { sql: "p.trader", column: "trader", type: "text", descending: false },
    ],
    parent: { from: "tokens t", where: "t.address = $1" },
    ...(sort === "pnl" ? { statement: pnlPageSql } : {}),
  };
}

/** The pnl key over the positions alias `q` alone (pnl descending, trader ascending). */
const PNL_KEY: readonly KeysetColumn[] = [
  { sql: pnlSql("q"), column: "k", type: "numeric", descending: true },
  { sql: "q.trader", column: "trader", type: "text", descending: false },
];

/**
 * The page statement of the `pnl` sort read directly (`$1` token, then the cursor's pnl and trader
 * when `after`, then the page size): the token's positions are ranked on (pnl, trader) alone, a
 * top-N sort that computes one NUMERIC per position, and only the page's rows are then read whole
 * (position and balance by primary key). Sorting whole rows joined to their balances, as the other
 * sorts' statement would, cost about 4× more (150,000 positions: 450 ms → 120 ms,
 * docs/benchmarks.md). Still linear in the token's positions: the ranking cache is the fast path.
 */
export function pnlPageSql(order: PageOrder, after: boolean, filterCount: number): string {
  const keyset = after
    ? `\n        AND ${keysetCondition(PNL_KEY, order, (i, type) => `$${filterCount + 1 + i}::${type}`)}`
    : "";
  const limit = `$${filterCount + 1 + (after ? PNL_KEY.length : 0)}`;
  return `SELECT x.* FROM tokens t LEFT JOIN LATERAL (
  SELECT p.trader, coalesce(b.balance, 0)::text AS balance, s.k AS sort_key, ${POSITION_COLUMNS()}
  FROM (${firstRows(
    `SELECT q.trader, ${pnlSql("q")} AS k FROM positions q
        WHERE q.token_address = t.address${keyset}
        ORDER BY ${keysetOrderBy(PNL_KEY, order)}`,
    limit,
    keysetOrderBy(keyOf(PNL_KEY, "page"), order),
  )}) s
  CROSS JOIN LATERAL (SELECT * FROM positions r WHERE r.token_address = t.address AND r.trader = s.trader LIMIT 1) p
  LEFT JOIN LATERAL (
    SELECT q.balance FROM token_balances q
    WHERE q.token_address = t.address AND q.holder = s.trader LIMIT 1
  ) b ON true
  ORDER BY s.k ${order === "desc" ? "DESC" : "ASC"}, s.trader ${order === "desc" ? "ASC" : "DESC"}
) x ON true WHERE t.address = $1`;
}

/** A row of a token's traders page: trader, balance, sort key (the cursor) and position columns. */
export type TraderRow = PositionColumns & Record<string, unknown> & { trader: string; balance: string };

/**
 * One page of a token's traders (`GET /api/v1/tokens/{address}/traders`): `limit` rows by `sort`
 * after `cursor` (bound to `tokens.traders:<token>:<sort>`), `null` for an unknown token. The
 * `pnl` sort is answered from `rankings` when given (the token's ranking at the version its rows
 * were read at; see pnl-ranking.ts), else, like every other sort, by the keyset statement of
 * {@link tokenTradersSource}: the same rows and cursors either way.
 * @throws AppError `invalid_request` (field `cursor`) for a cursor of another route or shape.
 */
export async function readTokenTraders(
  db: SqlReader,
  options: {
    token: string;
    sort: TraderSort;
    limit: number;
    cursor: string | undefined;
    cursors: CursorCodec;
    rankings?: PnlRankings;
  },
): Promise<KeysetPage<TraderRow> | null> {
  const { token, sort, limit, cursor, cursors, rankings } = options;
  const source = tokenTradersSource(sort);
  const route = `tokens.traders:${token}:${sort}`;
  if (sort === "pnl" && rankings) {
    const after = decodeKeyset(cursors, route, source, cursor);
    const result = await rankings.page(db, token, after, limit);
    if (result.kind === "unknown") return null;
    if (result.kind === "page") {
      return pnlKeysetPage(result, (last) => cursors.encode(route, keysetPositionOf(source, last)));
    }
  }
  return readKeysetPage<TraderRow>(db, source, {
    filters: [token],
    order: "desc",
    limit,
    cursor,
    cursors,
    route,
  });
}
