import { z } from "zod";
import { cursorParam, limitParam, orderParam } from "../common/params.js";
import { positionSchema, signedAmountSchema } from "../common/position-schemas.js";
import { addressSchema, amountSchema, intSchema, pageSchema } from "../common/wire-schemas.js";
import { tokenItemSchema } from "../tokens/token-schemas.js";

// Wire schemas of wallets (docs/api.md "Wallets and traders").

const usdValue = z
  .string()
  .regex(/^[0-9]+(\.[0-9]*[1-9])?$/)
  .nullable()
  .meta({
    description:
      "USD at the latest indexed ETH/USD answer, exact decimal string (value × answer / 10^26); null when no answer is indexed",
  });

/** `GET /api/v1/wallets/{address}`. */
export const walletSummarySchema = z
  .object({
    address: addressSchema,
    holding_count: intSchema.describe("tokens with a positive balance"),
    value: amountSchema.describe("Σ holdings' value (wei)"),
    value_usd: usdValue,
    realized_pnl: signedAmountSchema,
    unrealized_pnl: signedAmountSchema,
    pnl: signedAmountSchema,
    trade_count: intSchema.describe("Σ buys + sells over the wallet's positions"),
    volume: amountSchema.describe("Σ bought_reserve + sold_reserve (wei)"),
    created_token_count: intSchema.describe(
      "visible tokens launched by the address (as the creator profile)",
    ),
  })
  .meta({ id: "WalletSummary" });

/** One holding of a wallet. */
export const holdingSchema = z
  .object({
    token: tokenItemSchema,
    balance: amountSchema.describe('token base units; "0" for a closed position (include_closed)'),
    value: amountSchema.describe("floor(balance × current_price / 10^18), wei"),
    value_usd: usdValue,
    share_bps: intSchema.describe("floor(balance × 10000 / initial_supply)"),
    position: positionSchema.optional().describe("absent when the wallet never traded the token"),
  })
  .meta({ id: "Holding" });

/** A page of holdings. */
export const holdingPageSchema = pageSchema(holdingSchema, "HoldingPage");

/** `include_closed` of holdings: `true` or `false` (default). */
export const holdingsQuery = z.object({
  limit: limitParam(1, 100, 20),
  cursor: cursorParam,
  include_closed: z.enum(["true", "false"]).optional().default("false").meta({
    description: '`true` adds tokens the wallet traded and no longer holds (balance "0") after the held ones',
  }),
});

/** `source` filter of trade pages. */
export const sourceParam = z
  .enum(["curve", "uniswap_v3"])
  .optional()
  .meta({ description: "only trades of this source: `curve` or `uniswap_v3`" });

/** Query of a wallet's trades: limit, cursor, order, source. */
export const walletTradesQuery = z.object({
  limit: limitParam(1, 100, 20),
  cursor: cursorParam,
  order: orderParam,
  source: sourceParam,
});
