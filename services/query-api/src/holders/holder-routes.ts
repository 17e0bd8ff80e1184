import { type CursorCodec, parseAddress } from "@tmi/shared/codec";
import { AppError } from "@tmi/shared/errors";
import type { FastifyPluginAsync } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import type { z } from "zod";
import { addressParams, pageQuery } from "../common/params.js";
import { cacheData, errorResponses, invalidCursor } from "../common/route-helpers.js";
import type { ReadDb } from "../db.js";
import { readHolderPage, readHolderToken, shareBps } from "./holder-queries.js";
import { holderPageSchema } from "./holder-schemas.js";

/** Route id the holders cursors are bound to (followed by `:<token>`). */
export const HOLDERS_CURSOR_ROUTE = "tokens.holders";

/** Dependencies of {@link holderRoutes}. */
export interface HolderRoutesDeps {
  /** Read pool (replica allowed). */
  pool: ReadDb;
  cursorCodec: CursorCodec;
}

/**
 * `GET /api/v1/tokens/:address/holders`: a Page of `{address, balance, share_bps}` from
 * `token_balances`, ordered by balance descending then address ascending, positive balances
 * only, without the zero address, the factory, the token itself and its platform contracts (docs/api.md "GET /api/v1/tokens/{address}/holders").
 * Errors: 400 `invalid_address` (malformed path address), 400 `invalid_request` (limit outside
 * 1–100, or a cursor not issued by this route), 404 `not_found` (no canonical token).
 */
export function holderRoutes(deps: HolderRoutesDeps): FastifyPluginAsync {
  return async (fastify) => {
    const app = fastify.withTypeProvider<ZodTypeProvider>();
    app.get(
      "/api/v1/tokens/:address/holders",
      {
        schema: {
          tags: ["tokens"],
          summary: "Token holders",
          description:
            "Holders of a token by balance (descending, then address ascending). The zero address, the factory, the token itself and its platform contracts (curve, canonical pool, fee manager, graduation manager, LP custodian, residual escrow, permanent LP fee vault) are not holders.",
          params: addressParams,
          querystring: pageQuery,
          response: { 200: holderPageSchema, ...errorResponses },
        },
      },
      async (request, reply) => {
        const token = parseAddress(request.params.address, "address");
        const { limit, cursor } = request.query;
        let after: { balance: bigint; holder: string } | undefined;
        if (cursor !== undefined) {
          const [balance, holder] = deps.cursorCodec.decode(`${HOLDERS_CURSOR_ROUTE}:${token}`, cursor, 2);
          if (typeof balance !== "bigint" || typeof holder !== "string") throw invalidCursor();
          after = { balance, holder };
        }
        const info = await readHolderToken(deps.pool, token);
        if (!info) throw new AppError("not_found", `token ${token} is not indexed`);
        const rows = await readHolderPage(deps.pool, {
          token,
          notHolders: info.notHolders,
          limit: limit + 1,
          after,
        });
        const page = rows.slice(0, limit);
        const last = page[page.length - 1];
        const body: z.infer<typeof holderPageSchema> = {
          items: page.map((r) => ({
            address: r.holder,
            balance: r.balance.toString(),
            share_bps: shareBps(r.balance, info.initialSupply),
          })),
        };
        if (rows.length > limit && last) {
          body.next_cursor = deps.cursorCodec.encode(`${HOLDERS_CURSOR_ROUTE}:${token}`, [
            last.balance,
            last.holder,
          ]);
        }
        cacheData(reply);
        return body;
      },
    );
  };
}
