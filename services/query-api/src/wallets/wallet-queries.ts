import { TOKEN_FROM_SQL } from "@tmi/shared/token";
import {
  latestUsdSql,
  POSITION_COLUMNS,
  type PositionColumns,
  type PositionWire,
  positionFromRow,
  unrealizedPnlSql,
  valueAtCurrentPriceSql,
} from "../common/position-sql.js";
import { prepared, type SqlReader } from "../db.js";
import { TOKEN_ITEM_JSON } from "../tokens/token-queries.js";

// A wallet's summary, holdings and trades (docs/api.md "Wallets and traders"). A wallet's rows
// are found through `token_balances_holder_idx` and `positions_trader_idx` (its trades are the
// keyset source `walletTradesSource` of trades/); values that depend on each token's current price are computed
// per request over the wallet's own rows.

const SUMMARY_SQL = `WITH h AS (
  SELECT count(*)::int AS n, coalesce(sum(${valueAtCurrentPriceSql("b.balance")}), 0) AS value
  FROM token_balances b JOIN tokens t ON t.address = b.token_address
  WHERE b.holder = $1 AND b.balance > 0),
p AS (
  SELECT coalesce(sum(p.realized_pnl), 0) AS realized, coalesce(sum(${unrealizedPnlSql()}), 0) AS unrealized,
    coalesce(sum(p.buy_count + p.sell_count), 0)::int8 AS trades, coalesce(sum(p.volume), 0) AS volume
  FROM positions p JOIN tokens t ON t.address = p.token_address
  WHERE p.trader = $1)
SELECT h.n AS holding_count, h.value::text AS value, ${latestUsdSql("h.value")} AS value_usd,
  p.realized::text AS realized_pnl, p.unrealized::text AS unrealized_pnl, (p.realized + p.unrealized)::text AS pnl,
  p.trades::text AS trade_count, p.volume::text AS volume
FROM h, p`;

/** A wallet's summary (docs/api.md "GET /api/v1/wallets/{address}"); created_token_count is added by the route. */
export interface WalletTotals {
  holding_count: number;
  value: string;
  value_usd: string | null;
  realized_pnl: string;
  unrealized_pnl: string;
  pnl: string;
  trade_count: number;
  volume: string;
}

/**
 * Sums over the wallet's holdings (`holding_count`, `value` = Σ floor(balance × current_price /
 * 10^18), `value_usd` at the latest ETH/USD answer) and positions (`realized_pnl`,
 * `unrealized_pnl`, `pnl`, `trade_count` = Σ buys + sells, `volume` = Σ bought + sold reserve);
 * zeros for an address with nothing. Source: `token_balances`, `positions`, `tokens`, `eth_usd_answers`.
 */
export async function getWalletTotals(db: SqlReader, wallet: string): Promise<WalletTotals> {
  const { rows } = await prepared<Omit<WalletTotals, "trade_count"> & { trade_count: string }>(
    db,
    "qapi_wallet_summary",
    SUMMARY_SQL,
    [wallet],
  );
  const row = rows[0]!;
  return { ...row, trade_count: Number(row.trade_count) };
}

/** Keyset position of a holdings page: (group 0 held / 1 closed, value, token address). */
export type HoldingPosition = [number, bigint, string];

