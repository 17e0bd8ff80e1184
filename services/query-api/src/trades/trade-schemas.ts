import { z } from "zod";
import { reserveAmountUsdSchema } from "../common/usd-schemas.js";
import { addressSchema, amountSchema, eventOrderFields, pageSchema } from "../common/wire-schemas.js";

/** Trade (docs/api.md "Trades and activity"). */
export const tradeSchema = z
  .object({
    token_address: addressSchema,
    trader: addressSchema,
    side: z.enum(["buy", "sell"]),
    token_amount: amountSchema,
    reserve_amount: amountSchema,
    curve_value: amountSchema,
    protocol_fee: amountSchema,
    creator_fee: amountSchema,
    source: z
      .enum(["curve", "uniswap_v3"])
      .meta({ description: "`curve` or `uniswap_v3` (a swap of the canonical pool)" }),
    ...eventOrderFields,
    reserve_amount_usd: reserveAmountUsdSchema,
  })
  .meta({ id: "Trade" });

/** A page of trades. */
export const tradePageSchema = pageSchema(tradeSchema, "TradePage");

/** One trade on the wire. */
export type Trade = z.output<typeof tradeSchema>;
