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
import { type ActivityRow, activityOf, TOKEN_ACTIVITY } from "./activity-queries.js";
import { activityPageSchema } from "./activity-schemas.js";

/** Activity routes (docs/api.md "Trades and activity"). */
export const activityRoutes: RoutesPlugin = (ctx) => async (fastify) => {
  const app = typedRoutes(fastify);
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
      const { order, limit, cursor } = request.query;
      const page = await readKeysetPage<ActivityRow>(ctx.db, TOKEN_ACTIVITY, {
        filters: [address],
        order,
        limit,
        cursor,
        cursors: ctx.cursors,
        route: `tokens.activity:${address}:${order}`,
      });
      if (page === null) throw new AppError("not_found", `no canonical token ${address}`);
      cacheData(reply);
      return keysetBody(page, activityOf) as never;
    },
  );
};
