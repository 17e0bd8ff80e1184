import type { Pool } from "pg";
import type { Logger } from "pino";
import type { IndexerConfig } from "../config.js";
import type { IndexingCore } from "../core/indexing-core.js";
import {
  ChainMismatchError,
  DatabaseUnavailableError,
  errorText,
  FatalIndexerError,
  isDatabaseUnavailable,
} from "../errors.js";
import { backfillStartAnswer } from "../fetch/feed-start.js";
import { EmitterSet } from "../fetch/log-filter.js";
import { createRangeFetcher } from "../fetch/range-fetcher.js";
import type { IndexerMetrics } from "../metrics.js";
import { type BlockHeader, type RpcClient, RpcError } from "../rpc/rpc-client.js";
import { cpuMs, createEngineStats, createSyncLog, type EngineStats, rssMb } from "../sync-telemetry.js";
import { loadEmitterSeed, loadEmitterTokens, lookupEmitterMembers } from "../write/known-state-loader.js";
import type { ChainContracts } from "./chain-contracts.js";
import type { HeadState } from "./head-clock.js";
import { createHeadFollower } from "./head-follower.js";
import { type RangePipelineDeps, syncTo } from "./range-pipeline.js";
import { createRangeWriter, type RangeWriter } from "./range-writer.js";
import { createReorgReconciler } from "./reorg-reconciler.js";
import { createTrendingRefresher } from "./trending-refresher.js";

export type { EngineStats };

/** The sync loop of one indexer (see {@link createSyncScheduler}). */
export interface SyncScheduler {
  readonly stats: EngineStats;
  /** Last committed block (−1 before any). */
  readonly indexedBlock: number;
  /** Latest head seen. */
  readonly head: number;
  /** True once the scheduler has caught up with the head. */
  readonly caughtUp: boolean;
  /**
   * The chain head as of now: when it was last read and whether that is longer ago than
   * `HEAD_STALE_MS` (a hung or unreachable node); `head` is then an estimate (see `head-clock.ts`).
   */
  headState(): HeadState;
  /**
   * Runs until {@link stop}: checks the node's chain id, the checkpoint, then syncs and follows
   * the head. Resolves after `stop()`.
   * @throws FatalIndexerError (reorg too deep or below finalized, wrong chain, a failing log with
   * `SKIP_FAILING_LOGS=false`), DatabaseUnavailableError (PostgreSQL lost: the caller reconnects).
   */
  run(): Promise<void>;
  /** Stops after the current step (a hung RPC call is aborted by the client's signal). */
  stop(): void;
  /** Waits for the trending refresh in flight. */
  settle(): Promise<void>;
}

/** Dependencies of {@link createSyncScheduler}. */
export interface SyncSchedulerDeps {
  config: IndexerConfig;
  pool: Pool;
  rpc: RpcClient;
  logger: Logger;
  metrics: IndexerMetrics;
  core: IndexingCore;
  contracts: ChainContracts;
}

/**
 * The scheduler: historical catch-up as a pipeline (`PREFETCH_RANGES` ranges fetched ahead by the
 * range fetcher, one write at a time, one transaction per range: `range-pipeline.ts`,
 * `range-writer.ts`), then live following of new heads (`head-follower.ts`); reorgs go to the
 * reconciler; a range that keeps failing on the content of its logs is narrowed to the failing
 * log, which is recorded in `skipped_logs`, counted and logged, and the range is indexed without
 * it (`SKIP_FAILING_LOGS`, `range-isolation.ts`); a failed step is retried from the checkpoint
 * with backoff; the trending snapshot is refreshed alongside (`trending-refresher.ts`).
 * @dev must only run while holding the writer lock.
 */
