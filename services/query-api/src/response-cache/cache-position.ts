import type { SqlReader } from "../db.js";
import {
  type CheckpointCache,
  type IndexedPosition,
  indexedPositionOf,
} from "../freshness/checkpoint-cache.js";

/**
 * What a cached answer is valid for: the indexed block (number and hash, from
 * `indexer_checkpoints`) and a digest of the operator exclusions (`excluded_addresses`), read in
 * one statement (one snapshot).
 */
export interface CachePosition extends IndexedPosition {
  /** md5 of every `(kind, address)` of `excluded_addresses` (the table holds operator entries only). */
  exclusions: string;
  /** `<block number>:<block hash>:<exclusions digest>`: equal keys mean equal answers (off-chain metadata aside). */
  key: string;
}

/** The statement of {@link readCachePosition} (tests tell it apart from route statements by its name). */
export const CACHE_POSITION_SQL = `SELECT c.chain_id, c.block_number::text, c.block_hash, c.block_timestamp::text,
  (SELECT md5(COALESCE(string_agg(x.kind || ':' || x.address, ',' ORDER BY x.kind, x.address), ''))
     FROM excluded_addresses x) AS exclusions
FROM indexer_checkpoints c ORDER BY c.chain_id LIMIT 1`;

/** Reads the {@link CachePosition} (null before the indexer committed anything). Source: `indexer_checkpoints`, `excluded_addresses`. */
export async function readCachePosition(db: SqlReader): Promise<CachePosition | null> {
  const { rows } = await db.query<{
    chain_id: number;
    block_number: string;
    block_hash: string;
    block_timestamp: string;
    exclusions: string;
  }>({ name: "qapi_cache_position", text: CACHE_POSITION_SQL, values: [] });
  const row = rows[0];
  if (!row) return null;
  return {
    ...indexedPositionOf(row),
    exclusions: row.exclusions,
    key: `${row.block_number}:${row.block_hash}:${row.exclusions}`,
  };
}

/**
 * Coalesces reads of `read` without ever answering with a value read before the call: a call while
 * no read runs starts one; calls while one runs share the next read, started when that one ends.
 * So concurrent callers cost one statement at a time, and each gets a value read after it asked
 * (a reorg committed before a request arrived is always seen by it). Failures are not kept.
 */
export function createFreshReader<T>(read: () => Promise<T>): () => Promise<T> {
  let running: Promise<T> | undefined;
  let queued: Promise<T> | undefined;
  const start = (): Promise<T> => {
    const promise: Promise<T> = read().finally(() => {
      if (running === promise) running = undefined;
    });
    running = promise;
    return promise;
  };
  return () => {
    if (running === undefined) return start();
    queued ??= running
      .then(
        () => undefined,
        () => undefined,
      )
      .then(() => {
        queued = undefined;
        return start();
      });
    return queued;
  };
}

/**
 * A {@link CheckpointCache} whose every `get` reads a position after the call ({@link createFreshReader}):
 * used for the detail's stats when answers are cached, so the stats of an answer kept for a
 * block are that block's, not a position up to 250 ms older.
 */
export function freshCheckpoint(read: () => Promise<CachePosition | null>): CheckpointCache {
  return { get: read };
}
