import { AppError } from "@tmi/shared/errors";
import { z } from "zod";
import { shareBpsSql } from "./risk/risk-sql.js";
import { CHECKPOINT_NOW_SQL } from "./token-stats-queries.js";

// The screener filters of the token list (docs/api.md "Screener filters"): bounds on a token's
// market cap, trending-window volume, holders, age, curve progress and compact `risk` figures,
// combinable with every sort, `phase` and `search`. One SQL condition over `tokens t` holds every
// filter with its bounds as bind parameters (null: no bound), so the statement's text does not
// depend on which filters a request sets: one prepared statement per page shape.

/** Filters with a `min_` and a `max_` bound (inclusive): non-negative integers. */
export const SCREENER_RANGES = [
  "market_cap",
  "volume_24h",
  "holders",
  "age_seconds",
  "progress_bps",
] as const;
/** Filters with a `max_` bound only (inclusive): basis points of the compact `risk`. */
export const SCREENER_MAXIMA = [
  "top10_share_bps",
  "creator_share_bps",
  "sniper_share_bps",
  "insider_share_bps",
] as const;

/** The bound query parameters, in the order cursors bind them. */
export const SCREENER_BOUNDS = [
  ...SCREENER_RANGES.flatMap((f) => [`min_${f}`, `max_${f}`] as const),
  ...SCREENER_MAXIMA.map((f) => `max_${f}` as const),
] as const;
/** A bound query parameter (`min_market_cap`, `max_top10_share_bps`, …). */
export type ScreenerBound = (typeof SCREENER_BOUNDS)[number];

/**
 * Screener filters of a page: each bound (inclusive, a non-negative integer: wei for
 * `market_cap` and `volume_24h`, a count for `holders`, seconds for `age_seconds`, basis points
 * for the `*_bps`), and `creator_has_sold`. Absent: no filter.
 */
export interface Screener {
  bounds: Partial<Record<ScreenerBound, bigint>>;
  creatorHasSold?: boolean;
}

const DESCRIPTIONS: Record<(typeof SCREENER_RANGES)[number] | (typeof SCREENER_MAXIMA)[number], string> = {
  market_cap: "`metrics.fully_diluted_value` (wei); tokens without one are left out",
  volume_24h: "the trending window's volume (wei; 0 outside the trending snapshot)",
  holders: "`metrics.holder_count`",
  age_seconds: "seconds since the launch block, at the latest indexed block",
  progress_bps: "`curve.progress_bps`",
  top10_share_bps: "`risk.top10_share_bps`",
  creator_share_bps: "`risk.creator_share_bps`",
  sniper_share_bps: "`risk.sniper_share_bps`",
  insider_share_bps: "`risk.insider_share_bps`",
};

/** A bound: digits only (no sign, fraction, exponent or blank), at most 78 (a uint256 fits). */
const boundParam = (description: string) =>
  z
    .string()
    .regex(/^[0-9]{1,78}$/, "must be a non-negative integer (digits only)")
    .optional()
    .meta({ description });

/** The query parameters of the screener (zod shape, extended into the token list's query). */
export const screenerQuery = {
  ...Object.fromEntries(
    SCREENER_BOUNDS.map((bound) => {
      const field = bound.slice(4) as keyof typeof DESCRIPTIONS;
      const side = bound.startsWith("min_") ? "at least" : "at most";
      return [bound, boundParam(`screener: ${side} (inclusive) ${DESCRIPTIONS[field]}`)];
    }),
  ),
  creator_has_sold: z
    .enum(["true", "false"])
    .optional()
    .meta({ description: "screener: `risk.creator_has_sold` is this value" }),
} as Record<ScreenerBound, z.ZodOptional<z.ZodString>> & {
  creator_has_sold: z.ZodOptional<z.ZodEnum<{ true: "true"; false: "false" }>>;
};

/**
 * The screener of a parsed query (`screenerQuery`'s keys), `undefined` when it sets no filter.
 * @throws AppError `invalid_request` when a `min_` bound exceeds its `max_` (`details` names both).
 */
