import { keysetBody, readKeysetPage } from "../../common/keyset-page.js";
import { EVENT_PAGE_ORDER, eventPageQuery } from "../../common/route-helpers.js";
import { tokenRoute } from "../../route-context.js";
import { type ActivityRow, activityOf, TOKEN_ACTIVITY } from "./activity-queries.js";
import { activityPageSchema } from "./activity-schemas.js";

/** Activity routes (docs/api.md "Trades and activity"). */
export const activityRoutes = tokenRoute("activity", {
  summary: "Decoded chain events page",
  description: EVENT_PAGE_ORDER,
  query: eventPageQuery,
  ok: activityPageSchema,
  read: async (ctx, address, { order, limit, cursor }) => {
    const page = await readKeysetPage<ActivityRow>(ctx.db, TOKEN_ACTIVITY, {
      filters: [address],
      order,
      limit,
      cursor,
      cursors: ctx.cursors,
      route: `tokens.activity:${address}:${order}`,
    });
    return page && keysetBody(page, activityOf);
  },
});
