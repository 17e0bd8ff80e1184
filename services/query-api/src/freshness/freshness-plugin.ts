import type { FastifyPluginAsync } from "fastify";
import type { SqlReader } from "../db.js";
import { type CheckpointCache, createCheckpointCache } from "./checkpoint-cache.js";

/** Header with the last indexed block number behind a data response. */
export const INDEXED_BLOCK_HEADER = "x-indexed-block";
/** Header with that block's timestamp (Unix seconds). */
export const INDEXED_AT_HEADER = "x-indexed-at";
/** Header with that block's hash (a block re-indexed under the same number after a reorg has another). */
export const INDEXED_HASH_HEADER = "x-indexed-hash";

/** Dependencies of {@link freshnessPlugin}. */
export interface FreshnessDeps {
  /** Read pool (the same one the routes read, so the headers describe what they saw, at worst 250 ms older). */
  pool: SqlReader;
  /** Cache lifetime of the checkpoint (default and maximum 250 ms). */
  ttlMs?: number;
  chainId?: number;
  /** Path prefix of the data routes (default `/api/v1/`). */
  prefix?: string;
  /** Use this cache instead of making one (e.g. shared with other plugins). */
  cache?: CheckpointCache;
}

/**
 * An `onSend` hook (registered on the root instance: the plugin is not encapsulated) that adds
 * `X-Indexed-Block`, `X-Indexed-At` and `X-Indexed-Hash` to every response under `/api/v1/` (errors included),
 * from `indexer_checkpoints` cached for at most 250 ms per process. The headers are left out
 * when nothing is indexed yet or the checkpoint cannot be read (the response itself is not failed).
 */
export function freshnessPlugin(deps: FreshnessDeps): FastifyPluginAsync {
  const cache =
    deps.cache ??
    createCheckpointCache(deps.pool, { ttlMs: Math.min(deps.ttlMs ?? 250, 250), chainId: deps.chainId });
  const prefix = deps.prefix ?? "/api/v1/";
  const plugin: FastifyPluginAsync = async (fastify) => {
    fastify.addHook("onSend", async (request, reply, payload) => {
      if (!request.url.startsWith(prefix)) return payload;
      try {
        const position = await cache.get();
        if (position) {
          reply.header(INDEXED_BLOCK_HEADER, position.blockNumber.toString());
          reply.header(INDEXED_AT_HEADER, position.blockTimestamp.toString());
          reply.header(INDEXED_HASH_HEADER, position.blockHash);
        }
      } catch (error) {
        request.log.warn({ err: error }, "freshness headers: checkpoint unavailable");
      }
      return payload;
    });
  };
  // Same effect as fastify-plugin: the hook applies to the whole app, not just this plugin's scope.
  (plugin as unknown as Record<symbol, unknown>)[Symbol.for("skip-override")] = true;
  (plugin as unknown as Record<symbol, unknown>)[Symbol.for("fastify.display-name")] = "tmi-freshness";
  return plugin;
}
