import { parseAddress } from "@tmi/shared/codec";
import { AppError } from "@tmi/shared/errors";
import type { HttpApp } from "@tmi/shared/http";
import { addressParams } from "../common/params.js";
import {
  cacheData,
  decodeEventPosition,
  errorResponses,
  eventPage,
  eventPageQuery,
  type RouteContext,
} from "../common/route-helpers.js";
import { listActivity } from "./activity-queries.js";
import { activityPageSchema } from "./activity-schemas.js";

/** Activity route (docs/api.md "Trades and activity"). */
export function registerActivityRoutes(app: HttpApp, ctx: RouteContext): void {
  app.get(
    "/api/v1/tokens/:address/activity",
    {
      schema: {
        tags: ["tokens"],
        summary: "Decoded chain events page",
        description:
          "Ordered by (block_number, transaction_index, log_index, transaction_hash), newest first by default (`order=asc` for oldest first).",
        params: addressParams,
        querystring: eventPageQuery,
        response: { 200: activityPageSchema, ...errorResponses },
      },
    },
    async (request, reply) => {
      const address = parseAddress(request.params.address, "address");
      const { order, limit } = request.query;
      const route = `tokens.activity:${address}:${order}`;
      const after = decodeEventPosition(ctx.cursors, route, request.query.cursor);
      const result = await listActivity(ctx.db, { token: address, order, after, take: limit + 1 });
      if (result === null) throw new AppError("not_found", `no canonical token ${address}`);
      cacheData(reply);
      return eventPage(result, limit, ctx.cursors, route) as never;
    },
  );
}
