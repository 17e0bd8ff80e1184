import { parseAddress } from "@tmi/shared/codec";
import { addressParams, pageQuery } from "../common/params.js";
import {
  cacheData,
  errorResponses,
  JsonText,
  jsonPageBody,
  type RoutesPlugin,
  typedRoutes,
} from "../common/route-helpers.js";
import { newestTokenPage } from "../tokens/token-list-queries.js";
import { tokenPageSchema } from "../tokens/token-schemas.js";
import { getCreatorAggregates, listCreatorTokens } from "./creator-queries.js";
import { creatorProfileSchema } from "./creator-schemas.js";

/**
 * Creator routes: the profile (aggregates plus the first page of tokens) and the tokens page.
 * Both take the same cursors (`next_cursor` of either pages the creator's tokens). An address
 * that launched nothing, or an excluded creator, has a zero profile (200), not a 404.
 */
export const creatorRoutes: RoutesPlugin = (ctx) => async (fastify) => {
  const app = typedRoutes(fastify);
  const tokensPage = (address: string, query: { limit: number; cursor?: string | undefined }) =>
    newestTokenPage({ ...query, cursors: ctx.cursors, route: `creators.tokens:${address}` }, (after, take) =>
      listCreatorTokens(ctx.db, { creator: address, after, take }),
    );

  app.get(
    "/api/v1/creators/:address",
    {
      schema: {
        tags: ["creators"],
        summary: "Creator profile with its tokens, newest first",
        params: addressParams,
        querystring: pageQuery,
        response: { 200: creatorProfileSchema, ...errorResponses },
      },
    },
    async (request, reply) => {
      const address = parseAddress(request.params.address, "address");
      const [aggregates, page] = await Promise.all([
        getCreatorAggregates(ctx.db, address),
        tokensPage(address, request.query),
      ]);
      cacheData(reply);
      const cursor = page.nextCursor === undefined ? "" : `,"next_cursor":${JSON.stringify(page.nextCursor)}`;
      return new JsonText(
        `{"address":${JSON.stringify(address)},"token_count":${aggregates.tokenCount},"volume":${JSON.stringify(aggregates.volume)},"tokens":${page.items}${cursor}}`,
      ) as never;
    },
  );

  app.get(
    "/api/v1/creators/:address/tokens",
    {
      schema: {
        tags: ["creators"],
        summary: "Creator tokens page, newest first",
        params: addressParams,
        querystring: pageQuery,
        response: { 200: tokenPageSchema, ...errorResponses },
      },
    },
    async (request, reply) => {
      const address = parseAddress(request.params.address, "address");
      const page = await tokensPage(address, request.query);
      cacheData(reply);
      return jsonPageBody(page) as never;
    },
  );
};
