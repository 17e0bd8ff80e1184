// The SQL text of read model `token_progress_highs` (its rows: model/progress.ts): the part of the
// range's read-model statement that writes them, composed by prepare-write.ts.
import type { ProgressHighs } from "../model/progress.js";
import { type SqlParams, unnestRows } from "../sql/sql-text.js";

/**
 * Progress highs (`token_progress_highs`, CTE `progress_up`): a range's high replaces the stored
 * one only when strictly higher (the first trade reaching a high stays). Runs after the range's
 * trades COPY, whose `token.progress` trigger fires only while a subscription wants the event; it
 * then reads the highs of before the range and raises them itself (this upsert finds nothing higher).
 */
export function progressCtes(highs: ProgressHighs, q: SqlParams): string[] {
  if (highs.size === 0) return [];
  return [
    `progress_up AS (
    INSERT INTO token_progress_highs (token_address, high_bps, block_number, log_index)
    SELECT * FROM ${unnestRows(q, [...highs.values()], "d", {
      token_address: ["text", (h) => h.tokenAddress],
      high_bps: ["int", (h) => h.bps],
      block_number: ["bigint", (h) => h.blockNumber],
      log_index: ["int", (h) => h.logIndex],
    })}
    ON CONFLICT (token_address) DO UPDATE SET high_bps = excluded.high_bps,
      block_number = excluded.block_number, log_index = excluded.log_index
    WHERE excluded.high_bps > token_progress_highs.high_bps)`,
  ];
}