export function createSyncScheduler(deps: SyncSchedulerDeps): SyncScheduler {
  const { config, pool, rpc, logger, metrics, core, contracts } = deps;
  const stats = createEngineStats();
  const log = createSyncLog(logger, config.CHAIN_ID);
  /** The one load of every indexed address, when an emitter query first needs them. */
  let completing: Promise<void> | null = null;
  const fetcher = createRangeFetcher({
    rpc,
    logger,
    chainId: config.CHAIN_ID,
    initialSpan: config.LOG_BATCH_BLOCKS,
    maxSpan: config.MAX_LOG_BATCH_BLOCKS,
    targetLogs: config.TARGET_LOGS_PER_REQUEST,
    addressChunk: config.LOG_ADDRESS_CHUNK,
    strategy: config.LOG_QUERY_STRATEGY,
    lookupEmitters: (tokens) => loadEmitterTokens(pool, tokens),
    lookupMembers: (addresses) => lookupEmitterMembers(pool, addresses),
    completeEmitters: (set) => {
      completing ??= completeEmitterSet(set);
      return completing;
    },
    ...(config.ETH_USD_FEED_ADDRESS
      ? { feedStart: { feed: config.ETH_USD_FEED_ADDRESS, startBlock: config.START_BLOCK } }
      : {}),
  });
  const reconciler = createReorgReconciler({
    pool,
    chainId: config.CHAIN_ID,
    reorgDepth: config.REORG_DEPTH,
    logger,
    metrics,
    header: (tag) => fetcher.header(tag),
    rollback: core.rollback,
  });
  let stopped = false;
  let caughtUp = false;
  let wake: (() => void) | null = null;
  /**
   * The log filter's emitter set: seeded from `tokens` at start (addresses only) and grown by every
   * fetched range in dispatch order, so it may run ahead of the committed data. It is never
   * reloaded: after a failure or a reorg it still holds every indexed token plus possibly some
   * that are not (orphaned launches, ranges not committed) — a superset, which selection ignores.
   */
  let emitters = new EmitterSet(contracts.factory, contracts.feed);

  /** Sleeps `ms` or until `stop()`. */
  const pause = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        wake = null;
        resolve();
      }
      wake = done;
      if (stopped) done();
    });
  const isStopped = () => stopped;

  const follower = createHeadFollower({
    config,
    pool,
    metrics,
    log,
    latestHeader: () => requireHeader("latest"),
    tip: () => writer.tip,
    pause,
    stopped: isStopped,
  });
  const trending = createTrendingRefresher({
    config,
    pool,
    log,
    indexedBlock: () => writer.tip.number,
    caughtUp: () => caughtUp,
    stopped: isStopped,
  });
  const writer: RangeWriter = createRangeWriter({
    config,
    pool,
    core,
    metrics,
    stats,
    log,
    head: follower,
    trending,
    latestFallbacks: () => fetcher.reads.latestFallbacks,
  });
  const pipeline: RangePipelineDeps = {
    config,
    core,
    metrics,
    stats,
    log,
    fetcher,
    writer,
    emitters: () => emitters,
    headNumber: () => follower.number,
    stopped: isStopped,
  };

  async function requireHeader(tag: number | "latest"): Promise<BlockHeader> {
    const h = await fetcher.header(tag);
    if (!h) throw new ChainMismatchError(`block ${tag} not available`);
    return h;
  }

  /**
   * At start: the checkpoint, the skipped logs and the log filter's seed: every indexed token's
   * address when there are at most {@link seedLimit}, else that many (one index range): the
   * addresses met in topic queries are then looked up in `tokens`, and the whole set is read only
   * if an emitter query ever costs less (long historical ranges). Nothing at start reads every
   * token; the token state itself is read on demand by the core.
   */
  async function start(): Promise<void> {
    const started = performance.now();
    const cpuStarted = process.cpuUsage();
    await writer.resync();
    if (config.ETH_USD_FEED_ADDRESS && writer.client) {
      await backfillStartAnswer(writer.client, rpc, {
        feed: config.ETH_USD_FEED_ADDRESS,
        startBlock: config.START_BLOCK,
        indexedBlock: writer.tip.number,
        log,
      });
    }
    emitters = new EmitterSet(contracts.factory, contracts.feed);
    completing = null;
    const seed = await core.load(pool, {
      seedLimit: config.LOG_QUERY_STRATEGY === "emitters" ? undefined : seedLimit(),
    });
    emitters.seed(seed.tokens, seed.pools);
    if (!seed.complete) emitters.partial(seed.count);
    else stats.fullLoads++;
    metrics.knownTokens.set(emitters.tokenCount);
    log(
      "info",
      "known_state_loaded",
      {
        tokens: seed.count,
        addresses_read: seed.tokens.length,
        complete: seed.complete,
        pools: seed.pools.length,
        ms: Math.round(performance.now() - started),
        cpu_ms: Math.round(cpuMs(process.cpuUsage(cpuStarted))),
        rss_mb: rssMb(),
      },
      "known tokens loaded",
    );
  }

  /**
   * Addresses read at start at most (10 address chunks, at least 10,000): a set this small is
   * read whole; a larger one is resolved address by address as topic queries meet them.
   */
  function seedLimit(): number {
    return Math.max(10_000, 10 * config.LOG_ADDRESS_CHUNK);
  }

  /** Reads every indexed token and graduated pool into `set` (see `completeEmitters`). */
  async function completeEmitterSet(set: EmitterSet): Promise<void> {
    const started = performance.now();
    const seed = await loadEmitterSeed(pool);
    set.seed(seed.tokens, seed.pools);
    set.complete = true;
    stats.fullLoads++;
    log(
      "info",
      "emitter_set_completed",
      { tokens: seed.tokens.length, pools: seed.pools.length, ms: Math.round(performance.now() - started) },
      "every indexed address read for emitter queries",
    );
  }

  async function checkTip(): Promise<void> {
    const node = await fetcher.header(writer.tip.number);
    if (node && node.hash === writer.tip.hash) return;
    log("warn", "restart_check", { block: writer.tip.number }, "checkpoint is not on the node's chain");
    await handleReorg("checkpoint not canonical at start");
  }

  async function handleReorg(reason: string): Promise<void> {
    await writer.reloadCheckpoint(); // the token state is forgotten once, after the rollback
    await trending.settle(); // no trending snapshot of orphaned data
    const depth = await reconciler.reconcile(writer.tip, reason, writer.client ?? undefined);
    if (depth > 0) {
      stats.reorgs++;
      trending.invalidate();
    }
    await writer.forget();
  }

  /**
   * Checks the node's chain, takes the writer connection, loads the start state, then loops: sync
   * to the confirmed head, or (caught up) check the checkpoint is still canonical and wait for a
   * new head. A chain mismatch goes to the reconciler; another failed step is retried from the
   * checkpoint after a backoff (250 ms doubling, at most 10 s), isolating failing logs after
   * `RANGE_FAILURES_BEFORE_ISOLATION` failures at the same block.
   */
  async function run(): Promise<void> {
    const chainIdHex = await rpc.request<string>("eth_chainId", []);
    const nodeChainId = Number.parseInt(chainIdHex, 16);
    if (nodeChainId !== config.CHAIN_ID) {
      throw new FatalIndexerError(`RPC_URL serves chain ${nodeChainId}, CHAIN_ID is ${config.CHAIN_ID}`);
    }
    const client = await pool.connect();
    writer.client = client;
    // A checked-out client that loses its connection emits "error": without a listener the process dies.
    client.on("error", (error) => log("warn", "db_error", { err: error }, "writer connection error"));
    // Commits need not wait for the WAL flush: a PostgreSQL crash can lose the last few commits,
    // but each loses its checkpoint with it (one transaction), so the indexer re-indexes them.
    await client.query("SET synchronous_commit = off");
    const unsubscribe = await rpc.subscribeNewHeads(() => wake?.()).catch(() => null);
    // The lag gauges and the status heartbeat move every second, also while an RPC call hangs.
    const ticker = setInterval(follower.updateLag, 1_000);
    ticker.unref();
    try {
      await start();
      log(
        "info",
        "start",
        {
          from_block: writer.tip.number + 1,
          factory: config.FACTORY_ADDRESS,
          known_tokens: emitters.tokenCount,
        },
        "indexer starting",
      );
      if (writer.tip.hash !== null) await checkTip();
      let head = await follower.latest();
      let failures = 0;
      let failingFrom = -1;
      const syncStartedAt = performance.now();
      while (!stopped) {
        follower.observe(head);
        const target = head.number - config.CONFIRMATIONS;
        try {
          if (writer.tip.number < target) {
            const isolate =
              failures >= config.RANGE_FAILURES_BEFORE_ISOLATION && failingFrom === writer.tip.number + 1;
            await syncTo(pipeline, target, isolate, head);
            failures = 0;
            // Live, a step (one new block) usually ends before the next poll is due (timed from
            // when the head was first seen): the paced wait makes it. When the step outlasted
            // that (catch-up, a slow commit) the poll due is made now, and counts as that poll.
            if (writer.tip.number < target || follower.pollDue(head)) head = await follower.latest();
            continue;
          }
          const tip = writer.tip;
          if (tip.hash !== null) {
            const canonical = head.number === tip.number ? head : await fetcher.header(tip.number);
            if (!canonical || canonical.hash !== tip.hash)
              throw new ChainMismatchError("checkpoint no longer canonical");
          }
          if (!caughtUp) {
            caughtUp = true;
            log(
              "info",
              "caught_up",
              { block: tip.number, seconds: (performance.now() - syncStartedAt) / 1000, stats },
              "caught up with the head",
            );
          }
          trending.request(true);
          head = await follower.waitForNew(head);
          failures = 0;
        } catch (error) {
          if (stopped) break;
          if (error instanceof FatalIndexerError) throw error;
          if (isDatabaseUnavailable(error))
            throw new DatabaseUnavailableError(errorText(error), { cause: error });
          if (error instanceof ChainMismatchError) {
            await handleReorg(error.message);
          } else {
            if (failingFrom !== writer.tip.number + 1) failures = 0;
            failingFrom = writer.tip.number + 1;
            failures++;
            log(
              "error",
              "sync_error",
              { err: error, failures, from_block: failingFrom, rpc: error instanceof RpcError },
              "sync step failed; retrying from the checkpoint",
            );
            await pause(Math.min(10_000, 250 * 2 ** Math.min(failures, 6)));
            if (stopped) break;
            await writer.forget();
          }
          head = await follower.latest().catch(() => head);
        }
      }
    } finally {
      clearInterval(ticker);
      await follower.settle();
      unsubscribe?.();
      await trending.settle().catch(() => {});
      client.release();
      writer.client = null;
    }
  }

  return {
    stats,
    get indexedBlock() {
      return writer.tip.number;
    },
    get head() {
      return follower.number;
    },
    get caughtUp() {
      return caughtUp;
    },
    headState: () => follower.state(),
    run,
    stop() {
      stopped = true;
      wake?.();
    },
    settle: () => trending.settle(),
  };
}
