import { parseAddress } from "@tmi/shared/codec";
import { AppError } from "@tmi/shared/errors";
import { keysetBody, readKeysetPage } from "../common/keyset-page.js";
import { addressParams } from "../common/params.js";
import {
  cacheData,
  errorResponses,
  eventPageQuery,
  type RoutesPlugin,
  typedRoutes,
} from "../common/route-helpers.js";
import { TOKEN_TRADES, type TradeRow, tradeOf } from "./trade-queries.js";
import { tradePageSchema } from "./trade-schemas.js";

/** Trades routes (docs/api.md "Trades and activity"). */
export const tradeRoutes: RoutesPlugin = (ctx) => async (fastify) => {
  const app = typedRoutes(fastify);
  app.get(
    "/api/v1/tokens/:address/trades",
    {
      schema: {
        tags: ["tokens"],
        summary: "Trades page",
        description:
          "Ordered by (block_number, transaction_index, log_index, transaction_hash), newest first by default (`order=asc` for oldest first).",
        params: addressParams,
        querystring: eventPageQuery,
        response: { 200: tradePageSchema, ...errorResponses },
      },
    },
    async (request, reply) => {
      const address = parseAddress(request.params.address, "address");
      const { order, limit, cursor } = request.query;
      const page = await readKeysetPage<TradeRow>(ctx.db, TOKEN_TRADES, {
        filters: [address],
        order,
        limit,
        cursor,
        cursors: ctx.cursors,
        route: `tokens.trades:${address}:${order}`,
      });
      if (page === null) throw new AppError("not_found", `no canonical token ${address}`);
      cacheData(reply);
      return keysetBody(page, (row) => tradeOf(address, row)) as never;
    },
  );
};
