import type { Pool, PoolClient } from "pg";
import { buildBatch } from "../build/batch-builder.js";
import type { KeySink } from "../events/declaration.js";
import { type DecodedEvent, declarationOf } from "../events/index.js";
import { START_ANSWER_LOG_INDEX } from "../model/eth-usd.js";
import { type FeedContracts, KnownState } from "../model/known-state.js";
import { type PreparedWrite, prepareWrite } from "../prepare/prepare-write.js";
import type { FeedRound, TokenLabel } from "../rpc/contract-reads.js";
import type { BlockHeader } from "../rpc/rpc-client.js";
import { selectEvents } from "../select/select-events.js";
import { executeWrite } from "../write/batch-writer.js";
import { type EmitterSeed, loadEmitterSeed, loadTokenInfos } from "../write/known-state-loader.js";
import { revertTo } from "../write/reorg-journal.js";

/** The newest stored block that is still canonical. */
export interface Ancestor {
  number: number;
  hash: string;
  timestamp: number;
}

/** What the store's rollback reports (logged). */
export interface RollbackSummary {
  fromBlock: number;
  toBlock: number;
}

/**
 * Undoes, in the caller's transaction, everything derived from blocks above `ancestor` and moves
 * the checkpoint to it (the store's generic reorg mechanism).
 */
export type RollbackFn = (
  client: PoolClient,
  ancestor: Ancestor,
  info: { oldTip: number; depth: number },
) => Promise<RollbackSummary>;

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
  /**
   * The ETH/USD answer in force when `fromBlock` begins (the range starting at `START_BLOCK`):
   * stored as an answer at (`fromBlock`, log index −1), before every log of the range.
   */
  startAnswer?: FeedRound | null;
}

/** A range turned into rows, ready to be written (opaque to the scheduler). */
export interface PreparedRange {
  /** Events the range stores (for counters and logs). */
  eventCount: number;
  tradeCount: number;
}

/**
 * The read-model core as the scheduler uses it (select/build/prepare/write live in `select/`,
 * `build/`, `prepare/`, `write/`): the scheduler owns fetching, ordering, retries, reorgs and failures;
 * the core owns what a log means and how it is stored.
 */
export interface IndexingCore {
  /**
   * Starts on `pool`'s database (once, at start): the token state is read on demand from then on;
   * returns what the log filter needs of the indexed tokens (addresses, graduated pools): all of
   * them, or with `seedLimit` at most that many + 1 addresses (see {@link loadEmitterSeed}).
   */
  load(pool: Pool, options?: { seedLimit?: number }): Promise<EmitterSeed>;
  /**
   * Forgets the token state held in memory that may be ahead of the database: the tokens named by
   * a range ending above `aboveBlock` (a range not committed, or reverted by a reorg to
   * `aboveBlock`), or every token when `aboveBlock` is omitted. The other tokens stay (their state
   * is the committed one); the dropped ones are read again when a range names them. Returns how
   * many tokens were dropped.
   */
  invalidate(aboveBlock?: number): number;
  /**
   * Token state reads since start (statements and tokens read), tokens evicted from the cache
   * (`KNOWN_TOKENS_CACHE`) and tokens held now.
   */
  readonly reads: { statements: number; tokens: number; evicted: number; cached: number };
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
  feed: FeedContracts | null;
  /** The trader-rewards distributor (`ChainContracts.rewardsDistributor`); null or absent: none. */
  rewardsDistributor?: string | null;
  /** Blocks kept in `blocks` and in the reorg journal (REORG_DEPTH + 1). */
  keepBlocks: number;
  /**
   * Tokens whose state is kept in memory (`KNOWN_TOKENS_CACHE`): beyond it the least recently
   * named are forgotten and read again from `tokens` when a range names them. Default 50,000.
   */
  cacheTokens?: number;
}

/** Default of {@link IndexingCoreOptions.cacheTokens} (about 1 KB of heap per token). */
export const DEFAULT_CACHE_TOKENS = 50_000;

/**
 * The tokens, curves and pools `events` name (their declarations' `keys`) that `state` does not
 * hold: what selection and the handlers may look up.
 */
function missingKeys(events: readonly DecodedEvent[], state: KnownState) {
  const tokens = new Set<string>();
  const curves = new Set<string>();
  const pools = new Set<string>();
  const feeVaults = new Set<string>();
  const sink: KeySink = {
    token(a) {
      if (!state.tokens.has(a)) tokens.add(a);
    },
    feeVault(a) {
      if (!state.feeVaults.has(a)) feeVaults.add(a);
    },
    curve(a) {
      if (!state.curves.has(a)) curves.add(a);
    },
    pool(a) {
      if (!state.pools.has(a)) pools.add(a);
    },
    launch(token, curve, pool) {
      sink.token(token);
      sink.curve(curve);
      sink.pool(pool);
    },
  };
  for (const e of events) declarationOf(e.name).keys?.(e, sink);
  return { tokens: [...tokens], curves: [...curves], pools: [...pools], feeVaults: [...feeVaults] };
}

