import type { SqlReader } from "../db.js";

/** The indexer's progress as the freshness headers report it (`indexer_checkpoints`). */
export interface IndexedPosition {
  chainId: number;
  /** Last block whose events and read models are committed. */
  blockNumber: bigint;
  /** Hash of that block (tells a re-indexed block of the same number after a reorg apart). */
  blockHash: string;
  /** Timestamp (Unix seconds) of that block. */
  blockTimestamp: bigint;
}

/**
 * Reads the indexer checkpoint (one database indexes one chain: the row with the lowest
 * `chain_id`, or `chainId` when given). Null when the indexer has committed nothing yet.
 */
export async function readIndexedPosition(db: SqlReader, chainId?: number): Promise<IndexedPosition | null> {
  const { rows } = await db.query<{
    chain_id: number;
    block_number: string;
    block_hash: string;
    block_timestamp: string;
  }>(
    chainId === undefined
      ? "SELECT chain_id, block_number::text, block_hash, block_timestamp::text FROM indexer_checkpoints ORDER BY chain_id LIMIT 1"
      : "SELECT chain_id, block_number::text, block_hash, block_timestamp::text FROM indexer_checkpoints WHERE chain_id = $1",
    chainId === undefined ? [] : [chainId],
  );
  const row = rows[0];
  return row ? indexedPositionOf(row) : null;
}

/** An {@link IndexedPosition} from an `indexer_checkpoints` row (numbers read as text). */
export function indexedPositionOf(row: {
  chain_id: number;
  block_number: string;
  block_hash: string;
  block_timestamp: string;
}): IndexedPosition {
  return {
    chainId: row.chain_id,
    blockNumber: BigInt(row.block_number),
    blockHash: row.block_hash,
    blockTimestamp: BigInt(row.block_timestamp),
  };
}

/** A per-process cache of {@link readIndexedPosition}: at most one query per `ttlMs`, concurrent callers share it. */
export interface CheckpointCache {
  /** The cached position (null when nothing is indexed); rejects when the query fails. */
  get(): Promise<IndexedPosition | null>;
}

/**
 * Creates a {@link CheckpointCache} over `db` with entries kept `ttlMs` (default 250 ms): a
 * response never reports a position older than `ttlMs` plus the query time. Failures are not cached.
 */
export function createCheckpointCache(
  db: SqlReader,
  options: { ttlMs?: number; chainId?: number } = {},
): CheckpointCache {
  const ttl = options.ttlMs ?? 250;
  let value: IndexedPosition | null = null;
  let fetchedAt = Number.NEGATIVE_INFINITY;
  let inflight: Promise<IndexedPosition | null> | undefined;
  return {
    get() {
      if (performance.now() - fetchedAt < ttl) return Promise.resolve(value);
      inflight ??= (async () => {
        const started = performance.now();
        try {
          value = await readIndexedPosition(db, options.chainId);
          fetchedAt = started;
          return value;
        } finally {
          inflight = undefined;
        }
      })();
      return inflight;
    },
  };
}
