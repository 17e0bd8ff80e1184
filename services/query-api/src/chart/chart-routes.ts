import { parseAddress } from "@tmi/shared/codec";
import { AppError } from "@tmi/shared/errors";
import { addressParams } from "../common/params.js";
import {
  cacheData,
  errorResponses,
  JsonText,
  type RoutesPlugin,
  typedRoutes,
} from "../common/route-helpers.js";
import { getChartJson } from "./chart-queries.js";
import { chartQuery, chartSchema, parseInterval } from "./chart-schemas.js";

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
          'The `limit` most recent UTC-aligned buckets (weeks start Monday) up to the bucket of the latest indexed block, oldest first, never before the launch bucket; empty buckets have zero counts, volume "0" and null prices.',
        params: addressParams,
        querystring: chartQuery,
        response: { 200: chartSchema, ...errorResponses },
      },
    },
    async (request, reply) => {
      const address = parseAddress(request.params.address, "address");
      const interval = parseInterval(request.query.interval);
      const chart = await getChartJson(ctx.db, { token: address, interval, limit: request.query.limit });
      if (chart === null) throw new AppError("not_found", `no canonical token ${address}`);
      cacheData(reply);
      return new JsonText(chart) as never;
    },
  );
};
