import { parseAddress } from "@tmi/shared/codec";
import type { HttpApp } from "@tmi/shared/http";
import { addressParams, pageQuery } from "../params.js";
import { getCreatorAggregates } from "../queries/creator-queries.js";
import { listCreatorTokens, newestPosition, toTokenItem } from "../queries/token-queries.js";
import { creatorProfileSchema, tokenPageSchema } from "../schemas.js";
import { cacheData, decodeNewest, errorResponses, type RouteContext, toPage } from "./context.js";

/**
 * Creator routes: the profile (aggregates plus the first page of tokens) and the tokens page.
 * Both take the same cursors (`next_cursor` of either pages the creator's tokens). An address
 * that launched nothing, or an excluded creator, has a zero profile (200), not a 404.
 */
export function registerCreatorRoutes(app: HttpApp, ctx: RouteContext): void {
  const tokensPage = async (address: string, query: { limit: number; cursor?: string | undefined }) => {
    const route = `creators.tokens:${address}`;
    const after = decodeNewest(ctx.cursors, route, query.cursor);
    const rows = await listCreatorTokens(ctx.db, { creator: address, after, take: query.limit + 1 });
    return toPage(rows, query.limit, toTokenItem, newestPosition, ctx.cursors, route);
  };

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
      const profile: {
        address: string;
        token_count: number;
        volume: string;
        tokens: typeof page.items;
        next_cursor?: string;
      } = { address, token_count: aggregates.tokenCount, volume: aggregates.volume, tokens: page.items };
      if (page.next_cursor !== undefined) profile.next_cursor = page.next_cursor;
      return profile;
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
      return page;
    },
  );
}
