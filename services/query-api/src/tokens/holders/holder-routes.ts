import { toBigInt } from "@tmi/shared/codec";
import { AppError } from "@tmi/shared/errors";
import { decodeKeyset, keysetBody, readKeysetPage } from "../../common/keyset-page.js";
import { pageQuery } from "../../common/params.js";
import { tokenRoute } from "../../route-context.js";
import { type HolderRow, readHolderToken, shareBps, TOKEN_HOLDERS } from "./holder-queries.js";
import { holderPageSchema } from "./holder-schemas.js";

/** Route id the holders cursors are bound to (followed by `:<token>`). */
export const HOLDERS_CURSOR_ROUTE = "tokens.holders";

/**
 * `GET /api/v1/tokens/:address/holders`: a Page of `{address, balance, share_bps}` from
 * `token_balances`, ordered by balance descending then address ascending, positive balances
 * only, without the zero address, the factory, the token itself and its platform contracts (docs/api.md "GET /api/v1/tokens/{address}/holders").
 * Errors: 400 `invalid_address` (malformed path address), 400 `invalid_request` (limit outside
 * 1–100, or a cursor not issued by this route), 404 `not_found` (no canonical token).
 */
export const holderRoutes = tokenRoute("holders", {
  summary: "Token holders",
  description:
    "Holders of a token by balance (descending, then address ascending). The zero address, the factory, the token itself and its platform contracts (curve, canonical pool, fee manager, graduation manager, LP custodian, residual escrow, permanent LP fee vault) are not holders.",
  query: pageQuery,
  ok: holderPageSchema,
  read: async (ctx, token, { limit, cursor }) => {
    const route = `${HOLDERS_CURSOR_ROUTE}:${token}`;
    // A cursor of another route is a 400 even for an unknown token.
    decodeKeyset(ctx.cursors, route, TOKEN_HOLDERS, cursor);
    const info = await readHolderToken(ctx.db, token);
    if (!info) throw new AppError("not_found", `token ${token} is not indexed`);
    const page = await readKeysetPage<HolderRow>(ctx.db, TOKEN_HOLDERS, {
      filters: [token, info.notHolders],
      order: "desc",
      limit,
      cursor,
      cursors: ctx.cursors,
      route,
    });
    return keysetBody(page ?? { rows: [] }, (row) => {
      const balance = toBigInt(row.balance);
      return {
        address: row.holder,
        balance: balance.toString(),
        share_bps: shareBps(balance, info.initialSupply),
      };
    });
  },
});
