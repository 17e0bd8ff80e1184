// Read model `eth_usd_answers`: the configured ETH/USD feed's `AnswerUpdated` (handler
// `onAnswerUpdated` adds a row), inserted by one CTE of the range's statement.
import type { SqlParams } from "../store/sql-text.js";

/** An `AnswerUpdated` of the ETH/USD feed. */
export interface EthUsdRow {
  blockNumber: number;
  logIndex: number;
  roundId: bigint;
  answer: bigint;
  updatedAt: bigint;
}

/** ETH/USD answers (`eth_usd_answers`) of the configured feed: the range's rows inserted (CTE `eth_usd_ins`). */
export function ethUsdCtes(u: EthUsdRow[], q: SqlParams): string[] {
  if (u.length === 0) return [];
  return [
    `eth_usd_ins AS (
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
