import { z } from "zod";

/** One window's figures. */
export const windowStatsSchema = z
  .object({
    volume: z.string().describe("sum of curve_value (wei) of the window's trades"),
    buy_volume: z.string().describe("the volume of the window's buys (wei)"),
    sell_volume: z
      .string()
      .describe("the volume of the window's sells (wei); buy_volume + sell_volume = volume"),
    net_volume: z.string().describe("buy_volume − sell_volume (wei), signed decimal string"),
    trade_count: z.number().int(),
    buy_count: z.number().int(),
    sell_count: z.number().int(),
    unique_buyers: z.number().int().describe("distinct addresses that bought in the window"),
    unique_sellers: z.number().int().describe("distinct addresses that sold in the window"),
    unique_traders: z.number().int().describe("distinct addresses that traded in the window"),
    price_change_bps: z
      .number()
      .int()
      .nullable()
      .describe(
        "(last trade price − last trade price before the window) × 10000 / the latter, truncated; null without a trade before the window",
      ),
  })
  .meta({ id: "WindowStats" });

/** `stats` of token detail: one entry per window. */
export const tokenStatsSchema = z
  .object({
    "5m": windowStatsSchema,
    "15m": windowStatsSchema,
    "30m": windowStatsSchema,
    "1h": windowStatsSchema,
    "6h": windowStatsSchema,
    "24h": windowStatsSchema,
  })
  .meta({
    id: "TokenStats",
    description:
      "Window figures from the candle rollups; a window is the whole buckets (1m for 5m, 15m, 30m and 1h, 5m for 6h, 15m for 24h) ending with the bucket of the latest indexed block's timestamp",
  });
export type TokenStats = z.infer<typeof tokenStatsSchema>;
