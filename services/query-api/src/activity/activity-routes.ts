import { AppError } from "@tmi/shared/errors";
import { keysetBody, readKeysetPage } from "../common/keyset-page.js";
import { DataRoutes, eventPageQuery, type RoutesPlugin } from "../common/route-helpers.js";
import { type ActivityRow, activityOf, TOKEN_ACTIVITY } from "./activity-queries.js";
import { activityPageSchema } from "./activity-schemas.js";

/** Activity routes (docs/api.md "Trades and activity"). */
export const activityRoutes: RoutesPlugin = (ctx) => async (fastify) => {
  new DataRoutes(fastify, "tokens").byAddress(
    "/api/v1/tokens/:address/activity",
    {
      summary: "Decoded chain events page",
      description:
        "Ordered by (block_number, transaction_index, log_index, transaction_hash), newest first by default (`order=asc` for oldest first).",
      query: eventPageQuery,
      ok: activityPageSchema,
    },
    async (address, { order, limit, cursor }) => {
      const page = await readKeysetPage<ActivityRow>(ctx.db, TOKEN_ACTIVITY, {
        filters: [address],
        order,
        limit,
        cursor,
        cursors: ctx.cursors,
        route: `tokens.activity:${address}:${order}`,
      });
      if (page === null) throw new AppError("not_found", `no canonical token ${address}`);
      return keysetBody(page, activityOf);
    },
  );
};
