// The SQL text of read model `eth-usd` (its rows and deltas: model/eth-usd.ts): the statement
// parts that write a range's rows, composed by prepare-write.ts.

import type { EthUsdRow } from "../model/eth-usd.js";
import { type SqlParams, unnestRows } from "../sql/sql-text.js";

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
