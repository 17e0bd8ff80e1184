import { z } from "zod";
import { cursorParam, limitParam } from "../../common/params.js";
import { positionFields } from "../../common/position-schemas.js";
import { addressSchema, amountSchema, pageSchema } from "../../common/wire-schemas.js";

// Wire schemas of a token's traders (docs/api.md "Wallets and traders").

/** One trader of a token: balance and position. */
export const traderSchema = z
  .object({
    trader: addressSchema,
    balance: amountSchema.describe("token base units (0 when none)"),
    ...positionFields,
  })
  .meta({ id: "Trader" });

/** A page of traders. */
export const traderPageSchema = pageSchema(traderSchema, "TraderPage");

/** Sorts of a token's traders (all descending, ties by trader address ascending). */
export const TRADER_SORTS = ["volume", "pnl", "realized_pnl", "bought", "sold"] as const;

/** A traders sort. */
export type TraderSort = (typeof TRADER_SORTS)[number];

/** Query of a token's traders. */
export const tradersQuery = z.object({
  limit: limitParam(1, 100, 20),
  cursor: cursorParam,
  sort: z.enum(TRADER_SORTS).optional().default("volume").meta({
    description:
      "`volume` (default: bought_reserve + sold_reserve), `pnl`, `realized_pnl`, `bought` (bought_reserve), `sold` (sold_reserve); descending, ties by trader address",
  }),
});
