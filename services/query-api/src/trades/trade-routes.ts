import { parseAddress } from "@tmi/shared/codec";
import { AppError } from "@tmi/shared/errors";
import type { HttpApp } from "@tmi/shared/http";
import { z } from "zod";
import { addressParams } from "../common/params.js";
import {
  cacheData,
  decodeEventPosition,
  errorResponses,
  eventPage,
  eventPageQuery,
  type RouteContext,
} from "../common/route-helpers.js";
import { listTraderTrades, listTrades } from "./trade-queries.js";
import { tradePageSchema } from "./trade-schemas.js";

/** Query of a token's trades: the event page plus `trader` (addition). */
const tokenTradesQuery = eventPageQuery.extend({
  trader: z.string().optional().meta({
    description:
      "only the trades of this wallet (0x address, any letter case; malformed: 400 invalid_address)",
  }),
});

/** Trades route (docs/api.md "Trades and activity"). */
export function registerTradeRoutes(app: HttpApp, ctx: RouteContext): void {
  app.get(
    "/api/v1/tokens/:address/trades",
    {
      schema: {
        tags: ["tokens"],
        summary: "Trades page",
        description:
          "Ordered by (block_number, transaction_index, log_index, transaction_hash), newest first by default (`order=asc` for oldest first). `trader` keeps the trades of one wallet (same order and cursors).",
        params: addressParams,
        querystring: tokenTradesQuery,
        response: { 200: tradePageSchema, ...errorResponses },
      },
    },
    async (request, reply) => {
      const address = parseAddress(request.params.address, "address");
      const { order, limit } = request.query;
      const trader =
        request.query.trader === undefined ? undefined : parseAddress(request.query.trader, "trader");
      const route =
        trader === undefined
          ? `tokens.trades:${address}:${order}`
          : `tokens.trades:${address}:${order}:${trader}`;
      const after = decodeEventPosition(ctx.cursors, route, request.query.cursor);
      const result =
        trader === undefined
          ? await listTrades(ctx.db, { token: address, order, after, take: limit + 1 })
          : await listTraderTrades(ctx.db, { token: address, trader, order, after, take: limit + 1 });
      if (result === null) throw new AppError("not_found", `no canonical token ${address}`);
      cacheData(reply);
      return eventPage(result, limit, ctx.cursors, route) as never;
    },
  );
}
