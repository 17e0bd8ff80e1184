import { z } from "zod";
import { tokenStatsSchema } from "./features/stats/window-stats-queries.js";
import { reserveAmountUsdSchema, tokenUsdSchema } from "./features/usd/usd-queries.js";

// Wire schemas of query-api (spec "Resources and their fields", DESIGN.md §3–§7). They validate
// and serialize every response and generate the OpenAPI document (`/api/v1/openapi.json`).

const address = z
  .string()
  .regex(/^0x[0-9a-f]{40}$/)
  .meta({ description: "0x-prefixed lowercase hex address" });
const hash = z
  .string()
  .regex(/^0x[0-9a-f]{64}$/)
  .meta({ description: "0x-prefixed lowercase hex hash" });
const amount = z
  .string()
  .regex(/^[0-9]+$/)
  .meta({ description: "unsigned integer, decimal string in base units" });
const price = amount.nullable().meta({
  description:
    "wei per whole token (10^18 base units), floored decimal string; null when no valid price exists",
});
const int = z.number().int();

/** Position of a launch: the `TokenCreated` log. */
export const createdAtSchema = z
  .object({ block_number: int, transaction_hash: hash, log_index: int })
  .meta({ id: "TokenCreatedAt" });

/** Aggregates of a token (DESIGN.md §3). */
export const tokenMetricsSchema = z
  .object({
    trade_count: int,
    buy_count: int,
    sell_count: int,
    volume: amount.meta({ description: "sum of trade reserve amounts (wei)" }),
    fees: amount.meta({ description: "sum of protocol and creator fees (wei)" }),
    unique_trader_count: int,
    current_price: price,
    fully_diluted_value: amount
      .nullable()
      .meta({ description: "current_price × initial_supply / 10^18 (wei); null when no valid price exists" }),
    holder_count: int,
  })
  .meta({ id: "TokenMetrics" });

/** Token (list item). */
export const tokenItemSchema = z
  .object({
    address,
    creator: address,
    name: z.string(),
    symbol: z.string(),
    initial_supply: amount,
    created_at: createdAtSchema,
    metrics: tokenMetricsSchema,
    usd: tokenUsdSchema,
  })
  .meta({ id: "Token" });

/** Bonding-curve state of a token (DESIGN.md §7). */
export const curveSchema = z
  .object({
    reserve_balance: amount.meta({ description: "virtual reserve balance (wei)" }),
    token_balance: amount.meta({ description: "virtual token balance (base units)" }),
    real_reserve: amount.meta({ description: "real reserve held by the curve (wei)" }),
    tokens_sold: amount,
    graduation_threshold: amount.meta({ description: "real reserve at which the token graduates (wei)" }),
    progress_bps: int
      .min(0)
      .max(10_000)
      .meta({ description: "real_reserve / graduation_threshold in basis points, floored, at most 10000" }),
  })
  .meta({ id: "TokenCurve" });

/** Metadata of a finalized draft (DESIGN.md §7, §10). */
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
    pool_address: address,
    block_number: int,
    transaction_hash: hash,
    log_index: int,
    timestamp: int.meta({ description: "Unix seconds of the graduation block" }),
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

/** Pricing (spec "Pricing", DESIGN.md §3). */
export const pricingSchema = z
  .object({
    token_address: address,
    current_price: price,
    fully_diluted_value: amount.nullable(),
    source: z.enum(["indexed_v3_curve", "indexed_v3_market"]),
  })
  .meta({ id: "Pricing" });

/** The supported chart intervals, shortest first. */
export const CHART_INTERVALS = ["1m", "5m", "15m", "1h", "4h", "1d", "1w"] as const;
/** One chart interval. */
export type ChartInterval = (typeof CHART_INTERVALS)[number];

/** One OHLC bucket. */
export const candleSchema = z
  .object({
    bucket_start: int.meta({ description: "bucket start, Unix seconds (UTC aligned; weeks start Monday)" }),
    trade_count: int,
    buy_count: int,
    sell_count: int,
    volume: amount,
    unique_trader_count: int,
    open_price: price,
    high_price: price,
    low_price: price,
    close_price: price,
  })
  .meta({ id: "Candle" });

/** Chart response. */
export const chartSchema = z
  .object({
    interval: z.enum(CHART_INTERVALS),
    supported_intervals: z.array(z.enum(CHART_INTERVALS)),
    candles: z.array(candleSchema),
  })
  .meta({ id: "Chart" });

/** Trade. */
export const tradeSchema = z
  .object({
    token_address: address,
    trader: address,
    side: z.enum(["buy", "sell"]),
    token_amount: amount,
    reserve_amount: amount,
    curve_value: amount,
    protocol_fee: amount,
    creator_fee: amount,
    source: z.enum(["curve", "dex_v3"]),
    block_number: int,
    transaction_index: int,
    transaction_hash: hash,
    log_index: int,
    reserve_amount_usd: reserveAmountUsdSchema,
  })
  .meta({ id: "Trade" });

/** Activity item: a canonical decoded chain event. */
export const activitySchema = z
  .object({
    event_name: z.string(),
    decoded: z
      .record(z.string(), z.unknown())
      .meta({ description: "decoded event arguments (uint256 as decimal strings)" }),
    block_number: int,
    transaction_index: int,
    transaction_hash: hash,
    log_index: int,
  })
  .meta({ id: "ActivityItem" });

const nextCursor = z
  .string()
  .optional()
  .meta({ description: "opaque; present only when a further page exists" });

/** A page of `item`. */
export function pageSchema<T extends z.ZodType>(item: T, id: string) {
  return z.object({ items: z.array(item), next_cursor: nextCursor }).meta({ id });
}

export const tokenPageSchema = pageSchema(tokenItemSchema, "TokenPage");
export const tradePageSchema = pageSchema(tradeSchema, "TradePage");
export const activityPageSchema = pageSchema(activitySchema, "ActivityPage");

/** Creator profile. */
export const creatorProfileSchema = z
  .object({
    address,
    token_count: int,
    volume: amount,
    tokens: z.array(tokenItemSchema),
    next_cursor: nextCursor,
  })
  .meta({ id: "CreatorProfile" });

/** Error body (DESIGN.md §6). */
export const errorSchema = z
  .object({
    code: z.string(),
    message: z.string(),
    request_id: z.string(),
    details: z.array(z.object({ field: z.string(), reason: z.string() })).optional(),
  })
  .meta({ id: "Error" });

export type TokenItem = z.output<typeof tokenItemSchema>;
export type TokenDetail = z.output<typeof tokenDetailSchema>;
export type Pricing = z.output<typeof pricingSchema>;
export type Candle = z.output<typeof candleSchema>;
export type Chart = z.output<typeof chartSchema>;
export type Trade = z.output<typeof tradeSchema>;
export type ActivityItem = z.output<typeof activitySchema>;
export type CreatorProfile = z.output<typeof creatorProfileSchema>;
/** A page of items; `next_cursor` only when a further page exists. */
export interface Page<T> {
  items: T[];
  next_cursor?: string;
}
