import { parseAddress } from "@tmi/shared/codec";
import { z } from "zod";
import { keysetBody, readKeysetPage } from "../../common/keyset-page.js";
import { EVENT_PAGE_ORDER, eventPageQuery, noCanonicalToken } from "../../common/route-helpers.js";
import { dataRoutes } from "../../route-context.js";
import { TOKEN_TRADER_TRADES, TOKEN_TRADES, type TradeRow, tradeOf } from "../../trades/trade-queries.js";
import { tradePageSchema } from "../../trades/trade-schemas.js";

/** Query of a token's trades: the event page plus `trader` (addition). */
const tokenTradesQuery = eventPageQuery.extend({
  trader: z.string().optional().meta({
    description:
      "only the trades of this wallet (0x address, any letter case; malformed: 400 invalid_address)",
  }),
});

/**
 * A token's trades (docs/api.md "Trades and activity"): `GET /api/v1/tokens/:address/trades`,
 * `trader=` keeps one wallet's. Errors: 400 `invalid_address` (path or `trader`), 400
 * `invalid_request` (limit, cursor, order), 404 `not_found` (no canonical launch).
 */
export const tokenTradeRoutes = dataRoutes("tokens", (routes, ctx) => {
  routes.byAddress(
    "/api/v1/tokens/:address/trades",
    {
      summary: "Trades page",
      description: `${EVENT_PAGE_ORDER} \`trader\` keeps the trades of one wallet (same order and cursors).`,
      query: tokenTradesQuery,
      ok: tradePageSchema,
    },
    async (address, query) => {
      const { order, limit, cursor } = query;
      const trader = query.trader === undefined ? undefined : parseAddress(query.trader, "trader");
      const page = await readKeysetPage<TradeRow>(ctx.db, trader ? TOKEN_TRADER_TRADES : TOKEN_TRADES, {
        filters: trader ? [address, trader] : [address],
        order,
        limit,
        cursor,
        cursors: ctx.cursors,
        route: trader ? `tokens.trades:${address}:${order}:${trader}` : `tokens.trades:${address}:${order}`,
      });
      if (page === null) throw noCanonicalToken(address);
      return keysetBody(page, tradeOf);
    },
  );
});
