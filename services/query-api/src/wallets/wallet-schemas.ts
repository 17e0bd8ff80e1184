import { z } from "zod";
import { cursorParam, limitParam, orderParam } from "../common/params.js";
import { addressSchema, amountSchema, hashSchema, intSchema, pageSchema } from "../common/wire-schemas.js";
import { tokenItemSchema } from "../tokens/token-schemas.js";

// Wire schemas of wallets and traders (docs/api.md "Wallets and traders").

/** A signed integer amount (decimal string, `-` when negative). */
export const signedAmountSchema = z
  .string()
  .regex(/^-?[0-9]+$/)
  .meta({ description: "signed integer, decimal string in wei (a leading `-` when negative)" });

const usdValue = z
  .string()
  .regex(/^[0-9]+(\.[0-9]*[1-9])?$/)
  .nullable()
  .meta({
    description:
      "USD at the latest indexed ETH/USD answer, exact decimal string (value × answer / 10^26); null when no answer is indexed",
  });

/** A trade's place and time: block, transaction hash, log index, block timestamp (Unix s). */
export const tradePointSchema = z
  .object({
    block_number: intSchema,
    transaction_hash: hashSchema,
    log_index: intSchema,
    timestamp: intSchema,
  })
  .meta({ id: "TradePoint" });

const positionFields = {
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
