import { AppError } from "@tmi/shared/errors";
import { CANDLE_INTERVALS, type CandleInterval, isCandleInterval } from "@tmi/shared/market";
import { z } from "zod";
import { limitParam } from "../common/params.js";
import { amountSchema, intSchema, priceSchema } from "../common/wire-schemas.js";

/** Chart query: `interval` (checked in the handler: 400 `invalid_interval`) and `limit` 1–1000 (default 200). */
export const chartQuery = z.object({
  interval: z
    .string()
    .optional()
    .meta({ description: `one of ${CANDLE_INTERVALS.join(", ")}; default 1h`, enum: [...CANDLE_INTERVALS] }),
  limit: limitParam(1, 1000, 200),
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
    unique_trader_count: intSchema,
    open_price: priceSchema,
    high_price: priceSchema,
    low_price: priceSchema,
    close_price: priceSchema,
  })
  .meta({ id: "Candle" });

/** Chart response. */
export const chartSchema = z
  .object({
    interval: z.enum(CANDLE_INTERVALS),
    supported_intervals: z.array(z.enum(CANDLE_INTERVALS)),
    candles: z.array(candleSchema),
  })
  .meta({ id: "Chart" });
