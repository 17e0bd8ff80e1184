import { invalidCursor } from "../common/invalid-cursor.js";
import { keysetBody, readKeysetPage } from "../common/keyset-page.js";
import { JsonText } from "../common/route-helpers.js";
import { getCreatorAggregates } from "../creators/creator-queries.js";
import { dataRoutes } from "../route-context.js";
import { type TradeRow, tradeOf, walletTradesSource } from "../trades/trade-queries.js";
import { tradePageSchema } from "../trades/trade-schemas.js";
import { getWalletTotals, type HoldingPosition, listHoldings } from "./wallet-queries.js";
import {
  holdingPageSchema,
  holdingsQuery,
  walletSummarySchema,
  walletTradesQuery,
} from "./wallet-schemas.js";

/**
 * Wallet routes (docs/api.md "Wallets and traders"): `GET /api/v1/wallets/:address`
 * (summary), `…/holdings` and `…/trades`. Errors: 400 `invalid_address` (malformed path
 * address), 400 `invalid_request` (limit, cursor, order, source, include_closed). A wallet with
 * nothing has a zero summary and empty pages.
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
});
