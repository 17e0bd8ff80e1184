import { toBigInt } from "@tmi/shared/codec";
import { AppError } from "@tmi/shared/errors";
import { decodeKeyset, keysetBody, readKeysetPage } from "../../common/keyset-page.js";
import { tokenRoute } from "../../route-context.js";
import { type HolderRow, holdersSource, readHolderToken, shareBps } from "./holder-queries.js";
import { holderPageSchema, holdersQuery } from "./holder-schemas.js";

/** Route id the holders cursors are bound to (followed by `:<token>`). */
export const HOLDERS_CURSOR_ROUTE = "tokens.holders";

/**
 * `GET /api/v1/tokens/:address/holders`: a Page of `{address, balance, share_bps}` from
 * `token_balances`, ordered by balance descending then address ascending, positive balances
 * only, without the zero address, the factory, the token itself and its platform contracts (docs/api.md "GET /api/v1/tokens/{address}/holders").
 * Rows carry their `tags`; `tag` keeps one cohort (token_cohorts, docs/api.md "Risk and all-time high").
 * Errors: 400 `invalid_address` (malformed path address), 400 `invalid_request` (limit outside
 * 1–100, an unknown tag, or a cursor not issued by this route for this token and tag), 404 `not_found` (no canonical token).
 */
export const holderRoutes = tokenRoute("holders", {
  summary: "Token holders",
  description:
    "Holders of a token by balance (descending, then address ascending), each with its tags (`creator`, `insider`, `launch_block_buyer`, `sniper`, sorted); `tag` lists one cohort in the same order (cursors bound to the token and the tag). The zero address, the factory, the token itself and its platform contracts (curve, canonical pool, fee manager, graduation manager, LP custodian, residual escrow, permanent LP fee vault) are not holders.",
  query: holdersQuery,
  ok: holderPageSchema,
  read: async (ctx, token, { limit, cursor, tag }) => {
    // Cursors are bound to the token and the tag (none or one).
    const route = `${HOLDERS_CURSOR_ROUTE}:${token}${tag === undefined ? "" : `:${tag}`}`;
    const source = holdersSource(tag);
    // A cursor of another route is a 400 even for an unknown token.
    decodeKeyset(ctx.cursors, route, source, cursor);
    const info = await readHolderToken(ctx.db, token);
    if (!info) throw new AppError("not_found", `token ${token} is not indexed`);
    const page = await readKeysetPage<HolderRow>(ctx.db, source, {
      filters: [token, info.notHolders, info.creator],
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
        tags: row.tags,
      };
    });
  },
});
