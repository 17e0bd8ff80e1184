import type { Batch } from "../../model/batch.js";
import type { SqlParams } from "../sql-text.js";

/**
 * Distinct traders per token (`token_traders`): inserts the range's traders; CTE `ttn`
 * (token_address, n) counts the ones that were new, for `tokens.unique_trader_count`.
 */
export function tradersCtes(batch: Batch, q: SqlParams): string[] {
  const tt = [...batch.tokenTraders.values()];
  return [
    `tt AS (
    INSERT INTO token_traders (token_address, trader, first_block_number)
    SELECT * FROM unnest(${q.p(
      tt.map((r) => r.tokenAddress),
      "text[]",
    )}, ${q.p(
      tt.map((r) => r.trader),
      "text[]",
    )}, ${q.p(
      tt.map((r) => r.firstBlock),
      "bigint[]",
    )})
    ON CONFLICT (token_address, trader) DO NOTHING
    RETURNING token_address)`,
    "ttn AS (SELECT token_address, count(*)::int AS n FROM tt GROUP BY token_address)",
  ];
}
