import type { Pool, PoolClient } from "pg";
import type { Logger } from "pino";
import type { IndexerConfig } from "../config.js";
import { type DecodedEvent, TOPIC0 } from "../decode/event-decoder.js";
import type { IndexerMetrics } from "../metrics.js";
import { type BlockHeader, type RpcClient, RpcError } from "../rpc/rpc-client.js";
import { loadEmitterSeed, loadEmitterTokens, lookupEmitterMembers } from "../store/known-state-loader.js";
import { refreshTrending } from "../store/trending.js";
import type { ChainContracts } from "./chain-contracts.js";
import { findFirstFailing, isDataError, logKey } from "./failed-log-isolation.js";
import { createHeadClock, type HeadState } from "./head-clock.js";
import { HeadPacer } from "./head-pacer.js";
import type { IndexingCore, PreparedRange, RangeInput } from "./indexing-core.js";
import { EmitterSet } from "./log-filter.js";
import {
  ChainMismatchError,
  createRangeFetcher,
  type DiscoveryLink,
  type FetchedRange,
  yieldToIo,
} from "./range-fetcher.js";
import { createReorgReconciler, FatalIndexerError } from "./reorg-reconciler.js";

export { ChainMismatchError, FatalIndexerError };

/** PostgreSQL cannot be reached (connection refused, reset, terminated): the caller waits and reconnects. */
export class DatabaseUnavailableError extends Error {
  override name = "DatabaseUnavailableError";
}

const CONNECTION_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "EPIPE",
  "ETIMEDOUT",
  "ENOTFOUND",
  "EAI_AGAIN",
  "EHOSTUNREACH",
  "57P01", // admin_shutdown
  "57P02", // crash_shutdown
  "57P03", // cannot_connect_now
]);

/** True when `error` means the database connection is gone (not a bad statement). */
export function isDatabaseUnavailable(error: unknown): boolean {
  if (error instanceof DatabaseUnavailableError) return true;
  const e = error as { code?: unknown; message?: unknown } | null;
  if (!e || typeof e !== "object") return false;
  if (typeof e.code === "string" && (CONNECTION_CODES.has(e.code) || e.code.startsWith("08"))) return true;
  const message = typeof e.message === "string" ? e.message : "";
  return /Connection terminated|connection error|not queryable|Client was closed|timeout exceeded when trying to connect|the database system is (shutting down|starting up)/i.test(
    message,
  );
}

/** Busy time per stage since start (ms) and counters, for metrics, logs and the benchmark. */
export interface EngineStats {
  events: number;
  blocks: number;
  batches: number;
  logRequests: number;
  /** Ranges whose generic events were queried by emitter chunks / by topic alone. */
  emitterRanges: number;
  topicRanges: number;
  rawLogs: number;
  fetchMs: number;
  decodeMs: number;
  buildMs: number;
  dbMs: number;
  /** Loads of every indexed token's address (at start when few, else when an emitter query first needs them). */
  fullLoads: number;
  /** Times the token state in memory was forgotten (failed steps, reorgs). */
  stateInvalidations: number;
  /** Tokens whose state was read on demand. */
  tokenReads: number;
  /** Tokens whose state was forgotten to keep the cache within `KNOWN_TOKENS_CACHE`. */
  tokenEvictions: number;
  reorgs: number;
  skippedLogs: number;
}

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

interface Tip {
  number: number;
  hash: string | null;
  timestamp: number;
}

/**
 * The scheduler: historical catch-up as a pipeline (`PREFETCH_RANGES` ranges fetched ahead by the
 * range fetcher, one write at a time, one transaction per range), then live following of new
 * heads; reorgs go to the reconciler; a range that keeps failing on the content of its logs is
 * narrowed to the failing log, which is recorded in `skipped_logs`, counted and logged, and the
 * range is indexed without it (`SKIP_FAILING_LOGS`).
 * @dev must only run while holding the writer lock.
 */
