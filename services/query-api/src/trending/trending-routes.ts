import { AppError } from "@tmi/shared/errors";
import { pageQuery } from "../common/params.js";
import {
  cacheData,
  errorResponses,
  invalidCursor,
  jsonPage,
  jsonPageBody,
  type RoutesPlugin,
  typedRoutes,
} from "../common/route-helpers.js";
import { tokenPageSchema } from "../tokens/token-schemas.js";
import { listTrending, type TrendingPosition } from "./trending-queries.js";

/**
 * Trending routes (docs/api.md "Trending"): `/api/v1/tokens/trending` and its alias
 * `/api/v1/trending`, one page of the latest materialized snapshot; a cursor pages through the
 * snapshot it was issued from.
 */
export const trendingRoutes: RoutesPlugin = (ctx) => async (fastify) => {
  const app = typedRoutes(fastify);
  for (const url of ["/api/v1/tokens/trending", "/api/v1/trending"]) {
    app.get(
      url,
      {
        schema: {
          tags: ["tokens"],
          summary: url === "/api/v1/trending" ? "Trending tokens (alias)" : "Trending tokens",
          description:
            "Tokens with at least one trade in the trending window, ordered by window volume, then window trade count, then window unique traders, then address, from the latest materialized snapshot. A cursor pages through the snapshot it was issued from.",
          querystring: pageQuery,
          response: { 200: tokenPageSchema, ...errorResponses },
        },
      },
      async (request, reply) => {
        const route = "tokens.trending";
        let after: TrendingPosition | null = null;
        if (request.query.cursor !== undefined) {
          const [snapshot, rank] = ctx.cursors.decode(route, request.query.cursor, 2);
          if (typeof snapshot !== "bigint" || typeof rank !== "number") throw invalidCursor();
          after = [snapshot, rank];
        }
        const limit = request.query.limit;
        const result = await listTrending(ctx.db, { after, take: limit + 1 });
        if (after !== null && result.snapshotId === null) {
          throw new AppError(
            "invalid_request",
            "cursor expired: its trending snapshot is gone; start again from the first page",
            { details: [{ field: "cursor", reason: "trending snapshot no longer available" }] },
          );
        }
        cacheData(reply);
        const snapshotId = result.snapshotId ?? 0n;
        return jsonPageBody(
          jsonPage(
            result.rows,
            limit,
            (row) => row.item,
            (row) => [snapshotId, row.rank],
            ctx.cursors,
            route,
          ),
        ) as never;
      },
    );
  }
};
