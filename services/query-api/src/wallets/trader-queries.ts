import type { KeysetSource } from "../common/keyset-page.js";
import { POSITION_COLUMNS, unrealizedPnlSql } from "./position-sql.js";
import type { TraderSort } from "./wallet-schemas.js";

/**
 * The ordering expression of each traders sort over `positions p` (token `t`). All but `pnl` are
 * stored columns with an index `(token_address, <column> DESC, trader)`, so a page is an index
 * range read whatever the cursor's depth; `pnl` depends on the token's current price and is
 * computed and sorted over the token's positions (primary key range, cost linear in the token's
 * trader count).
 */
const SORT_EXPR: Record<TraderSort, string> = {
  volume: "p.volume",
  pnl: `(p.realized_pnl + ${unrealizedPnlSql()})`,
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
    select: `p.trader, coalesce(b.balance, 0)::text AS balance, ${k} AS sort_key, ${POSITION_COLUMNS()}`,
    from: `positions p
    LEFT JOIN token_balances b ON b.token_address = p.token_address AND b.holder = p.trader`,
    where: "p.token_address = $1",
    key: [
      { sql: k, column: "sort_key", type: "numeric", descending: true },
      { sql: "p.trader", column: "trader", type: "text", descending: false },
    ],
    parent: { from: "tokens t", where: "t.address = $1" },
  };
}
