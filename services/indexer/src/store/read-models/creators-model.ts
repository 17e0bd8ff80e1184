import type { Batch } from "../../model/batch.js";
import type { SqlParams } from "../sql-text.js";

/** Creators (`creators`): token count and volume (Σ curve_value of their tokens' trades) add up. */
export function creatorsCtes(batch: Batch, q: SqlParams): string[] {
  const c = [...batch.creators.entries()];
  return [
    `cr AS (
    INSERT INTO creators (address, token_count, volume, updated_block_number)
    SELECT * FROM unnest(${q.p(
      c.map(([a]) => a),
      "text[]",
    )}, ${q.p(
      c.map(([, x]) => x.tokenCount),
      "int[]",
    )}, ${q.p(
      c.map(([, x]) => x.volume.toString()),
      "numeric[]",
    )}, ${q.p(
      c.map(([, x]) => x.updatedBlock),
      "bigint[]",
    )})
    ON CONFLICT (address) DO UPDATE SET
      token_count = creators.token_count + excluded.token_count,
      volume = creators.volume + excluded.volume,
      updated_block_number = greatest(creators.updated_block_number, excluded.updated_block_number))`,
  ];
}
