// The SQL text of read model `traders` (its rows and deltas: model/traders.ts): the statement
// parts that write a range's rows, composed by prepare-write.ts.
import { LONG_INTERVALS } from "../model/candles.js";
import type { TokenTraderDelta } from "../model/traders.js";
import { type SqlParams, type UnnestColumn, unnestRows } from "../sql/sql-text.js";

/** One bigint column per long interval, `<prefix><interval>` (`f1h`, …): the trader's first or last bucket of it. */
function bucketColumns(
  prefix: string,
  which: "firstBuckets" | "lastBuckets",
): Record<string, UnnestColumn<TokenTraderDelta>> {
  const columns: Record<string, UnnestColumn<TokenTraderDelta>> = {};
  LONG_INTERVALS.forEach((interval, j) => {
    columns[`${prefix}${interval}`] = ["bigint", (r) => r[which][j] ?? null];
  });
  return columns;
}

/**
 * Distinct traders per token (`token_traders`): the range's traders inserted, or their last bucket
 * of each long candle interval moved forward (rows that would not change are not written: no row
 * lock, no WAL). Offers two relations (their names):
 * - `newTraders` (token_address, n): traders new to the token (`tokens.unique_trader_count`);
 * - `countedTraders` (token_address, interval, bucket_start, n): traders of the range whose stored
 *   last bucket is the bucket of their first trade in the range — already counted in that long candle.
 */
export function tradersCtes(
  traders: Map<string, TokenTraderDelta>,
  q: SqlParams,
): { ctes: string[]; newTraders: string; countedTraders: string } {
  const tt = [...traders.values()];
  const names = LONG_INTERVALS.map((i) => i);
  const ctes = [
    `traders_old AS (
    SELECT d.*, old.trader IS NULL AS is_new, ${names.map((n) => `old.last_bucket_${n} AS o${n}`).join(", ")}
    FROM ${unnestRows(q, tt, "d", {
      token: ["text", (r) => r.tokenAddress],
      trader: ["text", (r) => r.trader],
      fb: ["bigint", (r) => r.firstBlock],
      ...bucketColumns("f", "firstBuckets"),
      ...bucketColumns("l", "lastBuckets"),
    })}
    LEFT JOIN token_traders old ON old.token_address = d.token AND old.trader = d.trader)`,
    `traders_up AS (
    INSERT INTO token_traders (token_address, trader, first_block_number, ${names.map((n) => `last_bucket_${n}`).join(", ")})
    SELECT token, trader, fb, ${names.map((n) => `l${n}`).join(", ")} FROM traders_old
    WHERE is_new OR (${names.map((n) => `l${n}`).join(", ")}) IS DISTINCT FROM (${names.map((n) => `o${n}`).join(", ")})
    ON CONFLICT (token_address, trader) DO UPDATE SET
      ${names.map((n) => `last_bucket_${n} = excluded.last_bucket_${n}`).join(",\n      ")}
    WHERE (${names.map((n) => `token_traders.last_bucket_${n}`).join(", ")})
      IS DISTINCT FROM (${names.map((n) => `excluded.last_bucket_${n}`).join(", ")}))`,
    "traders_new AS (SELECT token AS token_address, count(*) FILTER (WHERE is_new)::int AS n FROM traders_old GROUP BY token)",
    `traders_counted AS (
    SELECT traders_old.token AS token_address, v.i AS interval, v.b AS bucket_start, count(*)::int AS n
    FROM traders_old CROSS JOIN LATERAL (VALUES ${names.map((n) => `('${n}', f${n}, o${n})`).join(", ")}) AS v(i, b, o)
    WHERE v.b = v.o GROUP BY 1, 2, 3)`,
  ];
  return { ctes, newTraders: "traders_new", countedTraders: "traders_counted" };
}
