import { z } from "zod";
import { JsonText } from "../../common/route-helpers.js";
import { tokenRoute } from "../../route-context.js";
import { getChartJson } from "./chart-queries.js";
import { chartQuery, chartSchema, parseInterval, usdChartSchema } from "./chart-schemas.js";

/** Chart route (docs/api.md "Chart"): gap-filled OHLC candles of a token. */
export const chartRoutes = tokenRoute("chart", {
  summary: "OHLC candles",
  description:
    "UTC-aligned buckets (weeks start Monday), oldest first, never before the launch bucket nor after the latest indexed block's: by default the `limit` most recent; `from`/`to` (Unix seconds) select the buckets holding them, `countback` the last N up to `to`. Empty buckets have zero counts, volume \"0\" and null prices. `currency=usd` answers the `UsdChart` (prices and volume in USD at the ETH/USD answer in force at each bucket's end). 400 `invalid_request` for a malformed parameter, `from` after `to`, or a `from`–`to` span of more than 1000 buckets without `countback`.",
  query: chartQuery,
  ok: z.union([chartSchema, usdChartSchema]),
  read: async (ctx, address, query) => {
    const interval = parseInterval(query.interval);
    const { limit, from, to, countback, currency } = query;
    const chart = await getChartJson(ctx.db, {
      token: address,
      window: { interval, limit, from, to, countback },
      currency,
    });
    return chart && new JsonText(chart);
  },
});
