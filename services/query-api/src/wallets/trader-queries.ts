import { prepared, type ReadDb } from "../db.js";
import {
  POSITION_COLUMNS,
  type PositionColumns,
  type PositionWire,
  positionFromRow,
  unrealizedPnlSql,
} from "./position-sql.js";
import type { TraderSort } from "./wallet-schemas.js";

/**
 * The ordering expression of each traders sort over `positions p` (token `t`). All but `pnl` are
 * stored columns with an index `(token_address, <column> DESC, trader)`, so a page is an index
 * range read; `pnl` depends on the token's current price and is computed and sorted over the
 * token's positions (primary key range, cost linear in the token's trader count).
 */
const SORT_EXPR: Record<TraderSort, string> = {
  volume: "p.volume",
  pnl: `(p.realized_pnl + ${unrealizedPnlSql()})`,
  realized_pnl: "p.realized_pnl",
  bought: "p.bought_reserve",
  sold: "p.sold_reserve",
};

const tradersSql = (sort: TraderSort, after: boolean) => {
  const k = SORT_EXPR[sort];
  // `k <= $2` is the index condition of the keyset (the rest filters the ties).
  const keyset = after ? `AND ${k} <= $2::numeric AND (${k} < $2::numeric OR p.trader > $3::text)` : "";
  return `SELECT x.* FROM tokens t LEFT JOIN LATERAL (
  SELECT p.trader, coalesce(b.balance, 0)::text AS balance, (${k})::text AS sort_key, ${POSITION_COLUMNS()}
  FROM positions p
  LEFT JOIN token_balances b ON b.token_address = p.token_address AND b.holder = p.trader
  WHERE p.token_address = $1 ${keyset}
  ORDER BY ${k} DESC, p.trader
  LIMIT $${after ? 4 : 2}) x ON true WHERE t.address = $1`;
};

/** One trader of a token as read: address, balance, the position, the sort key (cursor). */
export interface TraderRow {
  trader: string;
  balance: string;
  sortKey: bigint;
  position: PositionWire;
}

/**
 * A page of `token`'s traders (every address with a trade of it) in `sort` order (descending,
 * then trader ascending), strictly after `after` = (sort key, trader), at most `take`. `null`
 * when the token has no canonical record. Source: `positions`, `token_balances`, `tokens`.
 */
export async function listTraders(
  db: ReadDb,
  options: { token: string; sort: TraderSort; after: [bigint, string] | null; take: number },
): Promise<TraderRow[] | null> {
  const { token, sort, after, take } = options;
  const { rows } = await prepared<
    PositionColumns & { trader: string | null; balance: string; sort_key: string }
  >(
    db,
    `qapi_traders_${sort}_${after ? "after" : "first"}`,
    tradersSql(sort, after !== null),
    after ? [token, after[0].toString(), after[1], take] : [token, take],
  );
  if (rows.length === 0) return null;
  const out: TraderRow[] = [];
  for (const r of rows) {
    if (r.trader === null) continue;
    out.push({
      trader: r.trader,
      balance: r.balance,
      sortKey: BigInt(r.sort_key),
      position: positionFromRow(r)!,
    });
  }
  return out;
}
