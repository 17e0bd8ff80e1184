import { parseAddress } from "@tmi/shared/codec";
import { z } from "zod";
import { keysetBody, readKeysetPage } from "../common/keyset-page.js";
import { dataRoutes, EVENT_PAGE_ORDER, eventPageQuery, noCanonicalToken } from "../common/route-helpers.js";
import {
  MARKET_TRADES,
  MARKET_TRADES_BY_SOURCE,
  TOKEN_TRADER_TRADES,
  TOKEN_TRADES,
  type TradeRow,
  tradeOf,
} from "./trade-queries.js";
import { tradePageSchema } from "./trade-schemas.js";

/** Query of a token's trades: the event page plus `trader` (addition). */
const tokenTradesQuery = eventPageQuery.extend({
  trader: z.string().optional().meta({
    description:
      "only the trades of this wallet (0x address, any letter case; malformed: 400 invalid_address)",
  }),
});

/** Trades routes (docs/api.md "Trades and activity"). */
export const tradeRoutes = dataRoutes("tokens", (routes, ctx) => {
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

  routes.get(
    "/api/v1/trades",
    {
      summary: "Market-wide trades page (addition)",
      description:
        "Every visible token's trades (excluded tokens and creators left out), ordered by (block_number, transaction_index, log_index, transaction_hash), newest first by default (`order=asc` for oldest first); `source` keeps one venue.",
      query: eventPageQuery.extend({
        source: z.enum(["curve", "uniswap_v3"]).optional().meta({
          description:
            "`curve` (bonding-curve trades) or `uniswap_v3` (swaps of the canonical pools); both when absent",
        }),
      }),
      ok: tradePageSchema,
    },
    async ({ order, limit, cursor, source }) => {
      const page = await readKeysetPage<TradeRow>(
        ctx.db,
        source === undefined ? MARKET_TRADES : MARKET_TRADES_BY_SOURCE,
        {
          filters: source === undefined ? [] : [source],
          order,
          limit,
          cursor,
          cursors: ctx.cursors,
          route: `trades:${source ?? "all"}:${order}`,
        },
      );
      return keysetBody(page ?? { rows: [] }, tradeOf);
    },
  );
});
