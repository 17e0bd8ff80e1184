import { keysetBody } from "../../common/keyset-page.js";
import { positionFromRow } from "../../common/position-sql.js";
import { noCanonicalToken } from "../../common/route-helpers.js";
import { dataRoutes } from "../../route-context.js";
import { readTokenTraders } from "./trader-queries.js";
import { traderPageSchema, tradersQuery } from "./trader-schemas.js";

/**
 * The traders of a token (docs/api.md "Wallets and traders"): `GET /api/v1/tokens/:address/traders`,
 * every address that traded it with its balance and position, `sort=pnl` through the per-process
 * pnl rankings when the context has them. Errors: 400 `invalid_address` (malformed path address),
 * 400 `invalid_request` (limit, cursor, sort), 404 `not_found` (no canonical launch).
 */
export const traderRoutes = dataRoutes("tokens", (routes, ctx) => {
  routes.byAddress(
    "/api/v1/tokens/:address/traders",
    {
      summary: "Token traders",
      description:
        "Every address that traded the token, with its balance and position, by `sort` descending, ties by trader address ascending. Cursors are bound to the token and the sort.",
      query: tradersQuery,
      ok: traderPageSchema,
    },
    async (token, { limit, cursor, sort }) => {
      const page = await readTokenTraders(ctx.db, {
        token,
        sort,
        limit,
        cursor,
        cursors: ctx.cursors,
        ...(ctx.pnlRankings ? { rankings: ctx.pnlRankings } : {}),
      });
      if (page === null) throw noCanonicalToken(token);
      return keysetBody(page, (row) => ({
        trader: row.trader,
        balance: row.balance,
        ...positionFromRow(row)!,
      }));
    },
  );
});
