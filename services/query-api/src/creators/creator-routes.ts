import { pageQuery } from "../common/params.js";
import { JsonText, jsonPageBody } from "../common/route-helpers.js";
import { dataRoutes } from "../route-context.js";
import { newestTokenPage } from "../tokens/token-list-queries.js";
import { tokenPageSchema } from "../tokens/token-schemas.js";
import {
  getCreatorAggregates,
  listCreatorEarnings,
  listCreatorTokens,
  readCreatorEarningTotals,
} from "./creator-queries.js";
import { creatorEarningsSchema, creatorProfileSchema } from "./creator-schemas.js";

/**
 * Creator routes: the profile (aggregates plus the first page of tokens) and the tokens page.
 * Both take the same cursors (`next_cursor` of either pages the creator's tokens). An address
 * that launched nothing, or an excluded creator, has a zero profile (200), not a 404.
 */
export const creatorRoutes = dataRoutes("creators", (routes, ctx) => {
  const tokensPage = (address: string, query: { limit: number; cursor?: string | undefined }) =>
    newestTokenPage({ ...query, cursors: ctx.cursors, route: `creators.tokens:${address}` }, (after, take) =>
      listCreatorTokens(ctx.db, { creator: address, after, take }),
    );

  routes.byAddress(
    "/api/v1/creators/:address",
    { summary: "Creator profile with its tokens, newest first", query: pageQuery, ok: creatorProfileSchema },
    async (address, query) => {
      const [aggregates, page] = await Promise.all([
        getCreatorAggregates(ctx.db, address),
        tokensPage(address, query),
      ]);
      const cursor = page.nextCursor === undefined ? "" : `,"next_cursor":${JSON.stringify(page.nextCursor)}`;
      return new JsonText(
        `{"address":${JSON.stringify(address)},"token_count":${aggregates.tokenCount},"volume":${JSON.stringify(aggregates.volume)},"tokens":${page.items}${cursor}}`,
      );
    },
  );

  routes.byAddress(
    "/api/v1/creators/:address/tokens",
    { summary: "Creator tokens page, newest first", query: pageQuery, ok: tokenPageSchema },
    async (address, query) => jsonPageBody(await tokensPage(address, query)),
  );

  routes.byAddress(
    "/api/v1/creators/:address/earnings",
    {
      summary: "Creator earnings: curve and LP creator fees, per token and in total",
      description:
        "Per token the address launched (newest first, paged): the creator's curve fees (earned, claimed, claimable) and LP creator share; totals: curve fees claimable and claimed, LP creator fees claimable (the LP fee vault's creatorLPFeesAccrued(address, asset)) and claimed. The payout address of each token, not the launch's creator, is who may claim its fees.",
      query: pageQuery,
      ok: creatorEarningsSchema,
    },
    async (address, query) => {
      const [totals, page] = await Promise.all([
        readCreatorEarningTotals(ctx.db, address),
        newestTokenPage(
          { ...query, cursors: ctx.cursors, route: `creators.earnings:${address}` },
          (after, take) => listCreatorEarnings(ctx.db, { creator: address, after, take }),
        ),
      ]);
      const cursor = page.nextCursor === undefined ? "" : `,"next_cursor":${JSON.stringify(page.nextCursor)}`;
      const head = JSON.stringify({
        address,
        curve_claimable: totals.curveClaimable,
        lp_claimable: totals.lpClaimable,
        claimed: { curve: totals.curveClaimed, lp: totals.lpClaimed },
      });
      return new JsonText(`${head.slice(0, -1)},"tokens":${page.items}${cursor}}`);
    },
  );
});
