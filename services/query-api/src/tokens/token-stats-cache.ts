/**
 * A per-process cache of token window stats (`stats` of token detail) as JSON text, keyed by
 * token and indexed block (`<block number>:<block hash>` of `indexer_checkpoints`). The stats of a
 * token change only when the indexer commits (the window's "now" is the checkpoint's block
 * timestamp and the rollups move with it), so an entry is exact for its block; the hash keeps a
 * block re-indexed under the same number after a reorg apart. Least recently used entries are
 * dropped beyond `maxEntries`.
 */
export interface StatsCache {
  /** The stats of `token` computed at block `key`, if cached. */
  get(token: string, key: string): string | undefined;
  set(token: string, key: string, stats: string): void;
}

/** Creates a {@link StatsCache} of at most `maxEntries` tokens (default 5,000; about 600 bytes each). */
export function createStatsCache(maxEntries = 5_000): StatsCache {
  const entries = new Map<string, { key: string; stats: string }>();
  return {
    get(token, key) {
      const entry = entries.get(token);
      if (entry === undefined || entry.key !== key) return undefined;
      entries.delete(token); // most recently used last
      entries.set(token, entry);
      return entry.stats;
    },
    set(token, key, stats) {
      entries.delete(token);
      entries.set(token, { key, stats });
      if (entries.size > maxEntries) {
        const oldest = entries.keys().next().value;
        if (oldest !== undefined) entries.delete(oldest);
      }
    },
  };
}

/** Cache key of an indexed position: `<block number>:<block hash>`. */
export function statsCacheKey(position: { blockNumber: bigint; blockHash: string }): string {
  return `${position.blockNumber}:${position.blockHash}`;
}
