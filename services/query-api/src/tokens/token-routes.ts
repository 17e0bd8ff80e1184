import { AppError } from "@tmi/shared/errors";
import { z } from "zod";
import { normalizeSearch, pageQuery, parseAddressList } from "../common/params.js";
import { JsonText, jsonPageBody, noCanonicalToken } from "../common/route-helpers.js";
import { dataRoutes, type Routes } from "../route-context.js";
import {
  BATCH_MAX,
  listTokensByAddress,
  newestTokenPage,
  orderedPage,
  parseScreener,
  screenerKey,
  screenerQuery,
  TOKEN_ORDERS,
  TOKEN_PHASES,
  TOKEN_SORTS,
  TWO_PART_SORTS,
  tokenPageBody,
  twoPartPage,
} from "./token-list-queries.js";
import { getPricing, getTokenDetail, listTokens } from "./token-queries.js";
import { pricingSchema, tokenDetailSchema, tokenPageSchema } from "./token-schemas.js";

/**
 * Token routes (docs/api.md "Token (list item)", "Token detail", "Pricing", "Lists, search and
 * exclusions"): the list (and its `/newest` alias) with search, detail and pricing.
 */
export const tokenRoutes: Routes = dataRoutes("tokens", (routes, ctx) => {
  const listQuery = pageQuery.extend({
    search: z.string().optional().meta({
      description:
        "prefix of the name, symbol or address; ≤ 64 UTF-8 bytes of letters, numbers, spaces, `.`, `_`, `-`",
    }),
    sort: z.enum(TOKEN_SORTS).optional().meta({
      description:
        "`newest` (default: launch, newest first), `market_cap` (fully_diluted_value desc), `volume_24h` (trending window volume desc), `progress` (curve progress_bps desc; curve phase only), `last_trade` (latest_trade_timestamp desc), `holders` (holder_count desc), `trending` (the trending order); ties by address ascending",
    }),
    phase: z.enum(TOKEN_PHASES).optional().meta({ description: "`curve` (not graduated) or `graduated`" }),
    addresses: z
      .string()
      .max(5000)
      .optional()
      .meta({
        description: `batch: 1–${BATCH_MAX} comma-separated token addresses (any case); the visible ones, in the order given, in one page (not combinable with cursor, search, sort, phase or a screener filter)`,
      }),
    ...screenerQuery,
  });
  for (const url of ["/api/v1/tokens", "/api/v1/tokens/newest"]) {
    routes.get(
      url,
      {
        summary: url.endsWith("newest")
          ? "Newest tokens (alias of the token list)"
          : "List, sort or search tokens (newest launch first by default), or fetch a batch",
        query: listQuery,
        ok: tokenPageSchema,
      },
      async (query) => {
        const { limit, cursor, sort, phase, addresses } = query;
        if (addresses !== undefined) {
          const mixed = (
            ["cursor", "search", "sort", "phase", ...Object.keys(screenerQuery)] as (keyof typeof query)[]
          ).filter((k) => query[k] !== undefined);
          if (mixed.length > 0)
            throw new AppError(
              "invalid_request",
              "addresses cannot be combined with cursor, search, sort, phase or a screener filter",
              {
                details: mixed.map((field) => ({ field, reason: "not allowed with addresses" })),
              },
            );
          const items = await listTokensByAddress(
            ctx.db,
            parseAddressList(addresses, "addresses", BATCH_MAX),
          );
          return tokenPageBody({ items });
        }
        const search = normalizeSearch(query.search);
        const screener = parseScreener(query);
        // The plain list (newest first, no phase, no screener): cursors are bound to the search
        // they were issued for (aliases share them); every other sort, a phase or a screener: to
        // the sort, the phase, the search and the screener's filters.
        const plain =
          (sort === undefined || sort === "newest") && phase === undefined && screener === undefined;
        if (plain && search === "") {
          const page = await newestTokenPage(
            { limit, cursor, cursors: ctx.cursors, route: "tokens?search=" },
            (after, take) => listTokens(ctx.db, { after, take }),
          );
          return jsonPageBody(page);
        }
        const route = plain
          ? `tokens?search=${search}`
          : `tokens?sort=${sort ?? "newest"}&phase=${phase ?? ""}&search=${search}${screener ? `&${screenerKey(screener)}` : ""}`;
        const options = { filters: { search, phase, screener }, limit, cursor, cursors: ctx.cursors, route };
        const page =
          sort === "trending" || sort === "volume_24h"
            ? await twoPartPage(ctx.db, { sort: TWO_PART_SORTS[sort], ...options })
            : await orderedPage(ctx.db, { order: TOKEN_ORDERS[sort ?? "newest"], ...options });
        return tokenPageBody(page);
      },
    );
  }

  routes.byAddress(
    "/api/v1/tokens/:address",
    { summary: "Token detail", ok: tokenDetailSchema },
    async (address) => {
      const detail = await getTokenDetail(ctx.db, address, ctx.detailStats);
      if (detail === null) throw noCanonicalToken(address);
      return new JsonText(detail);
    },
  );

  routes.byAddress(
    "/api/v1/tokens/:address/pricing",
    { summary: "Current price and fully diluted value", ok: pricingSchema },
    async (address) => {
      const pricing = await getPricing(ctx.db, address);
      if (pricing === null) throw noCanonicalToken(address);
      return pricing;
    },
  );
});
