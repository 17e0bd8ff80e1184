import { formatIndexedNotification, INDEXED_CHANNEL } from "@tmi/shared/market";
import type { PoolClient } from "pg";

/** What a revert undid. */
export interface RollbackResult {
  /** First orphaned block (ancestor + 1). */
  fromBlock: number;
  /** The old tip. */
  toBlock: number;
  /** The block the read models are now as of (≤ the ancestor: a write that straddled it is undone whole). */
  revertedTo: number;
  /** Journaled row changes undone. */
  changes: number;
  /** Activity rows removed. */
  events: number;
  /** Tokens whose rows changed. */
  affectedTokens: number;
  /** Tokens whose launch was undone. */
  removedTokens: number;
}

/**
 * Reverts the read models to before every write that touched a block above `ancestor`, in the
 * caller's transaction, through the one generic mechanism: the reorg journal (row images recorded
 * by triggers for every write within the reorg window), undone in reverse order by
 * `tmi_journal_undo`. A write that spanned the ancestor is undone whole, so the read models end
 * as of the block before it (`revertedTo`, ≤ ancestor); the checkpoint moves there, `blocks` above
 * it are deleted, trending snapshots taken above it are dropped, and a `tmi_indexed` NOTIFY with
 * `reorg` is sent (delivered on commit). When the undone write was the first one (it began at the
 * start block), the checkpoint row is deleted: indexing starts from the start block again.
 * @throws Error when the block to revert to is not in `blocks` while older blocks are.
 */
export async function revertTo(
  client: PoolClient,
  ancestor: { number: number; hash: string; timestamp: number },
  options: { chainId: number; oldTip: number },
): Promise<RollbackResult> {
  const A = ancestor.number;
  const first = await client.query<{ first: string | null; events: string; tokens: string; removed: string }>(
    `SELECT min(block_number)::text AS first,
            count(*) FILTER (WHERE table_name = 'chain_events' AND operation = 'insert')::text AS events,
            count(DISTINCT row_image->>'address') FILTER (WHERE table_name = 'tokens')::text AS tokens,
            count(*) FILTER (WHERE table_name = 'tokens' AND operation = 'insert')::text AS removed
     FROM reorg_journal WHERE to_block > $1`,
    [A],
  );
  const row = first.rows[0]!;
  const revertedTo = row.first === null ? A : Math.min(A, Number(row.first) - 1);
  let target: { number: number; hash: string; timestamp: number } | null = ancestor;
  if (revertedTo !== A) {
    const b = await client.query<{ hash: string; timestamp: string }>(
      "SELECT hash, timestamp::text FROM blocks WHERE number = $1",
      [revertedTo],
    );
    if (b.rows[0]) {
      target = { number: revertedTo, hash: b.rows[0].hash, timestamp: Number(b.rows[0].timestamp) };
    } else {
      // The undone write was the first one (it began at the start block): nothing indexed remains.
      const older = await client.query(
        "SELECT 1 FROM blocks WHERE number <= $1 UNION ALL SELECT 1 FROM chain_events WHERE block_number <= $1 LIMIT 1",
        [revertedTo],
      );
      if (older.rows.length > 0) throw new Error(`block ${revertedTo} is not in blocks: cannot revert to it`);
      target = null;
    }
  }
  const undo = await client.query<{ n: number }>("SELECT tmi_journal_undo($1) AS n", [revertedTo]);
  await client.query(
    `WITH s AS (SELECT id FROM trending_snapshots WHERE as_of_block_number > $1),
     e AS (DELETE FROM trending_entries WHERE snapshot_id IN (SELECT id FROM s))
     DELETE FROM trending_snapshots WHERE id IN (SELECT id FROM s)`,
    [revertedTo],
  );
  await client.query("DELETE FROM blocks WHERE number > $1", [revertedTo]);
  if (target === null) {
    // Back to before the start block: the indexer starts from START_BLOCK again.
    await client.query("DELETE FROM indexer_checkpoints WHERE chain_id = $1", [options.chainId]);
  } else {
    await client.query(
      `UPDATE indexer_checkpoints SET block_number = $2, block_hash = $3, block_timestamp = $4,
         last_reorg_at = now(), last_reorg_from_block = $5, last_reorg_to_block = $6, last_reorg_depth = $7,
         updated_at = now()
       WHERE chain_id = $1`,
      [
        options.chainId,
        target.number,
        target.hash,
        target.timestamp,
        A + 1,
        options.oldTip,
        options.oldTip - A,
      ],
    );
  }
  await client.query("SELECT pg_notify($1, $2)", [
    INDEXED_CHANNEL,
    formatIndexedNotification({
      from_block: revertedTo,
      to_block: revertedTo,
      reorg: { from_block: A + 1, to_block: options.oldTip },
    }),
  ]);
  return {
    fromBlock: A + 1,
    toBlock: options.oldTip,
    revertedTo,
    changes: undo.rows[0]!.n,
    events: Number(row.events),
    affectedTokens: Number(row.tokens),
    removedTokens: Number(row.removed),
  };
}
