// Read model `creators`: per creator, the count of tokens launched (handler `onTokenLaunched`)
// and the volume of their tokens' trades (every trade, through `RangeBuilder.trade`).
import { type SqlParams, unnestRows } from "../store/sql-text.js";

/** Per-creator change of a range. */
export interface CreatorDelta {
  /** The creator. */
  address: string;
  tokenCount: number;
  /** Σ curve_value of the creator's tokens' trades. */
  volume: bigint;
  updatedBlock: number;
}

/** The range's delta of `creator` in `creators` (created on first use; `updatedBlock` moves forward to `block`). */
export function creatorDelta(
  creators: Map<string, CreatorDelta>,
  creator: string,
  block: number,
): CreatorDelta {
  let c = creators.get(creator);
  if (!c) {
    c = { address: creator, tokenCount: 0, volume: 0n, updatedBlock: block };
    creators.set(creator, c);
  }
  if (block > c.updatedBlock) c.updatedBlock = block;
  return c;
}

/** Creators (`creators`): token count and volume (Σ curve_value of their tokens' trades) add up (CTE `creators_up`). */
export function creatorsCtes(creators: Map<string, CreatorDelta>, q: SqlParams): string[] {
  return [
    `creators_up AS (
    INSERT INTO creators (address, token_count, volume, updated_block_number)
    SELECT * FROM ${unnestRows(q, [...creators.values()], "d", {
      address: ["text", (c) => c.address],
      token_count: ["int", (c) => c.tokenCount],
      volume: ["numeric", (c) => c.volume.toString()],
      updated_block_number: ["bigint", (c) => c.updatedBlock],
    })}
    ON CONFLICT (address) DO UPDATE SET
      token_count = creators.token_count + excluded.token_count,
      volume = creators.volume + excluded.volume,
      updated_block_number = greatest(creators.updated_block_number, excluded.updated_block_number))`,
  ];
}