export function parseScreener(
  query: Partial<Record<ScreenerBound, string | undefined>> & {
    creator_has_sold?: "true" | "false" | undefined;
  },
): Screener | undefined {
  const bounds: Partial<Record<ScreenerBound, bigint>> = {};
  for (const bound of SCREENER_BOUNDS) {
    const value = query[bound];
    if (value !== undefined) bounds[bound] = BigInt(value);
  }
  for (const field of SCREENER_RANGES) {
    const [min, max] = [bounds[`min_${field}`], bounds[`max_${field}`]];
    if (min !== undefined && max !== undefined && min > max)
      throw new AppError("invalid_request", `min_${field} must not exceed max_${field}`, {
        details: [
          { field: `min_${field}`, reason: `greater than max_${field}` },
          { field: `max_${field}`, reason: `less than min_${field}` },
        ],
      });
  }
  const sold = query.creator_has_sold;
  if (Object.keys(bounds).length === 0 && sold === undefined) return undefined;
  return { bounds, ...(sold !== undefined ? { creatorHasSold: sold === "true" } : {}) };
}

/** The query parameters the screener sets, as a canonical string (cursors are bound to it). */
export function screenerKey(screener: Screener | undefined): string {
  if (screener === undefined) return "";
  const parts = SCREENER_BOUNDS.filter((b) => screener.bounds[b] !== undefined).map(
    (b) => `${b}=${screener.bounds[b]}`,
  );
  if (screener.creatorHasSold !== undefined) parts.push(`creator_has_sold=${screener.creatorHasSold}`);
  return parts.join("&");
}

/** The named bind values of {@link screenerSql} (`$s_<bound>`, `$s_creator_has_sold`; null: no bound). */
export function screenerValues(screener: Screener): Record<string, string | boolean | null> {
  const values: Record<string, string | boolean | null> = {};
  for (const bound of SCREENER_BOUNDS) values[`s_${bound}`] = screener.bounds[bound]?.toString() ?? null;
  values.s_creator_has_sold = screener.creatorHasSold ?? null;
  return values;
}

/** `$s_<name>` as a numeric bound. */
const param = (name: string) => `$s_${name}::numeric`;

/** `value` within the bounds of `field` (each null: unbounded); false for a null value. */
const inRange = (field: string, value: string) =>
  `(${param(`min_${field}`)} IS NULL OR ${value} >= ${param(`min_${field}`)}) AND (${param(`max_${field}`)} IS NULL OR ${value} <= ${param(`max_${field}`)})`;
/** `value` at most `max_<field>` (null: unbounded). */
const atMost = (field: string, value: string) =>
  `(${param(`max_${field}`)} IS NULL OR ${value} <= ${param(`max_${field}`)})`;
/** Whether any of `bounds` is set: the per-row reads behind them run only then (`CASE`). */
const anySet = (bounds: string[]) => bounds.map((b) => `${param(b)} IS NOT NULL`).join(" OR ");

/**
 * The screener as one condition over `tokens t` (named parameters of {@link screenerValues}),
 * `progressBps` the expression of `curve.progress_bps`, `snapshot` that of the trending snapshot
 * whose `window_volume` is `volume_24h`. Per row: the token's columns; when a volume bound is set,
 * one probe of `trending_entries_token_idx`; when a risk bound is set, one primary-key read of
 * `token_risk` (a token without a row reads zeros, as its compact `risk`). "Now" of `age_seconds`
 * is the latest indexed block's timestamp (evaluated once per statement).
 */
export function screenerSql(progressBps: string, snapshot: string): string {
  const col = (name: string) => `coalesce(r.${name}, 0)`;
  const risk = [
    atMost("top10_share_bps", shareBpsSql(col("top10_balance"))),
    atMost("creator_share_bps", shareBpsSql(col("creator_balance"))),
    atMost("sniper_share_bps", shareBpsSql(col("sniper_balance"))),
    atMost("insider_share_bps", shareBpsSql(col("insider_balance"))),
    `($s_creator_has_sold::boolean IS NULL OR (${col("creator_sold")} > 0) = $s_creator_has_sold::boolean)`,
  ].join(" AND ");
  const volume = `coalesce((SELECT e.window_volume FROM trending_entries e
      WHERE e.snapshot_id = (${snapshot}) AND e.token_address = t.address), 0)`;
  return `(${inRange("market_cap", "t.fully_diluted_value")}
    AND ${inRange("holders", "t.holder_count")}
    AND ${inRange("progress_bps", progressBps)}
    AND ${inRange("age_seconds", `((SELECT ${CHECKPOINT_NOW_SQL}) - t.created_at)`)}
    AND CASE WHEN ${anySet(["min_volume_24h", "max_volume_24h"])} THEN ${inRange("volume_24h", volume)} ELSE true END
    AND CASE WHEN ${anySet(SCREENER_MAXIMA.map((f) => `max_${f}`))} OR $s_creator_has_sold::boolean IS NOT NULL
      THEN (SELECT ${risk} FROM (SELECT 1) one LEFT JOIN token_risk r ON r.token_address = t.address)
      ELSE true END)`;
}
