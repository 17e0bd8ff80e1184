import { pageQuery } from "../../common/params.js";
import { dataRoutes } from "../../route-context.js";
import { tokenPageBody } from "../token-list-queries.js";
import { tokenPageSchema } from "../token-schemas.js";
import { trendingPage } from "./trending-queries.js";

/**
 * Trending routes (docs/api.md "Trending"): `/api/v1/tokens/trending` and its alias
 * `/api/v1/trending`: the latest materialized snapshot's tokens in rank order, then every other
 * visible token, newest first; a cursor pages through the snapshot it was issued from.
 */
export const trendingRoutes = dataRoutes("tokens", (routes, ctx) => {
  for (const url of ["/api/v1/tokens/trending", "/api/v1/trending"]) {
    routes.get(
      url,
      {
        summary: url === "/api/v1/trending" ? "Trending tokens (alias)" : "Trending tokens",
        description:
          "Tokens with at least one trade in the trending window, ordered by window volume, then window trade count, then window unique traders, then address, from the latest materialized snapshot; then every other visible token, newest launch first. A cursor pages through the snapshot it was issued from.",
        query: pageQuery,
        ok: tokenPageSchema,
      },
      async ({ limit, cursor }) =>
        tokenPageBody(await trendingPage(ctx.db, { limit, cursor, cursors: ctx.cursors })),
    );
  }
});