export function createSyncScheduler(deps: SyncSchedulerDeps): SyncScheduler {
  const { config, pool, rpc, logger, metrics, core, contracts } = deps;
  const stats: EngineStats = {
    events: 0,
    blocks: 0,
    batches: 0,
    logRequests: 0,
    emitterRanges: 0,
    topicRanges: 0,
    rawLogs: 0,
    fetchMs: 0,
    decodeMs: 0,
    buildMs: 0,
    dbMs: 0,
    fullLoads: 0,
    stateInvalidations: 0,
    tokenReads: 0,
    tokenEvictions: 0,
    reorgs: 0,
    skippedLogs: 0,
  };
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
  });

  let writer: PoolClient | null = null;
  const reconciler = createReorgReconciler({
    pool,
    chainId: config.CHAIN_ID,
    reorgDepth: config.REORG_DEPTH,
    logger,
    metrics,
    header: (tag) => fetcher.header(tag),
    rollback: core.rollback,
  });
  let tip: Tip = { number: -1, hash: null, timestamp: 0 };
  const pacer = new HeadPacer();
  let seenHead = { hash: "", at: 0 };
  const clock = createHeadClock({ staleAfterMs: config.HEAD_STALE_MS });
  let heartbeatAt = 0;
  let heartbeat: Promise<void> | null = null;
  let headNumber = 0;
  let stopped = false;
  let caughtUp = false;
  let wake: (() => void) | null = null;
  /**
   * The log filter's emitter set: seeded from `tokens` at start (addresses only) and grown by every
   * fetched range in dispatch order, so it may run ahead of the committed data. It is never
   * reloaded: after a failure or a reorg it still holds every indexed token plus possibly some
   * that are not (orphaned launches, ranges not committed) — a superset, which selection ignores.
   */
  let emitters = new EmitterSet(contracts.factory, contracts.feedEmitter);
  /** Logs to leave out (block hash:log index), from `skipped_logs`. */
  const skipped = new Set<string>();
  let trendingRunning: Promise<void> | null = null;
  let trendingAgain = false;
  let lastTrendingAt = 0;
  let lastTrendingBlock = -1;
  const rateWindow: { at: number; events: number }[] = [];

  const log = (
    level: "info" | "warn" | "error" | "debug" | "fatal",
    action: string,
    fields: Record<string, unknown>,
    message: string,
  ) => logger[level]({ chain_id: config.CHAIN_ID, action, ...fields }, message);

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

  async function requireHeader(tag: number | "latest"): Promise<BlockHeader> {
    const h = await fetcher.header(tag);
    if (!h) throw new ChainMismatchError(`block ${tag} not available`);
    return h;
  }

  /** Loads the committed checkpoint into `tip`. */
  async function reloadCheckpoint(): Promise<void> {
    const cp = await pool.query<{ block_number: string; block_hash: string; block_timestamp: string }>(
      "SELECT block_number::text, block_hash, block_timestamp::text FROM indexer_checkpoints WHERE chain_id = $1",
      [config.CHAIN_ID],
    );
    const row = cp.rows[0];
    tip = row
      ? { number: Number(row.block_number), hash: row.block_hash, timestamp: Number(row.block_timestamp) }
      : { number: config.START_BLOCK - 1, hash: null, timestamp: 0 };
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
    await resync();
    emitters = new EmitterSet(contracts.factory, contracts.feedEmitter);
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
        rss_mb: Math.round(process.memoryUsage().rss / 2 ** 20),
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

  /**
   * After a failed step or a reorg: the checkpoint and the skipped logs again, and the state of
   * the tokens named by ranges above the checkpoint (not committed, or reverted) forgotten; the
   * others keep theirs, the ranges that follow read again only the dropped tokens they name. No
   * reload of the known tokens.
   */
  async function forget(): Promise<void> {
    await resync();
    const dropped = core.invalidate(tip.number);
    stats.stateInvalidations++;
    syncTokenMetrics();
    log(
      "info",
      "known_state_invalidated",
      { above_block: tip.number, dropped, kept: core.reads.cached },
      "token state above the checkpoint forgotten",
    );
  }

  /** The token cache's gauges and counters from the core's. */
  function syncTokenMetrics(): void {
    const r = core.reads;
    metrics.cachedTokens.set(r.cached);
    if (r.tokens > stats.tokenReads) metrics.tokenReads.inc(r.tokens - stats.tokenReads);
    if (r.evicted > stats.tokenEvictions) metrics.tokenEvictions.inc(r.evicted - stats.tokenEvictions);
    stats.tokenReads = r.tokens;
    stats.tokenEvictions = r.evicted;
  }

  /** Loads the checkpoint and the skipped logs from the database. */
  async function resync(): Promise<void> {
    await reloadCheckpoint();
    const skippedRows = await pool.query<{ block_hash: string; log_index: number }>(
      "SELECT block_hash, log_index FROM skipped_logs WHERE block_number > $1",
      [tip.number - config.REORG_DEPTH],
    );
    skipped.clear();
    for (const r of skippedRows.rows) skipped.add(`${r.block_hash}:${r.log_index}`);
    metrics.indexed.set(tip.number);
    metrics.latestFallbacks.set(fetcher.reads.latestFallbacks);
  }

  function observeHead(head: BlockHeader): void {
    headNumber = Math.max(head.number, 0);
    updateLag();
  }

  /**
   * Sets the head and lag gauges from the head clock (called on every head, every commit and
   * every second by the lag ticker, so they move while the node hangs) and, at most once a
   * second, writes the head the lag is measured against to `indexer_checkpoints`
   * (`head_block_number`, with `head_seen_at` = when it was last read), for `/api/v1/status`.
   */
  function updateLag(): void {
    const state = clock.state();
    if (state.knownHead < 0) return;
    const lag = clock.lag(tip);
    metrics.head.set(state.knownHead);
    metrics.headAge.set(state.ageSeconds);
    metrics.headStale.set(state.stale ? 1 : 0);
    metrics.lagBlocks.set(lag.blocks);
    metrics.lagSeconds.set(lag.seconds);
    if (heartbeat || tip.hash === null || Date.now() - heartbeatAt < 1_000) return;
    heartbeatAt = Date.now();
    const seenAt = new Date(Date.now() - state.ageSeconds * 1000);
    heartbeat = pool
      .query(
        `UPDATE indexer_checkpoints SET head_block_number = $2, head_seen_at = $3, head_stale_after_ms = $4
          WHERE chain_id = $1`,
        [config.CHAIN_ID, Math.max(state.head, tip.number), seenAt, config.HEAD_STALE_MS],
      )
      .then(
        () => {},
        (error) => log("debug", "head_heartbeat_failed", { err: error }, "could not record the chain head"),
      )
      .finally(() => {
        heartbeat = null;
      });
  }

  /**
   * Reads the latest head; a successful read is what keeps the head clock fresh. Remembers when
   * each head was first seen: the polls after it are timed from then (see {@link HeadPacer}).
   */
  async function latestHead(): Promise<BlockHeader> {
    const head = await requireHeader("latest");
    clock.observe(head);
    pacer.observe(head);
    if (head.hash !== seenHead.hash) seenHead = { hash: head.hash, at: performance.now() };
    return head;
  }

  /** Time after a head was first seen before the next poll is due (ms; see {@link HeadPacer}). */
  function quietMs(): number {
    // Never so long that the head would look stale (HEAD_STALE_MS) between two reads.
    return Math.min(pacer.quietMs(config.POLL_INTERVAL_MS), config.HEAD_STALE_MS / 2);
  }

  /** Milliseconds since `head` was first seen (0 when it is not the last head read). */
  function sinceSeen(head: BlockHeader): number {
    return head.hash === seenHead.hash ? performance.now() - seenHead.at : 0;
  }

  async function waitForNewHead(current: BlockHeader): Promise<BlockHeader> {
    // The first poll is due `quiet` after this head was first seen, whatever its indexing took;
    // a poll made at the end of that indexing (when it was due) counts: then one interval on.
    let wait = Math.max(config.POLL_INTERVAL_MS, quietMs() - sinceSeen(current));
    for (;;) {
      if (stopped) return current;
      await pause(wait);
      wait = config.POLL_INTERVAL_MS;
      if (stopped) return current;
      const head = await latestHead();
      updateLag();
      if (head.hash !== current.hash) return head;
    }
  }

  async function checkTip(): Promise<void> {
    const node = await fetcher.header(tip.number);
    if (node && node.hash === tip.hash) return;
    log("warn", "restart_check", { block: tip.number }, "checkpoint is not on the node's chain");
    await handleReorg("checkpoint not canonical at start");
  }

  async function handleReorg(reason: string): Promise<void> {
    await reloadCheckpoint(); // the token state is forgotten once, after the rollback
    await settle(); // no trending snapshot of orphaned data
    const depth = await reconciler.reconcile(tip, reason, writer ?? undefined);
    if (depth > 0) {
      stats.reorgs++;
      lastTrendingBlock = -1;
    }
    await forget();
  }

  /** Checks that a fetched range continues `tipHash` and is internally consistent; returns its end hash. */
  function verifyLinkage(fetched: FetchedRange, tipHash: string | null): string {
    const byNumber = new Map(fetched.headers.map((h) => [h.number, h]));
    const first = byNumber.get(fetched.from)!;
    if (tipHash !== null && first.parentHash !== tipHash) {
      throw new ChainMismatchError(`block ${fetched.from} does not extend the indexed chain`);
    }
    const sorted = [...fetched.headers].sort((a, b) => a.number - b.number);
    for (let i = 1; i < sorted.length; i++) {
      const prev = sorted[i - 1]!;
      const cur = sorted[i]!;
      if (cur.number === prev.number + 1 && cur.parentHash !== prev.hash) {
        throw new ChainMismatchError(`block ${cur.number} changed while fetching`);
      }
    }
    for (const e of fetched.events) {
      const h = byNumber.get(e.blockNumber);
      if (h && h.hash !== e.blockHash)
        throw new ChainMismatchError(`logs of block ${e.blockNumber} are from another branch`);
    }
    return byNumber.get(fetched.to)!.hash;
  }

  function rangeInput(fetched: FetchedRange, events: DecodedEvent[]): RangeInput {
    return {
      fromBlock: fetched.from,
      toBlock: fetched.to,
      endHeader: fetched.headers.find((h) => h.number === fetched.to)!,
      headers: fetched.headers,
      events,
      senders: fetched.senders,
      labels: fetched.labels,
      timestamps: fetched.timestamps,
      headBlock: headNumber,
    };
  }

  async function commit(input: RangeInput, prepared: PreparedRange, skip: SkipRecord[] = []): Promise<void> {
    const client = writer!;
    const started = performance.now();
    await client.query("BEGIN");
    try {
      await core.write(client, prepared);
      for (const s of skip) await recordSkipped(client, s);
      await client.query("COMMIT");
    } catch (error) {
      await client.query("ROLLBACK").catch(() => {});
      throw error;
    }
    const ms = performance.now() - started;
    stats.dbMs += ms;
    stats.events += prepared.eventCount;
    stats.blocks += input.toBlock - input.fromBlock + 1;
    stats.batches++;
    tip = {
      number: input.endHeader.number,
      hash: input.endHeader.hash,
      timestamp: input.endHeader.timestamp,
    };
    metrics.indexed.set(tip.number);
    metrics.events.inc(prepared.eventCount);
    updateLag();
    metrics.latestFallbacks.set(fetcher.reads.latestFallbacks);
    const now = Date.now();
    rateWindow.push({ at: now, events: prepared.eventCount });
    while (rateWindow.length > 1 && now - rateWindow[0]!.at > 10_000) rateWindow.shift();
    const span = Math.max(1, now - rateWindow[0]!.at);
    metrics.eventsPerSecond.set(
      rateWindow.length > 1 ? (rateWindow.slice(1).reduce((s, w) => s + w.events, 0) * 1000) / span : 0,
    );
    log(
      "debug",
      "batch_committed",
      {
        from_block: input.fromBlock,
        to_block: input.toBlock,
        events: prepared.eventCount,
        trades: prepared.tradeCount,
        ms: Math.round(ms),
        rss_mb: Math.round(process.memoryUsage().rss / 2 ** 20),
      },
      "range committed",
    );
    requestTrending(false);
  }

  // ------------------------------------------------------------------ failing logs

  interface SkipRecord {
    event: DecodedEvent;
    reason: string;
  }

  async function recordSkipped(client: PoolClient, s: SkipRecord): Promise<void> {
    await client.query(
      `INSERT INTO skipped_logs (block_number, log_index, block_hash, transaction_hash, contract_address, topic0, reason)
       VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (block_number, log_index) DO NOTHING`,
      [
        s.event.blockNumber,
        s.event.logIndex,
        s.event.blockHash,
        s.event.transactionHash,
        s.event.address,
        TOPIC0[s.event.name],
        `${s.event.name}: ${s.reason}`.slice(0, 1000),
      ],
    );
  }

  /**
   * Indexes a range whose write keeps failing: bisects its events (each attempt prepared and
   * written in a transaction that is rolled back) to the first log that makes it fail, leaves that
   * log out, and repeats until the rest commits; each left-out log is recorded in `skipped_logs`
   * in the range's own transaction (so a reorg forgets it), counted and logged.
   * @throws the range's error when no single log is to blame, FatalIndexerError when
   * `SKIP_FAILING_LOGS=false`.
   */
  async function indexIsolating(fetched: FetchedRange, firstError: unknown): Promise<void> {
    const records: SkipRecord[] = [];
    let events = fetched.events.filter((e) => !skipped.has(logKey(e)));
    for (;;) {
      await forget();
      const attempt = async (subset: readonly DecodedEvent[]) => {
        await forget();
        const prepared = await core.prepare(rangeInput(fetched, [...subset]));
        const client = writer!;
        await client.query("BEGIN");
        try {
          await core.write(client, prepared);
        } finally {
          await client.query("ROLLBACK").catch(() => {});
        }
      };
      let whole: unknown;
      try {
        await attempt(events);
      } catch (error) {
        whole = error;
      }
      if (whole === undefined) break;
      if (!isDataError(whole)) throw whole;
      const found = await findFirstFailing(events, attempt, isDataError);
      if (!found) throw whole ?? firstError;
      const event = events[found.index]!;
      const reason = errorText(found.error);
      const fields = {
        block: event.blockNumber,
        log_index: event.logIndex,
        transaction_hash: event.transactionHash,
        contract: event.address,
        event: event.name,
        reason,
      };
      if (!config.SKIP_FAILING_LOGS) {
        log("fatal", "log_failed", fields, "a log cannot be indexed and SKIP_FAILING_LOGS=false; stopping");
        throw new FatalIndexerError(
          `log ${event.logIndex} of block ${event.blockNumber} (${event.name} from ${event.address}) cannot be indexed: ${reason}`,
        );
      }
      log("error", "log_skipped", fields, "a log cannot be indexed: recorded in skipped_logs and left out");
      records.push({ event, reason });
      events = events.filter((_, i) => i !== found.index);
    }
    await forget();
    const input = rangeInput(fetched, events);
    const prepared = await core.prepare(input);
    await commit(input, prepared, records);
    for (const r of records) skipped.add(logKey(r.event));
    stats.skippedLogs += records.length;
    metrics.skippedLogs.inc(records.length);
  }

  // ------------------------------------------------------------------ sync

  /**
   * Indexes from the checkpoint to `target`: a prefetching pipeline with one write at a time.
   * `head` (the header just polled) is not fetched again by the range that ends there.
   */
  async function syncTo(target: number, isolate: boolean, head?: BlockHeader): Promise<void> {
    const reorgWindowStart = headNumber - config.REORG_DEPTH + 1;
    const inflight: { promise: Promise<FetchedRange> }[] = [];
    let next = tip.number + 1;
    let tipHash = tip.hash;
    let pendingWrite: Promise<void> = Promise.resolve();
    let previous: Promise<unknown> = Promise.resolve();
    const dispatch = () => {
      while (inflight.length < (isolate ? 1 : config.PREFETCH_RANGES) && next <= target) {
        let end = Math.min(target, next + fetcher.currentSpan() - 1);
        const inReorgWindow = end >= reorgWindowStart;
        if (inReorgWindow && next < reorgWindowStart) end = reorgWindowStart - 1;
        else if (inReorgWindow) end = Math.min(end, next + 199);
        let done!: () => void;
        const own = new Promise<void>((r) => (done = r));
        const link: DiscoveryLink = { previous, done };
        const known = head && head.number >= next && head.number <= end ? [head] : [];
        const promise = fetcher.fetchRange(next, end, end >= reorgWindowStart, emitters, link, known);
        previous = Promise.race([
          own,
          promise.then(
            () => {},
            () => {},
          ),
        ]);
        promise.catch(() => {}); // observed when awaited
        inflight.push({ promise });
        next = end + 1;
      }
    };
    try {
      dispatch();
      while (inflight.length > 0 && !stopped) {
        const fetched = await inflight.shift()!.promise;
        if (!isolate) dispatch();
        stats.fetchMs += fetched.fetchMs;
        stats.decodeMs += fetched.decodeMs;
        stats.logRequests += fetched.logRequests;
        if (fetched.strategy === "topics") stats.topicRanges++;
        else stats.emitterRanges++;
        stats.rawLogs += fetched.logCount;
        metrics.logRequests.inc(fetched.logRequests);
        const buildStarted = performance.now();
        tipHash = verifyLinkage(fetched, tipHash);
        const events =
          skipped.size > 0 ? fetched.events.filter((e) => !skipped.has(logKey(e))) : fetched.events;
        if (isolate) {
          await pendingWrite;
          await indexIsolating(fetched, null);
          return; // one range in isolation, then back to the pipeline
        }
        await yieldToIo();
        const input = rangeInput(fetched, events);
        const prepared = await core.prepare(input);
        stats.buildMs += performance.now() - buildStarted;
        await yieldToIo();
        await pendingWrite;
        pendingWrite = commit(input, prepared).then(() => {
          metrics.knownTokens.set(emitters.tokenCount);
          syncTokenMetrics();
        });
        pendingWrite.catch(() => {});
      }
      await pendingWrite;
    } finally {
      await pendingWrite.catch(() => {});
    }
  }

  // ------------------------------------------------------------------ trending

  function requestTrending(force: boolean): void {
    if (lastTrendingBlock === tip.number) return;
    const every = caughtUp ? config.TRENDING_REFRESH_MS : Math.max(config.TRENDING_REFRESH_MS, 30_000);
    if (!force && Date.now() - lastTrendingAt < every) return;
    if (trendingRunning) {
      trendingAgain = true;
      return;
    }
    lastTrendingAt = Date.now();
    trendingRunning = refreshTrending(pool, {
      chainId: config.CHAIN_ID,
      windowSeconds: config.TRENDING_WINDOW,
      keepSeconds: config.TRENDING_KEEP_SECONDS,
    })
      .then((asOf) => {
        if (asOf !== null) lastTrendingBlock = asOf;
      })
      .catch((error) => log("error", "trending_error", { err: error }, "trending refresh failed"))
      .finally(() => {
        trendingRunning = null;
        if (trendingAgain && !stopped) {
          trendingAgain = false;
          requestTrending(caughtUp);
        }
      });
  }

  async function settle(): Promise<void> {
    while (trendingRunning) await trendingRunning;
  }

  // ------------------------------------------------------------------ main loop

  async function run(): Promise<void> {
    const chainIdHex = await rpc.request<string>("eth_chainId", []);
    const nodeChainId = Number.parseInt(chainIdHex, 16);
    if (nodeChainId !== config.CHAIN_ID) {
      throw new FatalIndexerError(`RPC_URL serves chain ${nodeChainId}, CHAIN_ID is ${config.CHAIN_ID}`);
    }
    writer = await pool.connect();
    // A checked-out client that loses its connection emits "error": without a listener the process dies.
    writer.on("error", (error) => log("warn", "db_error", { err: error }, "writer connection error"));
    // Commits need not wait for the WAL flush: a PostgreSQL crash can lose the last few commits,
    // but each loses its checkpoint with it (one transaction), so the indexer re-indexes them.
    await writer.query("SET synchronous_commit = off");
    const unsubscribe = await rpc.subscribeNewHeads(() => wake?.()).catch(() => null);
    // The lag gauges and the status heartbeat move every second, also while an RPC call hangs.
    const ticker = setInterval(updateLag, 1_000);
    ticker.unref();
    try {
      await start();
      log(
        "info",
        "start",
        { from_block: tip.number + 1, factory: config.FACTORY_ADDRESS, known_tokens: emitters.tokenCount },
        "indexer starting",
      );
      if (tip.hash !== null) await checkTip();
      let head = await latestHead();
      let failures = 0;
      let failingFrom = -1;
      const syncStartedAt = performance.now();
      while (!stopped) {
        observeHead(head);
        const target = head.number - config.CONFIRMATIONS;
        try {
          if (tip.number < target) {
            const isolate =
              failures >= config.RANGE_FAILURES_BEFORE_ISOLATION && failingFrom === tip.number + 1;
            await syncTo(target, isolate, head);
            failures = 0;
            // Live, a step (one new block) usually ends before the next poll is due (timed from
            // when the head was first seen): the paced wait makes it. When the step outlasted
            // that (catch-up, a slow commit) the poll due is made now, and counts as that poll.
            if (tip.number < target || sinceSeen(head) > quietMs()) head = await latestHead();
            continue;
          }
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
          requestTrending(true);
          head = await waitForNewHead(head);
          failures = 0;
        } catch (error) {
          if (stopped) break;
          if (error instanceof FatalIndexerError) throw error;
          if (isDatabaseUnavailable(error))
            throw new DatabaseUnavailableError(errorText(error), { cause: error });
          if (error instanceof ChainMismatchError) {
            await handleReorg(error.message);
          } else {
            if (failingFrom !== tip.number + 1) failures = 0;
            failingFrom = tip.number + 1;
            failures++;
            log(
              "error",
              "sync_error",
              { err: error, failures, from_block: failingFrom, rpc: error instanceof RpcError },
              "sync step failed; retrying from the checkpoint",
            );
            await pause(Math.min(10_000, 250 * 2 ** Math.min(failures, 6)));
            if (stopped) break;
            await forget();
          }
          head = await latestHead().catch(() => head);
        }
      }
    } finally {
      clearInterval(ticker);
      await heartbeat;
      unsubscribe?.();
      await settle().catch(() => {});
      writer?.release();
      writer = null;
    }
  }

  return {
    stats,
    get indexedBlock() {
      return tip.number;
    },
    get head() {
      return headNumber;
    },
    get caughtUp() {
      return caughtUp;
    },
    headState: () => clock.state(),
    run,
    stop() {
      stopped = true;
      wake?.();
    },
    settle,
  };
}

/** User + system time of a `process.cpuUsage` delta (ms). */
const cpuMs = (usage: NodeJS.CpuUsage) => (usage.user + usage.system) / 1000;

function errorText(error: unknown): string {
  if (error instanceof Error) {
    const code = (error as { code?: unknown }).code;
    return `${typeof code === "string" ? `${code}: ` : ""}${error.message}`;
  }
  return String(error);
}
