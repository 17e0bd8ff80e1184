import type { Pool, PoolClient } from "pg";
import type { Logger } from "pino";
import { FatalIndexerError } from "../errors.js";
import type { IndexerMetrics } from "../metrics.js";
import type { BlockHeader } from "../rpc/rpc-client.js";

export type { Ancestor, RollbackFn, RollbackSummary } from "../core/indexing-core.js";

import type { Ancestor, RollbackFn, RollbackSummary } from "../core/indexing-core.js";

/** Finds the common ancestor after a chain mismatch and rolls the read models back to it. */
export interface ReorgReconciler {
  /**
   * Walks the stored `blocks` down from `tip` and asks the node for each; the newest whose hash
   * still matches is the common ancestor. Rolls back above it in one transaction (on `client`
   * when given, the writer session) unless it is `tip` itself. Returns the depth rolled back (0: none).
   * @throws FatalIndexerError when no stored block within REORG_DEPTH is canonical, or the
   * orphaned blocks are at or below the node's finalized block.
   */
  reconcile(
    tip: { number: number; hash: string | null },
    reason: string,
    client?: PoolClient,
  ): Promise<number>;
}

/** Options of {@link createReorgReconciler}. */
export interface ReorgReconcilerOptions {
  pool: Pool;
  chainId: number;
  reorgDepth: number;
  logger: Logger;
  metrics: IndexerMetrics;
  header(tag: number | "finalized"): Promise<BlockHeader | null>;
  rollback: RollbackFn;
  /** Runs in the rollback's transaction after `rollback` (e.g. forget failed logs of orphaned blocks). */
  afterRollback?: (client: PoolClient, ancestor: Ancestor) => Promise<void>;
}

/** Creates the reorg reconciler (DESIGN: canonical data and reorgs, docs/indexer.md "Reorgs"). */
export function createReorgReconciler(options: ReorgReconcilerOptions): ReorgReconciler {
  const { pool, chainId, logger, metrics } = options;
  const log = (
    level: "warn" | "fatal" | "debug",
    action: string,
    fields: Record<string, unknown>,
    msg: string,
  ) => logger[level]({ chain_id: chainId, action, ...fields }, msg);

  return {
    async reconcile(tip, reason, writer) {
      if (tip.hash === null) return 0;
      const stored = await pool.query<{ number: string; hash: string; timestamp: string }>(
        "SELECT number::text, hash, timestamp::text FROM blocks WHERE number <= $1 ORDER BY number DESC",
        [tip.number],
      );
      let ancestor: Ancestor | null = null;
      for (const row of stored.rows) {
        const n = Number(row.number);
        if (tip.number - n > options.reorgDepth) break;
        const node = await options.header(n);
        if (node && node.hash === row.hash) {
          ancestor = { number: n, hash: row.hash, timestamp: Number(row.timestamp) };
          break;
        }
      }
      if (!ancestor) {
        const message = `chain reorganisation deeper than REORG_DEPTH=${options.reorgDepth} below block ${tip.number} (or a different chain): no indexed block within the depth is canonical; refusing to continue`;
        log("fatal", "reorg_fatal", { block: tip.number, reason }, message);
        throw new FatalIndexerError(message);
      }
      if (ancestor.number === tip.number) {
        log("debug", "reorg_check", { block: tip.number, reason }, "checkpoint still canonical; refetching");
        return 0;
      }
      const finalized = await options.header("finalized").catch(() => null);
      if (finalized && ancestor.number + 1 <= finalized.number) {
        const message = `chain reorganisation at block ${ancestor.number + 1} is at or below the finalized block ${finalized.number}; refusing to roll back`;
        log("fatal", "reorg_fatal", { block: ancestor.number + 1, finalized: finalized.number }, message);
        throw new FatalIndexerError(message);
      }
      const depth = tip.number - ancestor.number;
      const client = writer ?? (await pool.connect());
      const started = performance.now();
      try {
        await client.query("BEGIN");
        const result = await options.rollback(client, ancestor, { oldTip: tip.number, depth });
        await options.afterRollback?.(client, ancestor);
        await client.query("COMMIT");
        metrics.reorgs.inc();
        metrics.reorgDepth.set(depth);
        log(
          "warn",
          "reorg",
          { ...snakeCase(result), depth, ms: Math.round(performance.now() - started), reason },
          "rolled back orphaned blocks",
        );
      } catch (error) {
        await client.query("ROLLBACK").catch(() => {});
        throw error;
      } finally {
        if (client !== writer) client.release();
      }
      return depth;
    },
  };
}

/** The summary's fields as log fields (snake_case). */
function snakeCase(summary: RollbackSummary): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(summary))
    out[key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`)] = value;
  return out;
}