/**
 * The tokens `events` name that `state` holds (as emitter, by address or through their curve,
 * pool or LP custodian; by their declarations' `keys`) plus the tokens they launch: every token
 * whose state building the range may change.
 */
function namedTokens(events: readonly DecodedEvent[], state: KnownState): Set<string> {
  const out = new Set<string>();
  const sink: KeySink = {
    token(a) {
      if (state.tokens.has(a)) out.add(a);
    },
    curve(a) {
      const token = state.curves.get(a);
      if (token !== undefined && state.tokens.has(token)) out.add(token);
    },
    pool(a) {
      const token = state.pools.get(a);
      if (token !== undefined && state.tokens.has(token)) out.add(token);
    },
    feeVault(a) {
      const token = state.feeVaults.get(a);
      if (token !== undefined && state.tokens.has(token)) out.add(token);
    },
    launch(token) {
      out.add(token);
    },
  };
  for (const e of events) {
    const a = e.address;
    if (state.tokens.has(a)) out.add(a);
    else {
      const token = state.curves.get(a) ?? state.pools.get(a) ?? state.custodians.get(a);
      if (token !== undefined) out.add(token);
    }
    declarationOf(e.name).keys?.(e, sink);
  }
  return out;
}

/**
 * The read-model core of the V3 indexer: `KnownState` + `selectEvents` (emitter checks),
 * `buildBatch` (handlers), `prepareWrite`/`executeWrite` (read models, journal, checkpoint, NOTIFY)
 * and `revertTo` (the reorg journal), behind {@link IndexingCore}.
 */
export function createIndexingCore(options: IndexingCoreOptions): IndexingCore {
  // The token state in memory: the tokens ranges have touched since start or the last
  // invalidation, read from `tokens` on first use (most launched tokens are never touched again).
  const state = new KnownState(
    options.factory,
    options.weth,
    options.feed,
    options.rewardsDistributor ?? null,
  );
  const capacity = Math.max(1, options.cacheTokens ?? DEFAULT_CACHE_TOKENS);
  /**
   * The held tokens, least recently named first: token → the range (sequence number, last block)
   * that last named it. The ranges prepared but possibly not committed are the last two (the
   * scheduler writes one range while it prepares the next): their tokens are never evicted.
   */
  const named = new Map<string, { seq: number; block: number }>();
  let seq = 0;
  let db: Pool | null = null;
  const reads = { statements: 0, tokens: 0, evicted: 0, cached: 0 };
  type Prepared = PreparedRange & { write: PreparedWrite };

  /** Forgets the least recently named tokens beyond the capacity (none named by the last range). */
  function evict(): void {
    for (const [token, at] of named) {
      if (state.tokens.size <= capacity || at.seq >= seq - 1) break;
      named.delete(token);
      if (state.removeToken(token)) reads.evicted++;
    }
  }

  return {
    reads,
    async load(pool, loadOptions) {
      db = pool;
      state.clear();
      named.clear();
      reads.cached = 0;
      return loadEmitterSeed(pool, loadOptions?.seedLimit);
    },
    invalidate(aboveBlock) {
      let dropped = 0;
      if (aboveBlock === undefined) {
        dropped = state.tokens.size;
        state.clear();
        named.clear();
      } else {
        for (const [token, at] of named) {
          if (at.block <= aboveBlock) continue;
          named.delete(token);
          if (state.removeToken(token)) dropped++;
        }
      }
      reads.cached = state.tokens.size;
      return dropped;
    },
    async prepare(input) {
      seq++;
      evict();
      const missing = missingKeys(input.events, state);
      if (
        db &&
        missing.tokens.length + missing.curves.length + missing.pools.length + missing.feeVaults.length > 0
      ) {
        reads.statements++;
        for (const info of await loadTokenInfos(db, missing)) {
          if (state.tokens.has(info.address)) continue;
          state.addToken(info);
          reads.tokens++;
        }
      }
      // Named before anything changes: if this range fails, `invalidate` finds what it touched.
      const touched = namedTokens(input.events, state);
      for (const token of touched) {
        named.delete(token);
        named.set(token, { seq, block: input.toBlock });
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
      if (input.startAnswer) {
        const { roundId, answer, updatedAt } = input.startAnswer;
        batch.ethUsd.unshift({
          blockNumber: input.fromBlock,
          logIndex: START_ANSWER_LOG_INDEX,
          roundId,
          answer,
          updatedAt,
        });
      }
      const write = await prepareWrite(batch, state, {
        chainId: options.chainId,
        headBlock: input.headBlock,
        keepBlocks: options.keepBlocks,
      });
      // Launches that selection refused were never held: nothing to remember.
      for (const token of touched) if (!state.tokens.has(token)) named.delete(token);
      reads.cached = state.tokens.size;
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
