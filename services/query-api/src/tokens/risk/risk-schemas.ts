import { z } from "zod";
import { usdValue } from "../../common/usd-schemas.js";
import { addressSchema, amountSchema, intSchema } from "../../common/wire-schemas.js";

// Wire schemas of `risk` and `ath` (docs/api.md "Risk and all-time high"). Amounts are token base
// units (or wei for `reserve`, prices and market caps) as decimal strings; `*_share_bps` =
// amount × 10,000 / initial_supply, floored.

const bps = (what: string) =>
  intSchema.min(0).meta({ description: `${what} × 10000 / initial_supply, floored (basis points)` });

/** The compact `risk` of every Token object in lists. */
export const compactRiskSchema = z
  .object({
    creator_share_bps: bps("the creator's balance"),
    creator_has_sold: z.boolean().meta({ description: "the creator sold the token at least once" }),
    top10_share_bps: bps("Σ of the 10 largest holders' balances"),
    sniper_share_bps: bps("Σ of the snipers' balances now"),
    insider_share_bps: bps("Σ of the insiders' balances now"),
  })
  .meta({ id: "TokenRiskSummary" });

const cohortFields = {
  count: intSchema.min(0).meta({ description: "members" }),
  holding_count: intSchema.min(0).meta({ description: "members with a positive balance now" }),
  balance: amountSchema.meta({ description: "Σ of the members' balances now (token base units)" }),
  share_bps: bps("balance"),
};

/** A sniper cohort (snipers, launch-block buyers). */
const buyerCohortSchema = z
  .object({
    ...cohortFields,
    bought_tokens: amountSchema.meta({ description: "Σ of all the members' buys of the token (base units)" }),
  })
  .meta({ id: "TokenBuyerCohort" });

/** The insiders cohort. */
const insiderCohortSchema = z
  .object({
    ...cohortFields,
    received_tokens: amountSchema.meta({
      description: "Σ of what the creator sent them outside trades (base units)",
    }),
  })
  .meta({ id: "TokenInsiderCohort" });

/** The full `risk` of the token detail. */
export const fullRiskSchema = z
  .object({
    creator: z.object({
      address: addressSchema,
      balance: amountSchema,
      share_bps: bps("balance"),
      bought_tokens: amountSchema.meta({ description: "Σ of the creator's buys (base units)" }),
      sold_tokens: amountSchema.meta({ description: "Σ of the creator's sells (base units)" }),
      transferred_out_tokens: amountSchema.meta({
        description: "Σ of the creator's Transfers to non-platform addresses, trades excluded (base units)",
      }),
      has_sold: z.boolean().meta({ description: "sold_tokens > 0" }),
    }),
    dev_buy: z.object({
      tokens: amountSchema.meta({
        description: "Σ tokens of the creator's buys before any other address traded",
      }),
      reserve: amountSchema.meta({ description: "Σ reserve_amount (wei) of those buys" }),
      count: intSchema.min(0),
    }),
    snipers: buyerCohortSchema,
    launch_block_buyers: buyerCohortSchema,
    insiders: insiderCohortSchema,
    top10_share_bps: bps("Σ of the 10 largest holders' balances"),
    distribution_bps: z.object({
      top_10: bps("Σ of holders 1–10"),
      top_11_30: bps("Σ of holders 11–30"),
      top_31_50: bps("Σ of holders 31–50"),
      rest: bps("Σ of the other holders"),
    }),
    platform_share_bps: bps("Σ of the token's platform contracts' balances"),
    sniper_window_blocks: z.literal(2),
  })
  .meta({ id: "TokenRisk" });

/** `ath` of the token detail (null before the first priced trade). */
export const athSchema = z
  .object({
    price: amountSchema.meta({ description: "highest trade price (wei per whole token)" }),
    market_cap: amountSchema.meta({ description: "price × initial_supply / 10^18, floored (wei)" }),
    block_number: intSchema,
    timestamp: intSchema.meta({ description: "block timestamp of the first trade reaching the price" }),
    drawdown_bps: intSchema.min(0).meta({ description: "(price − current_price) × 10000 / price, floored" }),
    market_cap_usd: usdValue.nullable().meta({
      description: "market_cap at the ETH/USD answer in force at `timestamp`; null without one",
    }),
  })
  .meta({ id: "TokenAth" });