// Held tokens (positive balance) by value, then, with `include_closed`, the wallet's positions in
// tokens it no longer holds (balance 0, value 0) by token address. `value` depends on each token's
// price, so no index orders it: the wallet's held rows are read through the holder index and
// sorted (cost linear in the wallet's held tokens; none on a page of the closed group). The closed
// positions are walked in token order through the trader index from the cursor, each checked by a
// key lookup of its balance (a subplan; without `balance > 0` it cannot take the partial
// `token_balances_rank_idx`, which reads the token's whole range), and only when the held rows do not fill the page: a page
// reads about `take` of them beyond the held ones it skips. As joins, the generic plan
// (estimating the average wallet's few rows) rescanned the wallet's rows per row of the other side,
// quadratic in the wallet's tokens (test/wallet-plans.int.test.ts). The cursor ($3 group, $4
// value, $5 token) is read through init plans where it bounds an index.
const HOLDINGS_SQL = `WITH held AS MATERIALIZED (
  SELECT 0 AS grp, b.token_address, b.balance, ${valueAtCurrentPriceSql("b.balance")} AS value
  FROM token_balances b JOIN tokens t ON t.address = b.token_address
  WHERE b.holder = $1 AND b.balance > 0 AND coalesce($3::int, 0) = 0),
held_page AS MATERIALIZED (
  SELECT * FROM held
  WHERE $3::int IS NULL OR value < $4::numeric OR (value = $4::numeric AND token_address > $5::text)
  ORDER BY value DESC, token_address
  LIMIT $6),
page AS (
  SELECT * FROM held_page
  UNION ALL
  (SELECT 1, p.token_address, 0::numeric, 0::numeric FROM positions p
  WHERE $2::boolean AND (SELECT count(*) FROM held_page) < $6 AND p.trader = $1
    AND p.token_address > (SELECT CASE WHEN $3::int = 1 THEN $5::text ELSE '' END)
    AND coalesce((SELECT b.balance FROM token_balances b
      WHERE b.token_address = p.token_address AND b.holder = $1), 0) <= 0
  ORDER BY p.token_address
  LIMIT $6))
SELECT page.grp, page.token_address, page.balance::text AS balance, page.value::text AS value,
  ${latestUsdSql("page.value")} AS value_usd,
  div(page.balance * 10000, nullif(t.initial_supply, 0))::int AS share_bps,
  ${TOKEN_ITEM_JSON} AS token_json, ${POSITION_COLUMNS()}
FROM (SELECT * FROM page ORDER BY grp, value DESC, token_address LIMIT $6) page
JOIN ${TOKEN_FROM_SQL} ON t.address = page.token_address
LEFT JOIN LATERAL (SELECT * FROM positions p WHERE p.token_address = page.token_address AND p.trader = $1 LIMIT 1) p ON true
ORDER BY page.grp, page.value DESC, page.token_address`;

/** One holding as read (the Token object is JSON text built by PostgreSQL). */
export interface HoldingRow {
  position: HoldingPosition;
  tokenJson: string;
  balance: string;
  value: string;
  valueUsd: string | null;
  shareBps: number;
  positionWire: PositionWire | undefined;
}

/**
 * A page of the wallet's holdings: positive balances ordered by `value` desc then token address,
 * then (with `includeClosed`) the tokens the wallet traded and no longer holds, by token address;
 * strictly after `after`, at most `take` rows. Source: `token_balances`, `positions`, `tokens`,
 * `metadata_drafts`, `eth_usd_answers`.
 */
export async function listHoldings(
  db: SqlReader,
  options: { wallet: string; includeClosed: boolean; after: HoldingPosition | null; take: number },
): Promise<HoldingRow[]> {
  const { wallet, includeClosed, after, take } = options;
  const { rows } = await prepared<
    PositionColumns & {
      grp: number;
      token_address: string;
      balance: string;
      value: string;
      value_usd: string | null;
      share_bps: number | null;
      token_json: string;
    }
  >(db, "qapi_wallet_holdings", HOLDINGS_SQL, [
    wallet,
    includeClosed,
    after?.[0] ?? null,
    after?.[1].toString() ?? null,
    after?.[2] ?? null,
    take,
  ]);
  return rows.map((r) => ({
    position: [r.grp, BigInt(r.value), r.token_address],
    tokenJson: r.token_json,
    balance: r.balance,
    value: r.value,
    valueUsd: r.value_usd,
    shareBps: r.share_bps ?? 0,
    positionWire: positionFromRow(r),
  }));
}
