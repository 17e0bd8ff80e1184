import { parseAddress } from "@tmi/shared/codec";
import { AppError } from "@tmi/shared/errors";
import { z } from "zod";
import { addressParams, likePrefix, normalizeSearch, pageQuery } from "../common/params.js";
import {
  cacheData,
  decodeNewest,
  errorResponses,
  JsonText,
  jsonPage,
  jsonPageBody,
  type RoutesPlugin,
  typedRoutes,
} from "../common/route-helpers.js";
import { getPricing, getTokenDetail, listTokens, newestPositionOf } from "./token-queries.js";
import { pricingSchema, tokenDetailSchema, tokenPageSchema } from "./token-schemas.js";

const notFound = (address: string) => new AppError("not_found", `no canonical token ${address}`);

/**
 * Token routes (docs/api.md "Token (list item)", "Token detail", "Pricing", "Lists, search and
 * exclusions"): the list (and its `/newest` alias) with search, detail and pricing.
 */
export const tokenRoutes: RoutesPlugin = (ctx) => async (fastify) => {
  const app = typedRoutes(fastify);
  const listQuery = pageQuery.extend({
    search: z.string().optional().meta({
      description:
        "prefix of the name, symbol or address; ≤ 64 UTF-8 bytes of letters, numbers, spaces, `.`, `_`, `-`",
    }),
  });
  for (const url of ["/api/v1/tokens", "/api/v1/tokens/newest"]) {
    app.get(
      url,
      {
        schema: {
          tags: ["tokens"],
          summary: url.endsWith("newest")
            ? "Newest tokens (alias of the token list)"
            : "List or search tokens, newest launch first",
          querystring: listQuery,
          response: { 200: tokenPageSchema, ...errorResponses },
        },
      },
      async (request, reply) => {
        const search = normalizeSearch(request.query.search);
        // Cursors are bound to the search they were issued for (aliases share them).
        const route = `tokens?search=${search}`;
        const after = decodeNewest(ctx.cursors, route, request.query.cursor);
        const limit = request.query.limit;
        const rows = await listTokens(ctx.db, {
          searchPattern: search === "" ? null : likePrefix(search),
          after,
          take: limit + 1,
        });
        cacheData(reply);
        return jsonPageBody(
          jsonPage(rows, limit, (row) => row.item, newestPositionOf, ctx.cursors, route),
        ) as never;
      },
    );
  }

  app.get(
    "/api/v1/tokens/:address",
    {
      schema: {
        tags: ["tokens"],
        summary: "Token detail",
        params: addressParams,
        response: { 200: tokenDetailSchema, ...errorResponses },
      },
    },
    async (request, reply) => {
      const address = parseAddress(request.params.address, "address");
      const detail = await getTokenDetail(ctx.db, address, ctx.detailStats);
      if (detail === null) throw notFound(address);
      cacheData(reply);
      return new JsonText(detail) as never;
    },
  );

  app.get(
    "/api/v1/tokens/:address/pricing",
    {
      schema: {
        tags: ["tokens"],
        summary: "Current price and fully diluted value",
        params: addressParams,
        response: { 200: pricingSchema, ...errorResponses },
      },
    },
    async (request, reply) => {
      const address = parseAddress(request.params.address, "address");
      const pricing = await getPricing(ctx.db, address);
      if (pricing === null) throw notFound(address);
      cacheData(reply);
      return pricing;
    },
  );
};
