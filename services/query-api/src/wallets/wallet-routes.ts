import { invalidCursor } from "../common/invalid-cursor.js";
import { keysetBody, readKeysetPage } from "../common/keyset-page.js";
import { dataRoutes, JsonText, noCanonicalToken } from "../common/route-helpers.js";
import { getCreatorAggregates } from "../creators/creator-queries.js";
import { type TradeRow, tradeOf, walletTradesSource } from "../trades/trade-queries.js";
import { tradePageSchema } from "../trades/trade-schemas.js";
import { positionFromRow } from "./position-sql.js";
import { readTokenTraders } from "./trader-queries.js";
import { getWalletTotals, type HoldingPosition, listHoldings } from "./wallet-queries.js";
import {
  holdingPageSchema,
  holdingsQuery,
  traderPageSchema,
  tradersQuery,
  walletSummarySchema,
  walletTradesQuery,
} from "./wallet-schemas.js";

/**
 * Wallet and trader routes (docs/api.md "Wallets and traders"): `GET /api/v1/wallets/:address`
 * (summary), `…/holdings`, `…/trades`, and `GET /api/v1/tokens/:address/traders`. Errors: 400
 * `invalid_address` (malformed path address), 400 `invalid_request` (limit, cursor, order,
 * source, include_closed, sort), 404 `not_found` (traders of a token with no canonical launch).
 * A wallet with nothing has a zero summary and empty pages.
 */
export const walletRoutes = dataRoutes("wallets", (routes, ctx) => {
  const { db: pool, cursors: cursorCodec } = ctx;

  routes.byAddress(
    "/api/v1/wallets/:address",
    {
      summary: "Wallet summary",
      description:
        "Sums over the wallet's holdings (holding_count, value) and positions (realized_pnl, unrealized_pnl, pnl, trade_count, volume), and the tokens it launched. Zero for an address with nothing.",
      ok: walletSummarySchema,
    },
    async (address) => {
      const [totals, created] = await Promise.all([
        getWalletTotals(pool, address),
        getCreatorAggregates(pool, address),
      ]);
      return { address, ...totals, created_token_count: created.tokenCount };
    },
  );

  routes.byAddress(
    "/api/v1/wallets/:address/holdings",
    {
      summary: "Wallet holdings",
      description:
        'Tokens the wallet holds (positive balance) by value descending, then token address; `include_closed=true` adds the tokens it traded and no longer holds (balance "0") after them, by token address.',
      query: holdingsQuery,
      ok: holdingPageSchema,
    },
    async (address, query) => {
      const { limit, cursor } = query;
      const includeClosed = query.include_closed === "true";
      const route = `wallets.holdings:${address}:${includeClosed}`;
      let after: HoldingPosition | null = null;
      if (cursor !== undefined) {
        const [grp, value, token] = cursorCodec.decode(route, cursor, 3);
        if ((grp !== 0 && grp !== 1) || typeof value !== "bigint" || typeof token !== "string") {
          throw invalidCursor();
        }
        after = [grp, value, token];
      }
      const rows = await listHoldings(pool, { wallet: address, includeClosed, after, take: limit + 1 });
      const shown = rows.slice(0, limit);
      const items = shown.map((r) => {
        const position = r.positionWire === undefined ? "" : `,"position":${JSON.stringify(r.positionWire)}`;
        return `{"token":${r.tokenJson},"balance":"${r.balance}","value":"${r.value}","value_usd":${JSON.stringify(r.valueUsd)},"share_bps":${r.shareBps}${position}}`;
      });
      const last = shown[shown.length - 1];
      const next =
        rows.length > limit && last
          ? `,"next_cursor":${JSON.stringify(cursorCodec.encode(route, last.position))}`
          : "";
      return new JsonText(`{"items":[${items.join(",")}]${next}}`);
    },
  );

  routes.byAddress(
    "/api/v1/wallets/:address/trades",
    {
      summary: "Wallet trades",
      description:
        "The wallet's trades (it is the trade's `trader`) across all tokens, ordered by (block_number, transaction_index, log_index, transaction_hash), newest first by default.",
      query: walletTradesQuery,
      ok: tradePageSchema,
    },
    async (address, { order, limit, source, cursor }) => {
      const page = await readKeysetPage<TradeRow>(pool, walletTradesSource(source !== undefined), {
        filters: source === undefined ? [address] : [address, source],
        order,
        limit,
        cursor,
        cursors: cursorCodec,
        route: `wallets.trades:${address}:${order}:${source ?? ""}`,
      });
      return keysetBody(page ?? { rows: [] }, tradeOf);
    },
  );

  routes.byAddress(
    "/api/v1/tokens/:address/traders",
    {
      tag: "tokens",
      summary: "Token traders",
      description:
        "Every address that traded the token, with its balance and position, by `sort` descending, ties by trader address ascending. Cursors are bound to the token and the sort.",
      query: tradersQuery,
      ok: traderPageSchema,
    },
    async (token, { limit, cursor, sort }) => {
      const page = await readTokenTraders(pool, {
        token,
        sort,
        limit,
        cursor,
        cursors: cursorCodec,
        ...(ctx.pnlRankings ? { rankings: ctx.pnlRankings } : {}),
      });
      if (page === null) throw noCanonicalToken(token);
      return keysetBody(page, (row) => ({
        trader: row.trader,
        balance: row.balance,
        ...positionFromRow(row)!,
      }));
    },
  );
});
