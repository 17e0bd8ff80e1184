import { parseAddress } from "@tmi/shared/codec";
import { AppError } from "@tmi/shared/errors";
import { keysetBody, readKeysetPage } from "../common/keyset-page.js";
import { addressParams } from "../common/params.js";
import {
  cacheData,
  errorResponses,
  invalidCursor,
  JsonText,
  type RoutesPlugin,
  typedRoutes,
} from "../common/route-helpers.js";
import { getCreatorAggregates } from "../creators/creator-queries.js";
import { type TradeRow, tradeOf, walletTradesSource } from "../trades/trade-queries.js";
import { tradePageSchema } from "../trades/trade-schemas.js";
import { positionFromRow } from "./position-sql.js";
import { readTokenTraders } from "./trader-queries.js";
import { getWalletTotals, type HoldingPosition, listHoldings } from "./wallet-queries.js";
import {
  holdingPageSchema,
  holdingsQuery,
  traderPageSchema,
  tradersQuery,
  walletSummarySchema,
  walletTradesQuery,
} from "./wallet-schemas.js";

/**
 * Wallet and trader routes (docs/api.md "Wallets and traders"): `GET /api/v1/wallets/:address`
 * (summary), `…/holdings`, `…/trades`, and `GET /api/v1/tokens/:address/traders`. Errors: 400
 * `invalid_address` (malformed path address), 400 `invalid_request` (limit, cursor, order,
 * source, include_closed, sort), 404 `not_found` (traders of a token with no canonical launch).
 * A wallet with nothing has a zero summary and empty pages.
 */
export const walletRoutes: RoutesPlugin = (ctx) => async (fastify) => {
  const app = typedRoutes(fastify);
  const { db: pool, cursors: cursorCodec } = ctx;

  app.get(
    "/api/v1/wallets/:address",
    {
      schema: {
        tags: ["wallets"],
        summary: "Wallet summary",
        description:
          "Sums over the wallet's holdings (holding_count, value) and positions (realized_pnl, unrealized_pnl, pnl, trade_count, volume), and the tokens it launched. Zero for an address with nothing.",
        params: addressParams,
        response: { 200: walletSummarySchema, ...errorResponses },
      },
    },
    async (request, reply) => {
      const address = parseAddress(request.params.address, "address");
      const [totals, created] = await Promise.all([
        getWalletTotals(pool, address),
        getCreatorAggregates(pool, address),
      ]);
      cacheData(reply);
      return { address, ...totals, created_token_count: created.tokenCount };
    },
  );

  app.get(
    "/api/v1/wallets/:address/holdings",
    {
      schema: {
        tags: ["wallets"],
        summary: "Wallet holdings",
        description:
          'Tokens the wallet holds (positive balance) by value descending, then token address; `include_closed=true` adds the tokens it traded and no longer holds (balance "0") after them, by token address.',
        params: addressParams,
        querystring: holdingsQuery,
        response: { 200: holdingPageSchema, ...errorResponses },
      },
    },
    async (request, reply) => {
      const address = parseAddress(request.params.address, "address");
      const { limit, cursor } = request.query;
      const includeClosed = request.query.include_closed === "true";
      const route = `wallets.holdings:${address}:${includeClosed}`;
      let after: HoldingPosition | null = null;
      if (cursor !== undefined) {
        const [grp, value, token] = cursorCodec.decode(route, cursor, 3);
        if ((grp !== 0 && grp !== 1) || typeof value !== "bigint" || typeof token !== "string") {
          throw invalidCursor();
        }
        after = [grp, value, token];
      }
      const rows = await listHoldings(pool, { wallet: address, includeClosed, after, take: limit + 1 });
      const shown = rows.slice(0, limit);
      const items = shown.map((r) => {
        const position = r.positionWire === undefined ? "" : `,"position":${JSON.stringify(r.positionWire)}`;
        return `{"token":${r.tokenJson},"balance":"${r.balance}","value":"${r.value}","value_usd":${JSON.stringify(r.valueUsd)},"share_bps":${r.shareBps}${position}}`;
      });
      const last = shown[shown.length - 1];
      const next =
        rows.length > limit && last
          ? `,"next_cursor":${JSON.stringify(cursorCodec.encode(route, last.position))}`
          : "";
      cacheData(reply);
      return new JsonText(`{"items":[${items.join(",")}]${next}}`) as never;
    },
  );

  app.get(
    "/api/v1/wallets/:address/trades",
    {
      schema: {
        tags: ["wallets"],
        summary: "Wallet trades",
        description:
          "The wallet's trades (it is the trade's `trader`) across all tokens, ordered by (block_number, transaction_index, log_index, transaction_hash), newest first by default.",
        params: addressParams,
        querystring: walletTradesQuery,
        response: { 200: tradePageSchema, ...errorResponses },
      },
    },
    async (request, reply) => {
      const address = parseAddress(request.params.address, "address");
      const { order, limit, source, cursor } = request.query;
      const page = await readKeysetPage<TradeRow>(pool, walletTradesSource(source !== undefined), {
        filters: source === undefined ? [address] : [address, source],
        order,
        limit,
        cursor,
        cursors: cursorCodec,
        route: `wallets.trades:${address}:${order}:${source ?? ""}`,
      });
      cacheData(reply);
      return keysetBody(page ?? { rows: [] }, tradeOf) as never;
    },
  );

  app.get(
    "/api/v1/tokens/:address/traders",
    {
      schema: {
        tags: ["tokens"],
        summary: "Token traders",
        description:
          "Every address that traded the token, with its balance and position, by `sort` descending, ties by trader address ascending. Cursors are bound to the token and the sort.",
        params: addressParams,
        querystring: tradersQuery,
        response: { 200: traderPageSchema, ...errorResponses },
      },
    },
    async (request, reply) => {
      const token = parseAddress(request.params.address, "address");
      const { limit, cursor, sort } = request.query;
      const page = await readTokenTraders(pool, {
        token,
        sort,
        limit,
        cursor,
        cursors: cursorCodec,
        ...(ctx.pnlRankings ? { rankings: ctx.pnlRankings } : {}),
      });
      if (page === null) throw new AppError("not_found", `no canonical token ${token}`);
      cacheData(reply);
      return keysetBody(page, (row) => ({
        trader: row.trader,
        balance: row.balance,
        ...positionFromRow(row)!,
      }));
    },
  );
};
