import type { Pool, PoolClient } from "pg";
import type { DecodedEvent } from "../decode/event-decoder.js";
import { buildBatch } from "../model/batch-builder.js";
import { KnownState, selectEvents } from "../model/known-state.js";
import type { TokenLabel } from "../rpc/contract-reads.js";
import type { BlockHeader } from "../rpc/rpc-client.js";
import { executeWrite, type PreparedWrite, prepareWrite } from "../store/batch-writer.js";
import { loadKnownState } from "../store/known-state-loader.js";
import { revertTo } from "../store/reorg-journal.js";
import type { EmitterToken } from "./log-filter.js";
import type { RollbackFn } from "./reorg-reconciler.js";

/** What the scheduler hands the read-model core for one block range. */
export interface RangeInput {
  fromBlock: number;
  toBlock: number;
  /** Header of `toBlock` (the new checkpoint). */
  endHeader: BlockHeader;
  /** Headers to keep for reorg checks. */
  headers: BlockHeader[];
  /** Decoded logs in chain order (skipped logs already removed). */
  events: DecodedEvent[];
  senders: Map<string, string>;
  labels: Map<string, TokenLabel>;
  /** block number → timestamp, for logs without `blockTimestamp`. */
  timestamps: Map<number, number>;
  /** Head seen when the range was built (checkpoint bookkeeping, pruning of `blocks`). */
  headBlock: number;
}

/** A range turned into rows, ready to be written (opaque to the scheduler). */
export interface PreparedRange {
  /** Events the range stores (for counters and logs). */
  eventCount: number;
  tradeCount: number;
}

/**
 * The read-model core as the scheduler uses it (decode/select/build/write live in `model/`,
 * `handlers/`, `store/`): the scheduler owns fetching, ordering, retries, reorgs and failures;
 * the core owns what a log means and how it is stored.
 */
export interface IndexingCore {
  /** Loads the known tokens from the database (start, after a failed write, after a reorg); returns the emitter seed. */
  load(pool: Pool): Promise<EmitterToken[]>;
  /**
   * Selects the platform's logs (emitter checks), builds the range's rows and prepares the write.
   * Mutates the in-memory state: after a failure the caller calls `load` again.
   */
  prepare(input: RangeInput): Promise<PreparedRange>;
  /** Writes a prepared range, with the checkpoint and NOTIFY, in the caller's open transaction. */
  write(client: PoolClient, prepared: PreparedRange): Promise<void>;
  /** Undoes everything above an ancestor (the store's generic reorg mechanism). */
  rollback: RollbackFn;
}

/** Options of {@link createIndexingCore}. */
export interface IndexingCoreOptions {
  chainId: number;
  factory: string;
  weth: string;
  feed: string | null;
  /** Blocks kept in `blocks` and in the reorg journal (REORG_DEPTH + 1). */
  keepBlocks: number;
}

/**
 * The read-model core of the V3 indexer: `KnownState` + `selectEvents` (emitter checks),
 * `buildBatch` (handlers), `prepareWrite`/`executeWrite` (read models, journal, checkpoint, NOTIFY)
 * and `revertTo` (the reorg journal), behind {@link IndexingCore}.
 */
export function createIndexingCore(options: IndexingCoreOptions): IndexingCore {
  let state = new KnownState(options.factory, options.weth, options.feed);
  type Prepared = PreparedRange & { write: PreparedWrite };
  return {
    async load(pool) {
      state = await loadKnownState(pool, {
        factory: options.factory,
        weth: options.weth,
        feed: options.feed,
      });
      const seed: EmitterToken[] = [];
      for (const t of state.tokens.values()) {
        seed.push({ token: t.address, curve: t.curve, pool: t.pool, graduated: t.graduatedAt !== null });
      }
      return seed;
    },
    async prepare(input) {
      const selection = selectEvents(input.events, state);
      const batch = await buildBatch(selection.events, state, {
        fromBlock: input.fromBlock,
        toBlock: input.toBlock,
        endHeader: input.endHeader,
        headers: input.headers,
        senders: input.senders,
        timestamps: input.timestamps,
        labels: input.labels,
      });
      const write = await prepareWrite(batch, state, {
        chainId: options.chainId,
        headBlock: input.headBlock,
        keepBlocks: options.keepBlocks,
      });
      const prepared: Prepared = {
        eventCount: batch.events.length,
        tradeCount: batch.trades.length,
        write,
      };
      return prepared;
    },
    async write(client, prepared) {
      await executeWrite(client, (prepared as Prepared).write);
    },
    async rollback(client, ancestor, info) {
      return revertTo(client, ancestor, { chainId: options.chainId, oldTip: info.oldTip });
    },
  };
}
