import { volumeSql, windowStartSql } from "@tmi/shared/market";
import type { Pool } from "pg";

/**
 * Materializes a trending snapshot as of the current checkpoint in one statement (one MVCC
 * snapshot, so the checkpoint and the trades agree): tokens with at least one trade in the
 * window of `windowSeconds` ending at `as_of_timestamp` (the volume window rule of
 * `@tmi/shared/market`: whole rollup buckets, the same bounds as the token detail's `stats`), ranked by window volume desc, window trade
 * count desc, window unique traders desc, address asc. Deletes snapshots older than
 * `keepSeconds` except the newest. Returns the snapshot's block, or null without a checkpoint.
 */
export async function refreshTrending(
  pool: Pool,
  options: { chainId: number; windowSeconds: number; keepSeconds: number },
): Promise<number | null> {
  const res = await pool.query<{ as_of: string }>(
    `WITH cp AS (SELECT block_number, block_timestamp FROM indexer_checkpoints WHERE chain_id = $1),
     snap AS (
       INSERT INTO trending_snapshots (window_seconds, as_of_block_number, as_of_timestamp)
       SELECT $2, block_number, block_timestamp FROM cp RETURNING id, as_of_block_number),
     agg AS (
       SELECT t.token_address, ${volumeSql("t")} AS v, count(*)::int AS c, count(DISTINCT t.trader)::int AS u
       FROM trades t, cp
       WHERE t.block_timestamp >= ${windowStartSql("cp.block_timestamp", options.windowSeconds)}
         AND t.block_timestamp <= cp.block_timestamp
         AND t.block_number <= cp.block_number
       GROUP BY t.token_address),
     ins AS (
       INSERT INTO trending_entries (snapshot_id, rank, token_address, window_volume, window_trade_count, window_unique_traders)
       SELECT snap.id, row_number() OVER (ORDER BY agg.v DESC, agg.c DESC, agg.u DESC, agg.token_address ASC),
              agg.token_address, agg.v, agg.c, agg.u
       FROM agg, snap)
     SELECT as_of_block_number::text AS as_of FROM snap`,
    [options.chainId, options.windowSeconds],
  );
  await pool.query(
    `WITH old AS (
       SELECT id FROM trending_snapshots
       WHERE created_at < now() - make_interval(secs => $1)
         AND id <> (SELECT max(id) FROM trending_snapshots)),
     e AS (DELETE FROM trending_entries WHERE snapshot_id IN (SELECT id FROM old))
     DELETE FROM trending_snapshots WHERE id IN (SELECT id FROM old)`,
    [options.keepSeconds],
  );
  const asOf = res.rows[0]?.as_of;
  return asOf === undefined ? null : Number(asOf);
}
