import type { Batch } from "../../model/batch.js";
import type { SqlParams } from "../sql-text.js";

/** ETH/USD answers (`eth_usd_answers`) of the configured feed. */
export function ethUsdCtes(batch: Batch, q: SqlParams): string[] {
  const u = batch.ethUsd;
  if (u.length === 0) return [];
  return [
    `eu AS (
    INSERT INTO eth_usd_answers (block_number, log_index, round_id, answer, updated_at)
    SELECT * FROM unnest(${q.p(
      u.map((r) => r.blockNumber),
      "bigint[]",
    )}, ${q.p(
      u.map((r) => r.logIndex),
      "int[]",
    )}, ${q.p(
      u.map((r) => r.roundId.toString()),
      "numeric[]",
    )}, ${q.p(
      u.map((r) => r.answer.toString()),
      "numeric[]",
    )}, ${q.p(
      u.map((r) => r.updatedAt.toString()),
      "bigint[]",
    )})
    ON CONFLICT DO NOTHING)`,
  ];
}
