import { z } from "zod";
import { keysetBody, readKeysetPage } from "../common/keyset-page.js";
import { eventPageQuery } from "../common/route-helpers.js";
import { dataRoutes } from "../route-context.js";
import { MARKET_TRADES, MARKET_TRADES_BY_SOURCE, type TradeRow, tradeOf } from "./trade-queries.js";
import { tradePageSchema } from "./trade-schemas.js";

/**
 * The market-wide trades page (docs/api.md "Trades and activity"): `GET /api/v1/trades`, every
 * visible token's trades. A token's trades are `tokens/trades/`.
 */
export const tradeRoutes = dataRoutes("tokens", (routes, ctx) => {
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
