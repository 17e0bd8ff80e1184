// Read model `eth_usd_answers`: the configured ETH/USD feed's `AnswerUpdated` (handler
// `onAnswerUpdated` adds a row), inserted by one CTE of the range's statement.
import { type SqlParams, unnestRows } from "../store/sql-text.js";

/** Log index of the start answer (sync/feed-start.ts): before every log of `START_BLOCK`. */
export const START_ANSWER_LOG_INDEX = -1;

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
    SELECT * FROM ${unnestRows(q, u, "d", {
      block_number: ["bigint", (r) => r.blockNumber],
      log_index: ["int", (r) => r.logIndex],
      round_id: ["numeric", (r) => r.roundId.toString()],
      answer: ["numeric", (r) => r.answer.toString()],
      updated_at: ["bigint", (r) => r.updatedAt.toString()],
    })}
    ON CONFLICT DO NOTHING)`,
  ];
}
