import { parseAddress } from "@tmi/shared/codec";
import { AppError } from "@tmi/shared/errors";
import { z } from "zod";
import { addressParams } from "../common/params.js";
import {
  cacheData,
  errorResponses,
  JsonText,
  type RoutesPlugin,
  typedRoutes,
} from "../common/route-helpers.js";
import { getChartJson } from "./chart-queries.js";
import { chartQuery, chartSchema, parseInterval, usdChartSchema } from "./chart-schemas.js";

/** Chart route (docs/api.md "Chart"): gap-filled OHLC candles of a token. */
export const chartRoutes: RoutesPlugin = (ctx) => async (fastify) => {
  const app = typedRoutes(fastify);
  app.get(
    "/api/v1/tokens/:address/chart",
    {
      schema: {
        tags: ["tokens"],
        summary: "OHLC candles",
        description:
          "UTC-aligned buckets (weeks start Monday), oldest first, never before the launch bucket nor after the latest indexed block's: by default the `limit` most recent; `from`/`to` (Unix seconds) select the buckets holding them, `countback` the last N up to `to`. Empty buckets have zero counts, volume \"0\" and null prices. `currency=usd` answers the `UsdChart` (prices and volume in USD at the ETH/USD answer in force at each bucket's end). 400 `invalid_request` for a malformed parameter, `from` after `to`, or a `from`–`to` span of more than 1000 buckets without `countback`.",
        params: addressParams,
        querystring: chartQuery,
        response: { 200: z.union([chartSchema, usdChartSchema]), ...errorResponses },
      },
    },
    async (request, reply) => {
      const address = parseAddress(request.params.address, "address");
      const interval = parseInterval(request.query.interval);
      const { limit, from, to, countback, currency } = request.query;
      const chart = await getChartJson(ctx.db, {
        token: address,
        window: { interval, limit, from, to, countback },
        currency,
      });
      if (chart === null) throw new AppError("not_found", `no canonical token ${address}`);
      cacheData(reply);
      return new JsonText(chart) as never;
    },
  );
};
