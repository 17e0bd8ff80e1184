import { AppError } from "@tmi/shared/errors";
import { CANDLE_INTERVALS, type CandleInterval, isCandleInterval } from "@tmi/shared/market";
import { z } from "zod";
import { limitParam } from "../../common/params.js";
import { usdValue } from "../../common/usd-schemas.js";
import { amountSchema, intSchema, priceSchema } from "../../common/wire-schemas.js";

/** Most buckets one chart answers: `limit` and `countback` at most, and the widest `from`–`to` span. */
export const MAX_CHART_BUCKETS = 1000;

/** The chart currencies: `eth` (wei prices and volume, the default) or `usd`. */
export const CHART_CURRENCIES = ["eth", "usd"] as const;
/** One chart currency. */
export type ChartCurrency = (typeof CHART_CURRENCIES)[number];

/** A Unix-seconds query parameter: 1 to 10 digits (0 to 9,999,999,999), nothing else. */
function unixSecondsParam(description: string) {
  return z
    .string()
    .regex(/^[0-9]{1,10}$/, "must be Unix seconds: an integer from 0 to 9999999999")
    .transform(Number)
    .optional()
    .meta({ description, example: "1795600000" });
}

/**
 * Chart query (docs/api.md "Chart"): `interval` (checked in the handler: 400 `invalid_interval`),
 * `limit` 1–1000 (default 200), `from`/`to` (Unix seconds), `countback` 1–1000 and `currency`
 * `eth`|`usd`. The checks across parameters (`from` ≤ `to`, the span) are {@link chartWindow}'s.
 */
export const chartQuery = z.object({
  interval: z
    .string()
    .optional()
    .meta({ description: `one of ${CANDLE_INTERVALS.join(", ")}; default 1h`, enum: [...CANDLE_INTERVALS] }),
  limit: limitParam(1, MAX_CHART_BUCKETS, 200),
  from: unixSecondsParam(
    "Unix seconds: the bucket holding it is the first answered (ignored with `countback`); without `countback` the from–to span may hold at most 1000 buckets",
  ),
  to: unixSecondsParam(
    "Unix seconds: the bucket holding it is the last answered (never beyond the latest indexed block's bucket); default the latest indexed block",
  ),
  countback: z
    .string()
    .regex(/^[0-9]{1,7}$/, `must be an integer from 1 to ${MAX_CHART_BUCKETS}`)
    .transform(Number)
    .pipe(
      z
        .number()
        .int()
        .min(1, "must be at least 1")
        .max(MAX_CHART_BUCKETS, `must be at most ${MAX_CHART_BUCKETS}`),
    )
    .optional()
    .meta({
      description: `at most this many buckets, ending at the bucket of \`to\` (TradingView's countBack); replaces \`limit\` and \`from\`; 1 to ${MAX_CHART_BUCKETS}`,
      example: "300",
    }),
  currency: z.enum(CHART_CURRENCIES).default("eth").meta({
    description:
      "`eth` (default): prices in wei per whole token, volume in wei; `usd`: both in USD with the ETH/USD answer in force at each bucket's end",
  }),
});

/**
 * Parses a chart interval; absent → `1h`.
 * @throws AppError `invalid_interval` for any other value.
 */
export function parseInterval(value: string | undefined): CandleInterval {
  if (value === undefined) return "1h";
  if (isCandleInterval(value)) return value;
  throw new AppError("invalid_interval", `interval must be one of ${CANDLE_INTERVALS.join(", ")}`, {
    details: [{ field: "interval", reason: "unsupported interval" }],
  });
}

/** The `open_price`, `high_price`, `low_price` and `close_price` fields of a candle, each `price`. */
function ohlcFields<T extends z.ZodType>(price: T) {
  return { open_price: price, high_price: price, low_price: price, close_price: price };
}

/** One OHLC bucket. */
export const candleSchema = z
  .object({
    bucket_start: intSchema.meta({
      description: "bucket start, Unix seconds (UTC aligned; weeks start Monday)",
    }),
    trade_count: intSchema,
    buy_count: intSchema,
    sell_count: intSchema,
    volume: amountSchema,
    buy_volume: amountSchema.meta({
      description: "the volume of the bucket's buys (wei); buy_volume + sell_volume = volume",
    }),
    sell_volume: amountSchema.meta({ description: "the volume of the bucket's sells (wei)" }),
    unique_trader_count: intSchema,
    ...ohlcFields(priceSchema),
  })
  .meta({ id: "Candle" });

/**
 * One OHLC bucket in USD (`currency=usd`): the wei values × the ETH/USD answer in force at the
 * bucket's end (`eth_usd`), exact decimal strings like the other `usd` fields.
 */
export const usdCandleSchema = candleSchema
  .extend({
    volume: usdValue
      .nullable()
      .meta({ description: 'USD; "0" without trades; null when trades have no ETH/USD answer in force' }),
    buy_volume: usdValue.nullable().meta({ description: 'USD of buy_volume; "0" without buys' }),
    sell_volume: usdValue.nullable().meta({ description: 'USD of sell_volume; "0" without sells' }),
    unique_trader_count: intSchema,
    open_price: usdValue
      .nullable()
      .meta({ description: "USD per whole token; null without a price or answer" }),
    high_price: usdValue.nullable(),
    low_price: usdValue.nullable(),
    close_price: usdValue.nullable(),
    eth_usd: usdValue.nullable().meta({
      description:
        "the ETH/USD answer applied: the latest positive indexed answer whose round updatedAt is before the bucket's end; null when none",
    }),
  })
  .meta({ id: "UsdCandle" });

/** Chart response in USD (`currency=usd`). */
export const usdChartSchema = z
  .object({
    interval: z.enum(CANDLE_INTERVALS),
    supported_intervals: z.array(z.enum(CANDLE_INTERVALS)),
    currency: z.literal("usd"),
    candles: z.array(usdCandleSchema),
  })
  .meta({ id: "UsdChart" });

/** Chart response (`currency=eth`, the default: the spec's shape). */
export const chartSchema = z
  .object({
    interval: z.enum(CANDLE_INTERVALS),
    supported_intervals: z.array(z.enum(CANDLE_INTERVALS)),
    candles: z.array(candleSchema),
  })
  .meta({ id: "Chart" });
