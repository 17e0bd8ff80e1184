import { z } from "zod";
import { tokenUsdSchema } from "../common/usd-schemas.js";
import {
  addressSchema,
  amountSchema,
  hashSchema,
  intSchema,
  pageSchema,
  priceSchema,
} from "../common/wire-schemas.js";
import { tokenStatsSchema } from "./token-stats-schemas.js";

// Wire schemas of tokens (docs/api.md "Token (list item)", "Token detail", "Pricing").

/** Position of a launch: the `TokenCreated` log. */
export const createdAtSchema = z
  .object({ block_number: intSchema, transaction_hash: hashSchema, log_index: intSchema })
  .meta({ id: "TokenCreatedAt" });

/** Aggregates of a token (docs/api.md "Units"). */
export const tokenMetricsSchema = z
  .object({
    trade_count: intSchema,
    buy_count: intSchema,
    sell_count: intSchema,
    volume: amountSchema.meta({ description: "sum of trade reserve amounts (wei)" }),
    fees: amountSchema.meta({ description: "sum of protocol and creator fees (wei)" }),
    unique_trader_count: intSchema,
    current_price: priceSchema,
    fully_diluted_value: amountSchema
      .nullable()
      .meta({ description: "current_price × initial_supply / 10^18 (wei); null when no valid price exists" }),
    holder_count: intSchema,
  })
  .meta({ id: "TokenMetrics" });

/** Token (list item). */
export const tokenItemSchema = z
  .object({
    address: addressSchema,
    creator: addressSchema,
    name: z.string(),
    symbol: z.string(),
    initial_supply: amountSchema,
    created_at: createdAtSchema,
    metrics: tokenMetricsSchema,
    usd: tokenUsdSchema,
  })
  .meta({ id: "Token" });

/** Bonding-curve state of a token (docs/api.md "Token detail"). */
export const curveSchema = z
  .object({
    reserve_balance: amountSchema.meta({ description: "virtual reserve balance (wei)" }),
    token_balance: amountSchema.meta({ description: "virtual token balance (base units)" }),
    real_reserve: amountSchema.meta({ description: "real reserve held by the curve (wei)" }),
    tokens_sold: amountSchema,
    graduation_threshold: amountSchema.meta({
      description: "real reserve at which the token graduates (wei)",
    }),
    progress_bps: intSchema
      .min(0)
      .max(10_000)
      .meta({ description: "real_reserve / graduation_threshold in basis points, floored, at most 10000" }),
  })
  .meta({ id: "TokenCurve" });

/** Metadata of a finalized draft (docs/api.md "Token detail"). */
export const tokenMetadataSchema = z
  .object({
    description: z.string().nullable(),
    image_url: z.string().meta({ description: "stored object path, `/objects/images/<sha256>.<ext>`" }),
    metadata_url: z.string().meta({ description: "stored object path, `/objects/metadata/<sha256>.json`" }),
    website_url: z.string().nullable(),
    x_url: z.string().nullable(),
    telegram_url: z.string().nullable(),
    discord_url: z.string().nullable(),
  })
  .meta({ id: "TokenMetadata" });

/** Graduation of a token to its DEX pool. */
export const graduationSchema = z
  .object({
    pool_address: addressSchema,
    block_number: intSchema,
    transaction_hash: hashSchema,
    log_index: intSchema,
    timestamp: intSchema.meta({ description: "Unix seconds of the graduation block" }),
  })
  .meta({ id: "TokenGraduation" });

/** Token detail: the list item plus state, curve, metadata and graduation. */
export const tokenDetailSchema = tokenItemSchema
  .extend({
    state: z.enum(["curve", "graduated"]),
    curve: curveSchema,
    metadata: tokenMetadataSchema.nullable(),
    graduation: graduationSchema.nullable(),
    stats: tokenStatsSchema,
  })
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
