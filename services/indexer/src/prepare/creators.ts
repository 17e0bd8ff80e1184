// The SQL text of read model `creators` (its rows and deltas: model/creators.ts): the statement
// parts that write a range's rows, composed by prepare-write.ts.

import type { CreatorDelta } from "../model/creators.js";
import { type SqlParams, unnestRows } from "../sql/sql-text.js";

/** Creators (`creators`): token count, volume (Σ curve_value of their tokens' trades) and curve creator fees earned/claimed add up (CTE `creators_up`). */
export function creatorsCtes(creators: Map<string, CreatorDelta>, q: SqlParams): string[] {
  return [
    `creators_up AS (
    INSERT INTO creators (address, token_count, volume, fees_earned, fees_claimed, updated_block_number)
    SELECT * FROM ${unnestRows(q, [...creators.values()], "d", {
      address: ["text", (c) => c.address],
      token_count: ["int", (c) => c.tokenCount],
      volume: ["numeric", (c) => c.volume.toString()],
      fees_earned: ["numeric", (c) => c.feesEarned.toString()],
      fees_claimed: ["numeric", (c) => c.feesClaimed.toString()],
      updated_block_number: ["bigint", (c) => c.updatedBlock],
    })}
    ON CONFLICT (address) DO UPDATE SET
      token_count = creators.token_count + excluded.token_count,
      volume = creators.volume + excluded.volume,
      fees_earned = creators.fees_earned + excluded.fees_earned,
      fees_claimed = creators.fees_claimed + excluded.fees_claimed,
      updated_block_number = greatest(creators.updated_block_number, excluded.updated_block_number))`,
  ];
}
