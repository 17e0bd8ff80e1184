import { z } from "zod";
import { amountSchema, hashSchema, intSchema } from "./wire-schemas.js";

// Wire schemas of positions (token, trader), shared by wallets' holdings and tokens' traders
// (docs/api.md "Wallets and traders", "Positions").

/** A signed integer amount (decimal string, `-` when negative). */
export const signedAmountSchema = z
  .string()
  .regex(/^-?[0-9]+$/)
  .meta({ description: "signed integer, decimal string in wei (a leading `-` when negative)" });

/** A trade's place and time: block, transaction hash, log index, block timestamp (Unix s). */
export const tradePointSchema = z
  .object({
    block_number: intSchema,
    transaction_hash: hashSchema,
    log_index: intSchema,
    timestamp: intSchema,
  })
  .meta({ id: "TradePoint" });

/** The fields of a position, also spread into a trader. */
export const positionFields = {
  bought_tokens: amountSchema.describe("Σ token_amount of buys (base units)"),
  bought_reserve: amountSchema.describe("Σ reserve_amount of buys (wei paid)"),
  sold_tokens: amountSchema.describe("Σ token_amount of sells (base units)"),
  sold_reserve: amountSchema.describe("Σ reserve_amount of sells (wei received)"),
  buy_count: intSchema,
  sell_count: intSchema,
  first_trade: tradePointSchema,
  last_trade: tradePointSchema,
  open_quantity: amountSchema.describe("tokens bought and not yet sold (average-cost qty)"),
  cost_basis: amountSchema.describe("wei cost of open_quantity (average-cost)"),
  realized_pnl: signedAmountSchema.describe("Σ over sells of (wei received − cost of the tokens sold)"),
  unrealized_pnl: signedAmountSchema.describe("floor(open_quantity × current_price / 10^18) − cost_basis"),
  pnl: signedAmountSchema.describe("realized_pnl + unrealized_pnl"),
};

/** A position (token, trader): docs/api.md "Positions". */
export const positionSchema = z.object(positionFields).meta({ id: "Position" });
