import { z } from "zod";
import { JsonText } from "../../common/route-helpers.js";
import { intSchema } from "../../common/wire-schemas.js";
import { prepared, type SqlReader } from "../../db.js";
import { tokenRoute } from "../../route-context.js";
import { chartWindow } from "../chart/chart-buckets.js";
import { readChartBounds } from "../chart/chart-queries.js";
import { chartQuery } from "../chart/chart-schemas.js";

// GET /api/v1/tokens/{address}/holders/history (docs/api.md): the token's holder count at the end
// of each bucket, from the indexer's `holder_counts` (a row per bucket in which holders changed).

/** Intervals of the holder history. */
export const HOLDER_HISTORY_INTERVALS = ["1h", "4h", "1d"] as const;

/** Query: `interval` 1h|4h|1d (default 1h) and the chart's `limit`, `from`, `to`, `countback`. */
export const holderHistoryQuery = chartQuery
  .pick({ limit: true, from: true, to: true, countback: true })
  .extend({
    interval: z
      .enum(HOLDER_HISTORY_INTERVALS)
      .default("1h")
      .meta({ description: "bucket length: `1h` (default), `4h` or `1d` (UTC-aligned)" }),
  });

/** The answer: `{items: [{time, holder_count}]}`, oldest first. */
export const holderHistorySchema = z
  .object({
    items: z.array(
      z.object({
        time: intSchema.meta({ description: "bucket start (Unix seconds, UTC-aligned)" }),
        holder_count: intSchema.min(0).meta({
          description: "holders after every Transfer of a block whose timestamp is before the bucket's end",
        }),
      }),
    ),
  })
  .meta({ id: "HolderHistory" });

// One row per bucket of the window (generate_series): the stored count of the bucket when it has
// one (one `holder_counts_pkey` range scan over the window), else carried forward from the last
// bucket that has one (a running max of [bucket_start, holder_count] keeps the last one's: one
// window over the buckets in their order, no second sort), else the latest count before
// the window (one backward probe, evaluated once), else 0. Before: one backward probe per bucket
// (docs/benchmarks.md "USD chart by concatenation").
const HISTORY_JSON_SQL = `WITH v AS (
  SELECT g.b, coalesce(
    (max(CASE WHEN h.bucket_start IS NOT NULL THEN ARRAY[h.bucket_start, h.holder_count] END) OVER (ORDER BY g.b))[2],
    (SELECT p.holder_count FROM holder_counts p WHERE p.token_address = $1 AND p.interval = $2
      AND p.bucket_start < $3 ORDER BY p.bucket_start DESC LIMIT 1), 0) AS holder_count
  FROM generate_series($3::int8, $4::int8, $5::int8) AS g(b)
  LEFT JOIN (SELECT bucket_start, holder_count FROM holder_counts
    WHERE token_address = $1 AND interval = $2 AND bucket_start BETWEEN $3 AND $4) h ON h.bucket_start = g.b
)
SELECT coalesce(string_agg('{"time":' || v.b || ',"holder_count":' || v.holder_count || '}', ',' ORDER BY v.b), '') AS items
FROM v`;

/**
 * The holder history of `token` as JSON text (the buckets of the chart's window rule, from the
 * launch's bucket), or null when no canonical launch is indexed. Source: `tokens`,
 * `indexer_checkpoints`, `holder_counts`.
 * @throws AppError `invalid_request` for a bad range (the chart's `chartWindow`).
 */
export async function getHolderHistoryJson(
  db: SqlReader,
  token: string,
  query: z.output<typeof holderHistoryQuery>,
): Promise<string | null> {
  const bounds = await readChartBounds(db, token);
  if (!bounds) return null;
  const window = chartWindow(bounds.launch, bounds.latest, query);
  if (!window) return '{"items":[]}';
  const result = await prepared<{ items: string }>(db, "qapi_holder_history_json", HISTORY_JSON_SQL, [
    token,
    query.interval,
    window.from,
    window.to,
    window.step,
  ]);
  return `{"items":[${result.rows[0]?.items ?? ""}]}`;
}

/**
 * `GET /api/v1/tokens/:address/holders/history`: holder count per bucket. Errors: 400
 * `invalid_address`, 400 `invalid_request` (interval, limit, from, to, countback, from after to,
 * a span over 1,000 buckets), 404 `not_found`.
 */
export const holderHistoryRoutes = tokenRoute("holders/history", {
  summary: "Holder count over time",
  description:
    "The token's holder count at the end of each UTC bucket (`interval` 1h, 4h or 1d), oldest first, from the launch's bucket, gap-filled with the last count: the holders after every Transfer of a block whose timestamp is before the bucket's end. `limit`, `from`, `to` and `countback` select the buckets as the chart's do. 400 `invalid_request` for a malformed parameter, `from` after `to`, or a `from`–`to` span of more than 1000 buckets without `countback`.",
  query: holderHistoryQuery,
  ok: holderHistorySchema,
  read: async (ctx, address, query) => {
    const json = await getHolderHistoryJson(ctx.db, address, query);
    return json && new JsonText(json);
  },
});
