import type { Pool, PoolClient } from "pg";
import type { DecodedEvent } from "../decode/event-decoder.js";
import { buildBatch } from "../model/batch-builder.js";
import { KnownState, selectEvents } from "../model/known-state.js";
import type { TokenLabel } from "../rpc/contract-reads.js";
import type { BlockHeader } from "../rpc/rpc-client.js";
import { executeWrite, type PreparedWrite, prepareWrite } from "../store/batch-writer.js";
import { loadEmitterSeed, loadTokenInfos } from "../store/known-state-loader.js";
import { revertTo } from "../store/reorg-journal.js";
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
  /**
   * Starts on `pool`'s database (once, at start): the token state is read on demand from then on;
   * returns what the log filter needs of every indexed token (addresses, graduated pools).
   */
  load(pool: Pool): Promise<{ tokens: string[]; pools: string[] }>;
  /**
   * Forgets the token state held in memory (after a failed write or a reorg: it may be ahead of
   * the database); the next ranges read again only the tokens they touch. Returns how many tokens
   * were dropped.
   */
  invalidate(): number;
  /** Token state reads since start: statements and tokens read. */
  readonly reads: { statements: number; tokens: number };
  /**
   * Reads the committed state of the tokens the range names that are not in memory, selects the
   * platform's logs (emitter checks), builds the range's rows and prepares the write.
   * Mutates the in-memory state: after a failure the caller calls `invalidate`.
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
 * The tokens, curves and pools `events` name (by argument or as emitter) that `state` does not hold:
 * what selection and the handlers may look up.
 */
function missingKeys(events: readonly DecodedEvent[], state: KnownState) {
  const tokens = new Set<string>();
  const curves = new Set<string>();
  const pools = new Set<string>();
  const token = (a: unknown) => {
    if (typeof a === "string" && !state.tokens.has(a)) tokens.add(a);
  };
  const curve = (a: unknown) => {
    if (typeof a === "string" && !state.curves.has(a)) curves.add(a);
  };
  for (const e of events) {
    switch (e.name) {
      case "Transfer":
        token(e.address);
        break;
      case "Swap":
        if (!state.pools.has(e.address)) pools.add(e.address);
        break;
      case "AnswerUpdated":
        break;
      case "GraduationReserveForwarded":
        curve(e.address);
        break;
      case "TokensBought":
      case "TokensSold":
      case "Graduated":
        curve(e.address);
        token(e.args.token);
        break;
      // The graduation's custody contracts: their token (a collection's custodian is the token's,
      // loaded with it; its accrual names the token).
      case "ResidualDeposited":
      case "PermanentLPFeesAccrued":
      case "CommunityLPFeesForwarded":
      case "TraderRewardsLPFeesForwarded":
        token(e.args.launchToken);
        break;
      case "PermanentFeesCollected":
        break;
      case "TokenLaunchedV3":
        token(e.args.token);
        curve(e.args.curve);
        if (typeof e.args.canonicalPool === "string" && !state.pools.has(e.args.canonicalPool))
          pools.add(e.args.canonicalPool);
        break;
      default:
        token(e.args.token);
        if ("curve" in e.args) curve(e.args.curve);
    }
  }
  return { tokens: [...tokens], curves: [...curves], pools: [...pools] };
}

/**
 * The read-model core of the V3 indexer: `KnownState` + `selectEvents` (emitter checks),
 * `buildBatch` (handlers), `prepareWrite`/`executeWrite` (read models, journal, checkpoint, NOTIFY)
 * and `revertTo` (the reorg journal), behind {@link IndexingCore}.
 */
export function createIndexingCore(options: IndexingCoreOptions): IndexingCore {
  // The token state in memory: the tokens ranges have touched since start or the last
  // invalidation, read from `tokens` on first use (most launched tokens are never touched again).
  const state = new KnownState(options.factory, options.weth, options.feed);
  let db: Pool | null = null;
  const reads = { statements: 0, tokens: 0 };
  type Prepared = PreparedRange & { write: PreparedWrite };
  return {
    reads,
    async load(pool) {
      db = pool;
      state.clear();
      return loadEmitterSeed(pool);
    },
    invalidate() {
      const dropped = state.tokens.size;
      state.clear();
      return dropped;
    },
    async prepare(input) {
      const missing = missingKeys(input.events, state);
      if (db && missing.tokens.length + missing.curves.length + missing.pools.length > 0) {
        reads.statements++;
        for (const info of await loadTokenInfos(db, missing)) {
          if (state.tokens.has(info.address)) continue;
          state.addToken(info);
          reads.tokens++;
        }
      }
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
