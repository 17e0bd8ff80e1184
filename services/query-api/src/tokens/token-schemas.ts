import { z } from "zod";
import { tokenUsdSchema } from "../common/usd-schemas.js";
import {
  addressSchema,
  amountSchema,
  hashSchema,
  intSchema,
  optionalField,
  pageSchema,
  priceSchema,
} from "../common/wire-schemas.js";
import { athSchema, compactRiskSchema, fullRiskSchema } from "./risk/risk-schemas.js";
import { tokenStatsSchema } from "./token-stats-schemas.js";

// Wire schemas of tokens (docs/api.md "Token (list item)", "Token detail", "Pricing").

/** Position of a chain event: `{block_number, transaction_hash, log_index}`. */
export const chainPositionSchema = z
  .object({ block_number: intSchema, transaction_hash: hashSchema, log_index: intSchema })
  .meta({ id: "ChainPosition" });

/** Aggregates of a token (docs/api.md "Units"). */
export const tokenMetricsSchema = z
  .object({
    trade_count: intSchema,
    buy_count: intSchema,
    sell_count: intSchema,
    volume: amountSchema.meta({ description: "sum of the trades' curve_value (wei)" }),
    fees: amountSchema.meta({ description: "sum of protocol and creator fees (wei)" }),
    unique_trader_count: intSchema,
    current_price: priceSchema,
    fully_diluted_value: amountSchema
      .nullable()
      .meta({ description: "current_price × initial_supply / 10^18 (wei); null when no valid price exists" }),
    holder_count: intSchema,
    latest_trade_timestamp: intSchema.nullable().meta({
      description: "block timestamp (Unix seconds) of the latest indexed trade; null before the first",
    }),
  })
  .meta({ id: "TokenMetrics" });

/** Bonding curve of a token (docs/api.md "Token"). */
export const curveSchema = z
  .object({
    address: addressSchema.meta({ description: "the token's curve contract" }),
    canonical_pool_address: optionalField(
      addressSchema,
      "the token's canonical Uniswap V3 pool (created at launch)",
    ),
    supply: amountSchema.meta({ description: "total supply (token base units)" }),
    sold_supply: amountSchema.meta({
      description: "tokens sold by the curve, `soldSupply()` (token base units)",
    }),
    reserve_balance: amountSchema.meta({
      description: "net ETH held by the curve, `reserveCoordinate()` (wei)",
    }),
    virtual_token_reserve: amountSchema.meta({ description: "`virtualTokenReserve()` (token base units)" }),
    virtual_eth_reserve: amountSchema.meta({ description: "`virtualEthReserve()` (wei)" }),
    graduation_threshold: amountSchema.meta({
      description: "the curve allocation, sold out at graduation (token base units, 800,000,000 × 10^18)",
    }),
    progress_bps: intSchema
      .min(0)
      .max(10_000)
      .meta({ description: "floor(sold_supply × 10000 / graduation_threshold), at most 10000" }),
    lifecycle: z.enum(["active", "graduated"]),
  })
  .meta({ id: "TokenCurve" });

/** Graduation of a token (present once graduated). */
export const graduationSchema = z
  .object({
    phase: z.literal("graduated"),
    canonical_pool_address: addressSchema.optional(),
    graduation_manager_address: optionalField(addressSchema, "from `Graduated`"),
    lp_custodian_address: optionalField(addressSchema, "from `GraduatedV3`"),
    position_token_id: optionalField(amountSchema, "the LP position NFT id, from `GraduatedV3`"),
    liquidity: optionalField(amountSchema, "the position's liquidity, from `GraduatedV3`"),
    token_amount: optionalField(amountSchema, "tokens moved to the pool (base units), from `Graduated`"),
    eth_amount: optionalField(amountSchema, "ETH moved to the pool (wei), from `Graduated`"),
    sold_supply: optionalField(amountSchema, "sold supply at graduation, from `Graduated`"),
    curve_terminal_at: optionalField(chainPositionSchema, "position of `Graduated`"),
    settled_at: optionalField(chainPositionSchema, "position of `GraduatedV3`"),
  })
  .meta({ id: "TokenGraduation" });

const objectPath = z.string().regex(/^\/objects\//);

/**
 * The Token object (list items, newest, search, trending, creator pages; detail adds `stats`):
 * optional keys absent, never null.
 */
export const tokenItemSchema = z
  .object({
    address: addressSchema,
    creator: addressSchema,
    name: z.string(),
    symbol: z.string(),
    initial_supply: amountSchema,
    description: z.string().optional(),
    image_url: optionalField(objectPath, "stored object path, `/objects/images/<sha256>.<ext>`"),
    metadata_url: optionalField(objectPath, "stored object path, `/objects/metadata/<sha256>.json`"),
    website_url: z.string().optional(),
    x_url: z.string().optional(),
    telegram_url: z.string().optional(),
    discord_url: z.string().optional(),
    metadata_verified: optionalField(
      z.boolean(),
      "present when metadata is bound: true when the creator signed the binding",
    ),
    graduation: graduationSchema.optional(),
    created_at: chainPositionSchema,
    metrics: tokenMetricsSchema,
    curve: curveSchema,
    usd: tokenUsdSchema,
    risk: compactRiskSchema,
  })
  .meta({ id: "Token" });

/** Token detail: the Token object with the full `risk` and `ath`, plus `stats`. */
export const tokenDetailSchema = tokenItemSchema
  .extend({ risk: fullRiskSchema, ath: athSchema.nullable(), stats: tokenStatsSchema })
  .meta({ id: "TokenDetail" });

/** Pricing (docs/api.md "Pricing"). */
export const pricingSchema = z
  .object({
    token_address: addressSchema,
    current_price: priceSchema,
    fully_diluted_value: amountSchema.nullable(),
    source: z.enum(["indexed_v3_curve", "indexed_v3_market"]),
  })
  .meta({ id: "Pricing" });

/** A page of tokens (list, newest, search, trending, creator tokens). */
export const tokenPageSchema = pageSchema(tokenItemSchema, "TokenPage");

/** Pricing on the wire. */
export type Pricing = z.output<typeof pricingSchema>;
