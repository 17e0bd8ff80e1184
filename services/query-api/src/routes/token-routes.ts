import { parseAddress } from "@tmi/shared/codec";
import { AppError } from "@tmi/shared/errors";
import type { HttpApp } from "@tmi/shared/http";
import { z } from "zod";
import {
  addressParams,
  chartQuery,
  cursorParam,
  likePrefix,
  limitParam,
  normalizeSearch,
  orderParam,
  pageQuery,
  parseInterval,
} from "../params.js";
import { getChartJson } from "../queries/chart-queries.js";
import { getPricing, getTokenDetail, listTokens, newestPositionOf } from "../queries/token-queries.js";
import { type EventPosition, listActivity, listTrades, type PageOrder } from "../queries/trade-queries.js";
import { listTrending } from "../queries/trending-queries.js";
import {
  activityPageSchema,
  chartSchema,
  pricingSchema,
  tokenDetailSchema,
  tokenPageSchema,
  tradePageSchema,
} from "../schemas.js";
import {
  cacheData,
  decodeNewest,
  errorResponses,
  invalidCursor,
  JsonText,
  jsonPage,
  jsonPageBody,
  type RouteContext,
  toPage,
} from "./context.js";

const notFound = (address: string) => new AppError("not_found", `no canonical token ${address}`);

/** Decodes an optional trades/activity cursor: (block_number, transaction_index, log_index, transaction_hash). */
function decodeEventPosition(
  ctx: RouteContext,
  route: string,
  cursor: string | undefined,
): EventPosition | null {
  if (cursor === undefined) return null;
  const [block, txIndex, logIndex, hash] = ctx.cursors.decode(route, cursor, 4);
  if (
    typeof block !== "bigint" ||
    typeof txIndex !== "number" ||
    typeof logIndex !== "number" ||
    typeof hash !== "string"
  ) {
    throw invalidCursor();
  }
  return [block, txIndex, logIndex, hash];
}

/**
 * Token routes (spec "Endpoints", DESIGN.md §3–§5, §9): list/newest/search, trending (and its
 * `/api/v1/trending` alias), detail, pricing, chart, trades and activity.
 */
export function registerTokenRoutes(app: HttpApp, ctx: RouteContext): void {
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
        let after: [bigint, number] | null = null;
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
            {
              details: [{ field: "cursor", reason: "trending snapshot no longer available" }],
            },
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

  app.get(
    "/api/v1/tokens/:address/chart",
    {
      schema: {
        tags: ["tokens"],
        summary: "OHLC candles",
        description:
          'The `limit` most recent UTC-aligned buckets (weeks start Monday) up to the bucket of the latest indexed block, oldest first, never before the launch bucket; empty buckets have zero counts, volume "0" and null prices.',
        params: addressParams,
        querystring: chartQuery,
        response: { 200: chartSchema, ...errorResponses },
      },
    },
    async (request, reply) => {
      const address = parseAddress(request.params.address, "address");
      const interval = parseInterval(request.query.interval);
      const chart = await getChartJson(ctx.db, { token: address, interval, limit: request.query.limit });
      if (chart === null) throw notFound(address);
      cacheData(reply);
      return new JsonText(chart) as never;
    },
  );

  const eventPageQuery = z.object({ limit: limitParam(1, 100, 20), cursor: cursorParam, order: orderParam });
  const pages = [
    { kind: "trades", list: listTrades, schema: tradePageSchema, summary: "Trades page" },
    {
      kind: "activity",
      list: listActivity,
      schema: activityPageSchema,
      summary: "Decoded chain events page",
    },
  ] as const;
  for (const { kind, list, schema, summary } of pages) {
    app.get(
      `/api/v1/tokens/:address/${kind}`,
      {
        schema: {
          tags: ["tokens"],
          summary,
          description:
            "Ordered by (block_number, transaction_index, log_index, transaction_hash), newest first by default (`order=asc` for oldest first).",
          params: addressParams,
          querystring: eventPageQuery,
          response: { 200: schema, ...errorResponses },
        },
      },
      async (request, reply) => {
        const address = parseAddress(request.params.address, "address");
        const order: PageOrder = request.query.order;
        const route = `tokens.${kind}:${address}:${order}`;
        const after = decodeEventPosition(ctx, route, request.query.cursor);
        const limit = request.query.limit;
        const result = await (list as typeof listTrades)(ctx.db, {
          token: address,
          order,
          after,
          take: limit + 1,
        });
        if (result === null) throw notFound(address);
        cacheData(reply);
        const indexes = result.items.map((_, i) => i);
        return toPage(
          indexes,
          limit,
          (i) => result.items[i]!,
          (i) => result.positions[i]!,
          ctx.cursors,
          route,
        ) as never;
      },
    );
  }
}
