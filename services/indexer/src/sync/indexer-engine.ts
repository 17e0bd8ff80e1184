import type { Pool, PoolClient } from "pg";
import type { Logger } from "pino";
import type { IndexerConfig } from "../config.js";
import { ALL_TOPIC0, type DecodedEvent, decodeLog, type RpcLog, TOPIC0 } from "../decode/event-decoder.js";
import type { IndexerMetrics } from "../metrics.js";
import { type Batch, buildBatch } from "../model/batch-builder.js";
import { KnownState, selectEvents } from "../model/known-state.js";
import { BlockRangeController, suggestedSpan } from "../rpc/block-range.js";
import {
  type BlockHeader,
  type RpcBlock,
  type RpcClient,
  RpcError,
  toHeader,
  toQuantity,
} from "../rpc/rpc-client.js";
import { executeWrite, type PreparedWrite, prepareWrite, statementMs, timed } from "../store/batch-writer.js";
import { rollbackTo } from "../store/rollback.js";
import { refreshTrending } from "../store/trending.js";

/** The chain no longer matches what was fetched or indexed: find the common ancestor. */
export class ChainMismatchError extends Error {
  override name = "ChainMismatchError";
}

/** A condition the indexer must not continue from (reorg too deep, wrong chain): the process exits non-zero. */
export class FatalIndexerError extends Error {
  override name = "FatalIndexerError";
}

/** Where the committed data ends. */
interface Tip {
  number: number;
  /** null before the first committed block. */
  hash: string | null;
  timestamp: number;
}

/** Chains address discovery through the ranges in flight (see `fetchLogs`). */
interface FetchDiscovery {
  /** Settles when the range dispatched before this one has added its discoveries. */
  previous: Promise<unknown>;
  /** Marks this range's discoveries as added. */
  done: () => void;
  addresses: Set<string>;
}

/** A fetched block range, before selection. */
interface FetchedRange {
  from: number;
  to: number;
  /** Headers fetched for the range (zone: every block; else first and last). */
  headers: BlockHeader[];
  events: DecodedEvent[];
  logCount: number;
  /** transaction hash → sender for Swap transactions of pools known while fetching. */
  senders: Map<string, string>;
  /** pool → token0, for pools graduated in the range. */
  token0: Map<string, string>;
  fetchMs: number;
  decodeMs: number;
}

/** Busy time per stage since start (ms) and counters, for metrics and the benchmark. */
export interface EngineStats {
  events: number;
  blocks: number;
  batches: number;
  fetchMs: number;
  decodeMs: number;
  buildMs: number;
  dbMs: number;
  reorgs: number;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/**
 * Lets pending I/O callbacks run. The build steps are synchronous CPU work of tens of ms; the
 * write of the previous range runs meanwhile as a sequence of round trips, and each of them must
 * be answered promptly or PostgreSQL idles.
 */
const yieldToIo = () => new Promise<void>((r) => setImmediate(r));

/**
 * The sync loop: historical catch-up with prefetched, adaptive `eth_getLogs` ranges and one
 * transaction per range (events, read models, checkpoint, NOTIFY), then live following of new
 * heads with a parent-hash check of every block; reorgs are rolled back to the common ancestor
 * (DESIGN.md §8). Must only run while holding the writer lock.
 */
export class IndexerEngine {
  readonly stats: EngineStats = {
    events: 0,
    blocks: 0,
    batches: 0,
    fetchMs: 0,
    decodeMs: 0,
    buildMs: 0,
    dbMs: 0,
    reorgs: 0,
  };
  private readonly known: KnownState;
  private readonly range: BlockRangeController;
  private tip: Tip = { number: -1, hash: null, timestamp: 0 };
  private headNumber = 0;
  private stopped = false;
  private wake: (() => void) | null = null;
  private trendingRunning: Promise<void> | null = null;
  private trendingAgain = false;
  private lastTrendingAt = 0;
  private lastTrendingBlock = -1;
  private writer: PoolClient | null = null;
  private rateWindow: { at: number; events: number }[] = [];
  /** Resolves when the engine has caught up with the head once. */
  caughtUp = false;

  constructor(
    private readonly deps: {
      config: IndexerConfig;
      pool: Pool;
      rpc: RpcClient;
      logger: Logger;
      metrics: IndexerMetrics;
    },
  ) {
    const c = deps.config;
    this.known = new KnownState(c.LAUNCHPAD_ADDRESS, c.ETH_USD_FEED_ADDRESS);
    this.range = new BlockRangeController(c.LOG_BATCH_BLOCKS, {
      maxSpan: c.MAX_LOG_BATCH_BLOCKS,
      targetLogs: c.TARGET_LOGS_PER_REQUEST,
    });
  }

  /** Last committed block (−1 before any). */
  get indexedBlock(): number {
    return this.tip.number;
  }
  /** Latest head seen. */
  get head(): number {
    return this.headNumber;
  }

  /** Stops after the current step; `run` then resolves. */
  stop(): void {
    this.stopped = true;
    this.wake?.();
  }

  private log(
    action: string,
    fields: Record<string, unknown>,
    message: string,
    level: "info" | "warn" | "error" | "debug" | "fatal" = "info",
  ) {
    this.deps.logger[level]({ chain_id: this.deps.config.CHAIN_ID, action, ...fields }, message);
  }

  private async getBlock(tag: number | "latest" | "finalized", full = false): Promise<RpcBlock | null> {
    return this.deps.rpc.request<RpcBlock | null>("eth_getBlockByNumber", [
      typeof tag === "number" ? toQuantity(tag) : tag,
      full,
    ]);
  }

  private async getHeader(tag: number | "latest" | "finalized"): Promise<BlockHeader | null> {
    const block = await this.getBlock(tag);
    return block ? toHeader(block) : null;
  }

  /** Loads the checkpoint and the known token/pool set from the database. */
  private async reload(): Promise<void> {
    const { config, pool } = this.deps;
    const cp = await pool.query<{ block_number: string; block_hash: string; block_timestamp: string }>(
      "SELECT block_number::text, block_hash, block_timestamp::text FROM indexer_checkpoints WHERE chain_id = $1",
      [config.CHAIN_ID],
    );
    const row = cp.rows[0];
    this.tip = row
      ? { number: Number(row.block_number), hash: row.block_hash, timestamp: Number(row.block_timestamp) }
      : { number: config.START_BLOCK - 1, hash: null, timestamp: 0 };
    this.known.clear();
    const tokens = await pool.query<{
      address: string;
      creator: string;
      initial_supply: string;
      pool_address: string | null;
      pool_token_is_token0: boolean | null;
    }>("SELECT address, creator, initial_supply::text, pool_address, pool_token_is_token0 FROM tokens");
    for (const t of tokens.rows) {
      this.known.addToken({
        address: t.address,
        creator: t.creator,
        initialSupply: BigInt(t.initial_supply),
        pool: t.pool_address,
        tokenIsToken0: t.pool_token_is_token0,
      });
    }
    this.deps.metrics.indexed.set(this.tip.number);
  }

  /**
   * Runs until {@link stop}. Checks the node's chain id, then that the checkpoint is still
   * canonical (restart after a reorg), then syncs and follows the head.
   * @throws FatalIndexerError (reorg too deep or below finalized, wrong chain) — exit non-zero.
   */
  async run(): Promise<void> {
    const { config, rpc } = this.deps;
    const chainIdHex = await rpc.request<string>("eth_chainId", []);
    const nodeChainId = Number.parseInt(chainIdHex, 16);
    if (nodeChainId !== config.CHAIN_ID) {
      throw new FatalIndexerError(`RPC_URL serves chain ${nodeChainId}, CHAIN_ID is ${config.CHAIN_ID}`);
    }
    this.writer = await this.deps.pool.connect();
    // Commits need not wait for the WAL flush: a PostgreSQL crash can lose the last few commits,
    // but each loses its checkpoint with it (one transaction), so the indexer re-indexes them.
    await this.writer.query("SET synchronous_commit = off");
    const unsubscribe = await rpc.subscribeNewHeads(() => this.wake?.()).catch(() => null);
    try {
      await this.reload();
      this.log(
        "start",
        { from_block: this.tip.number + 1, launchpad: config.LAUNCHPAD_ADDRESS },
        "indexer starting",
      );
      if (this.tip.hash !== null) await this.checkTip();
      let head = await this.requireHeader("latest");
      let failures = 0;
      const syncStartedAt = performance.now();
      while (!this.stopped) {
        this.observeHead(head);
        const target = head.number - config.CONFIRMATIONS;
        try {
          if (this.tip.number < target) {
            await this.syncTo(target);
            failures = 0;
            head = await this.requireHeader("latest");
            continue;
          }
          // At the head: the checkpoint must still be on the canonical chain.
          if (this.tip.hash !== null) {
            const canonical = head.number === this.tip.number ? head : await this.getHeader(this.tip.number);
            if (!canonical || canonical.hash !== this.tip.hash)
              throw new ChainMismatchError("checkpoint no longer canonical");
          }
          if (!this.caughtUp) {
            this.caughtUp = true;
            this.log(
              "caught_up",
              {
                block: this.tip.number,
                seconds: (performance.now() - syncStartedAt) / 1000,
                stats: this.stats,
                statement_ms: statementMs,
              },
              "caught up with the head",
            );
          }
          this.requestTrending(true);
          head = await this.waitForNewHead(head);
          failures = 0;
        } catch (error) {
          if (error instanceof FatalIndexerError) throw error;
          if (error instanceof ChainMismatchError) {
            await this.handleReorg(error.message);
          } else {
            failures++;
            this.log(
              "sync_error",
              { err: error, failures },
              "sync step failed; retrying from the checkpoint",
              "error",
            );
            await sleep(Math.min(10_000, 250 * 2 ** Math.min(failures, 6)));
          }
          await this.reload();
          head = await this.requireHeader("latest").catch(() => head);
        }
      }
    } finally {
      unsubscribe?.();
      await this.trendingRunning?.catch(() => {});
      this.writer?.release();
      this.writer = null;
    }
  }

  private observeHead(head: BlockHeader): void {
    this.headNumber = Math.max(head.number, 0);
    const m = this.deps.metrics;
    m.head.set(head.number);
    m.lagBlocks.set(Math.max(0, head.number - this.tip.number));
    if (this.tip.timestamp > 0) m.lagSeconds.set(Math.max(0, Date.now() / 1000 - this.tip.timestamp));
  }

  private async requireHeader(tag: number | "latest"): Promise<BlockHeader> {
    const h = await this.getHeader(tag);
    if (!h) throw new ChainMismatchError(`block ${tag} not available`);
    return h;
  }

  /** Waits for a head different from `current` (poll every POLL_INTERVAL_MS, or a websocket notification). */
  private async waitForNewHead(current: BlockHeader): Promise<BlockHeader> {
    for (;;) {
      if (this.stopped) return current;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, this.deps.config.POLL_INTERVAL_MS);
        this.wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.wake = null;
      const head = await this.requireHeader("latest");
      if (head.hash !== current.hash) return head;
    }
  }

  /** On start: the stored checkpoint block must still be on the node's chain. */
  private async checkTip(): Promise<void> {
    const node = await this.getHeader(this.tip.number);
    if (node && node.hash === this.tip.hash) return;
    this.log("restart_check", { block: this.tip.number }, "checkpoint is not on the node's chain", "warn");
    await this.handleReorg("checkpoint not canonical at start");
    await this.reload();
  }

  // ---------------------------------------------------------------- fetching

  /** `eth_getLogs` over [from, to] with `filter` (address/topics), split further on provider range errors. */
  private async getLogs(from: number, to: number, filter: Record<string, unknown>): Promise<RpcLog[]> {
    const out: RpcLog[] = [];
    let start = from;
    while (start <= to) {
      const span = Math.min(this.range.current(), to - start + 1);
      const end = start + span - 1;
      try {
        const logs = await this.deps.rpc.request<RpcLog[]>("eth_getLogs", [
          { ...filter, fromBlock: toQuantity(start), toBlock: toQuantity(end) },
        ]);
        this.range.onSuccess(span, logs.length);
        for (const l of logs) out.push(l);
        start = end + 1;
      } catch (error) {
        if (error instanceof RpcError && error.rangeError && span > 1) {
          const next = this.range.onRangeError(span, suggestedSpan(error.message));
          this.log(
            "range_shrink",
            { span, next, message: error.message.slice(0, 200) },
            "getLogs range too large",
            "debug",
          );
          continue;
        }
        throw error;
      }
    }
    return out;
  }

  /**
   * The logs of a range. `topics` mode: one query by topic0 for every event kind (the selection
   * keeps those of known contracts). `addresses` mode: the launchpad's and feed's logs first, then
   * `Transfer`/`Swap` by the addresses of every token and pool known, including those discovered in
   * ranges fetched before this one (chained through `discovery`).
   */
  private async fetchLogs(from: number, to: number, discovery: FetchDiscovery): Promise<RpcLog[]> {
    if (this.deps.config.LOG_FILTER_MODE === "topics") {
      discovery.done();
      return this.getLogs(from, to, { topics: [ALL_TOPIC0] });
    }
    const own = [this.known.launchpad, ...(this.known.feed ? [this.known.feed] : [])];
    const launchpadTopics = [
      TOPIC0.TokenCreated,
      TOPIC0.TokensBought,
      TOPIC0.TokensSold,
      TOPIC0.TokenGraduated,
      TOPIC0.AnswerUpdated,
    ];
    const base = await this.getLogs(from, to, { address: own, topics: [launchpadTopics] });
    const found: string[] = [];
    for (const log of base) {
      const e = decodeLog(log);
      if (e?.name === "TokenCreated") found.push(e.args.token as string);
      else if (e?.name === "TokenGraduated") found.push(e.args.pool as string);
    }
    await discovery.previous;
    for (const a of found) discovery.addresses.add(a);
    discovery.done();
    const addresses = new Set<string>(discovery.addresses);
    for (const t of this.known.tokens.keys()) addresses.add(t);
    for (const p of this.known.pools.keys()) addresses.add(p);
    const list = [...addresses];
    const chunks: string[][] = [];
    for (let i = 0; i < list.length; i += 500) chunks.push(list.slice(i, i + 500));
    const parts = await Promise.all(
      chunks.map((chunk) =>
        this.getLogs(from, to, { address: chunk, topics: [[TOPIC0.Transfer, TOPIC0.Swap]] }),
      ),
    );
    return [...base, ...parts.flat()];
  }

  private async fetchRange(
    from: number,
    to: number,
    zone: boolean,
    discovery: FetchDiscovery,
  ): Promise<FetchedRange> {
    const started = performance.now();
    const numbers = zone
      ? Array.from({ length: to - from + 1 }, (_, i) => from + i)
      : from === to
        ? [from]
        : [from, to];
    const [logs, headers] = await Promise.all([
      this.fetchLogs(from, to, discovery),
      Promise.all(numbers.map((n) => this.requireHeader(n))),
    ]);
    const fetchedAt = performance.now();
    const events: DecodedEvent[] = [];
    for (let i = 0; i < logs.length; i++) {
      const log = logs[i]!;
      if (i % 2000 === 1999) await yieldToIo();
      if (log.removed) continue;
      const e = decodeLog(log);
      if (e) events.push(e);
    }
    events.sort((a, b) => a.blockNumber - b.blockNumber || a.logIndex - b.logIndex);
    await yieldToIo();
    const decodeMs = performance.now() - fetchedAt;

    // Prefetch what selection will need: token order of pools graduated here, senders of swaps.
    const token0 = new Map<string, string>();
    const graduatedHere = new Set<string>();
    const swapTxsByBlock = new Map<number, Set<string>>();
    for (const e of events) {
      if (e.name === "TokenGraduated" && e.address === this.known.launchpad) {
        graduatedHere.add(e.args.pool as string);
      }
    }
    for (const e of events) {
      if (e.name === "Swap" && (this.known.pools.has(e.address) || graduatedHere.has(e.address))) {
        const set = swapTxsByBlock.get(e.blockNumber) ?? new Set<string>();
        swapTxsByBlock.set(e.blockNumber, set);
        set.add(e.transactionHash);
      }
    }
    const senders = new Map<string, string>();
    await Promise.all([
      ...[...graduatedHere].map(async (pool) => token0.set(pool, await this.fetchToken0(pool, to))),
      ...[...swapTxsByBlock].map(([block, txs]) => this.fetchSenders(block, txs, senders)),
    ]);
    return {
      from,
      to,
      headers,
      events,
      logCount: logs.length,
      senders,
      token0,
      fetchMs: performance.now() - started - decodeMs,
      decodeMs,
    };
  }

  private async fetchToken0(pool: string, block: number): Promise<string> {
    const result = await this.deps.rpc.request<string>("eth_call", [
      { to: pool, data: "0x0dfe1681" },
      toQuantity(block),
    ]);
    return `0x${result.slice(-40)}`.toLowerCase();
  }

  private async fetchSenders(block: number, txs: Set<string>, into: Map<string, string>): Promise<void> {
    if (txs.size <= 2) {
      await Promise.all(
        [...txs].map(async (hash) => {
          const tx = await this.deps.rpc.request<{ from: string } | null>("eth_getTransactionByHash", [hash]);
          if (!tx) throw new ChainMismatchError(`transaction ${hash} not found`);
          into.set(hash, tx.from.toLowerCase());
        }),
      );
      return;
    }
    const full = await this.getBlock(block, true);
    if (!full) throw new ChainMismatchError(`block ${block} not found`);
    for (const tx of full.transactions ?? []) {
      if (typeof tx !== "string" && txs.has(tx.hash.toLowerCase()))
        into.set(tx.hash.toLowerCase(), tx.from.toLowerCase());
    }
  }

  // ---------------------------------------------------------------- sync

  /** Indexes from the checkpoint to `target`, a prefetching pipeline with one write at a time. */
  private async syncTo(target: number): Promise<void> {
    const { config } = this.deps;
    const zoneStart = this.headNumber - config.REORG_DEPTH + 1;
    const inflight: { from: number; to: number; promise: Promise<FetchedRange> }[] = [];
    let next = this.tip.number + 1;
    let tipHash = this.tip.hash;
    let pendingWrite: Promise<void> = Promise.resolve();
    // Addresses discovered by ranges fetched in this run (addresses mode), in dispatch order.
    const discovered = new Set<string>();
    let previous: Promise<unknown> = Promise.resolve();
    const dispatch = () => {
      while (inflight.length < config.PREFETCH_RANGES && next <= target) {
        let end = Math.min(target, next + this.range.current() - 1);
        const zone = end >= zoneStart;
        if (zone && next < zoneStart) end = zoneStart - 1;
        else if (zone) end = Math.min(end, next + 199);
        const inZone = end >= zoneStart;
        let done!: () => void;
        const ownDiscovery = new Promise<void>((r) => (done = r));
        const promise = this.fetchRange(next, end, inZone, { previous, done, addresses: discovered });
        // A failed fetch must not block the ranges after it (the pipeline is abandoned anyway).
        previous = Promise.race([
          ownDiscovery,
          promise.then(
            () => {},
            () => {},
          ),
        ]);
        promise.catch(() => {}); // observed when awaited; avoid unhandled rejections when abandoned
        inflight.push({ from: next, to: end, promise });
        next = end + 1;
      }
    };
    try {
      dispatch();
      while (inflight.length > 0 && !this.stopped) {
        const item = inflight.shift()!;
        const fetched = await item.promise;
        dispatch();
        this.stats.fetchMs += fetched.fetchMs;
        this.stats.decodeMs += fetched.decodeMs;
        const buildStarted = performance.now();
        tipHash = this.verifyLinkage(fetched, tipHash);
        const batch = await this.resolveAndBuild(fetched);
        await yieldToIo();
        const prepared = await prepareWrite(batch, this.known, {
          chainId: config.CHAIN_ID,
          headBlock: this.headNumber,
          keepBlocks: config.REORG_DEPTH + 1,
        });
        this.stats.buildMs += performance.now() - buildStarted;
        await yieldToIo();
        await pendingWrite;
        pendingWrite = this.commit(batch, prepared);
        pendingWrite.catch(() => {});
      }
      await pendingWrite;
    } finally {
      // Let a failed pipeline settle before the caller reloads state or rolls back.
      await pendingWrite.catch(() => {});
    }
  }

  /** Checks that the fetched range continues `tipHash` and is internally consistent; returns its end hash. */
  private verifyLinkage(fetched: FetchedRange, tipHash: string | null): string {
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

  private async resolveAndBuild(fetched: FetchedRange): Promise<Batch> {
    const selection = selectEvents(fetched.events, this.known);
    await yieldToIo();
    for (const [pool, token] of selection.newPools) {
      const token0 = fetched.token0.get(pool) ?? (await this.fetchToken0(pool, fetched.to));
      const info = this.known.tokens.get(token);
      if (info) info.tokenIsToken0 = token0 === token;
    }
    const missing = new Map<number, Set<string>>();
    for (const e of selection.events) {
      if (e.name === "Swap" && !fetched.senders.has(e.transactionHash)) {
        const set = missing.get(e.blockNumber) ?? new Set<string>();
        missing.set(e.blockNumber, set);
        set.add(e.transactionHash);
      }
    }
    await Promise.all([...missing].map(([b, txs]) => this.fetchSenders(b, txs, fetched.senders)));
    const timestamps = new Map<number, number>(fetched.headers.map((h) => [h.number, h.timestamp]));
    const needed = new Set<number>();
    for (const e of selection.events)
      if (e.blockTimestamp === null && !timestamps.has(e.blockNumber)) needed.add(e.blockNumber);
    await Promise.all(
      [...needed].map(async (n) => timestamps.set(n, (await this.requireHeader(n)).timestamp)),
    );
    const endHeader = fetched.headers.find((h) => h.number === fetched.to)!;
    const batch = await buildBatch(selection.events, this.known, {
      fromBlock: fetched.from,
      toBlock: fetched.to,
      endHeader,
      headers: fetched.headers,
      senders: fetched.senders,
      timestamps,
    });
    if (batch.unknownTokens.size > 0) {
      this.log(
        "unknown_tokens",
        { tokens: [...batch.unknownTokens].slice(0, 10) },
        "events of tokens launched before START_BLOCK skipped",
        "warn",
      );
    }
    return batch;
  }

  private async commit(batch: Batch, prepared: PreparedWrite): Promise<void> {
    const client = this.writer!;
    const started = performance.now();
    await client.query("BEGIN");
    try {
      await executeWrite(client, prepared);
      await timed("commit", () => client.query("COMMIT"));
    } catch (error) {
      await client.query("ROLLBACK").catch(() => {});
      throw error;
    }
    const ms = performance.now() - started;
    this.stats.dbMs += ms;
    this.stats.events += batch.events.length;
    this.stats.blocks += batch.toBlock - batch.fromBlock + 1;
    this.stats.batches++;
    this.tip = {
      number: batch.endHeader.number,
      hash: batch.endHeader.hash,
      timestamp: batch.endHeader.timestamp,
    };
    const m = this.deps.metrics;
    m.indexed.set(this.tip.number);
    m.events.inc(batch.events.length);
    m.lagBlocks.set(Math.max(0, this.headNumber - this.tip.number));
    m.lagSeconds.set(Math.max(0, Date.now() / 1000 - this.tip.timestamp));
    const now = Date.now();
    this.rateWindow.push({ at: now, events: batch.events.length });
    while (this.rateWindow.length > 1 && now - this.rateWindow[0]!.at > 10_000) this.rateWindow.shift();
    const span = Math.max(1, now - this.rateWindow[0]!.at);
    m.eventsPerSecond.set(
      this.rateWindow.length > 1
        ? (this.rateWindow.slice(1).reduce((s, w) => s + w.events, 0) * 1000) / span
        : 0,
    );
    this.log(
      "batch_committed",
      {
        from_block: batch.fromBlock,
        to_block: batch.toBlock,
        events: batch.events.length,
        trades: batch.trades.length,
        ms: Math.round(ms),
        heap_mb: Math.round(process.memoryUsage().heapUsed / 2 ** 20),
        rss_mb: Math.round(process.memoryUsage().rss / 2 ** 20),
      },
      "range committed",
      "debug",
    );
    this.requestTrending(false);
  }

  // ---------------------------------------------------------------- trending

  /** Refreshes trending after commits, at most every TRENDING_REFRESH_MS (always when `force` and stale). */
  private requestTrending(force: boolean): void {
    const { config } = this.deps;
    if (this.lastTrendingBlock === this.tip.number) return;
    // While catching up, snapshots are stale within seconds anyway: refresh rarely (each one scans the window).
    const every = this.caughtUp ? config.TRENDING_REFRESH_MS : Math.max(config.TRENDING_REFRESH_MS, 30_000);
    if (!force && Date.now() - this.lastTrendingAt < every) return;
    if (this.trendingRunning) {
      this.trendingAgain = true;
      return;
    }
    this.lastTrendingAt = Date.now();
    this.trendingRunning = refreshTrending(this.deps.pool, {
      chainId: config.CHAIN_ID,
      windowSeconds: config.TRENDING_WINDOW,
      keepSeconds: config.TRENDING_KEEP_SECONDS,
    })
      .then((asOf) => {
        if (asOf !== null) this.lastTrendingBlock = asOf;
      })
      .catch((error) => this.log("trending_error", { err: error }, "trending refresh failed", "error"))
      .finally(() => {
        this.trendingRunning = null;
        if (this.trendingAgain) {
          this.trendingAgain = false;
          this.requestTrending(this.caughtUp);
        }
      });
  }

  /** Waits for the trending refresh in flight (tests and shutdown). */
  async settle(): Promise<void> {
    while (this.trendingRunning) await this.trendingRunning;
  }

  // ---------------------------------------------------------------- reorgs

  /**
   * Finds the newest stored block that is still canonical and rolls back everything above it
   * in one transaction.
   * @throws FatalIndexerError when no stored block within REORG_DEPTH is canonical, or when the
   * orphaned blocks are at or below the chain's finalized head.
   */
  private async handleReorg(reason: string): Promise<void> {
    const { config, pool } = this.deps;
    await this.reload();
    const tip = this.tip;
    if (tip.hash === null) return;
    const stored = await pool.query<{ number: string; hash: string; timestamp: string }>(
      "SELECT number::text, hash, timestamp::text FROM blocks WHERE number <= $1 ORDER BY number DESC",
      [tip.number],
    );
    let ancestor: { number: number; hash: string; timestamp: number } | null = null;
    for (const row of stored.rows) {
      const n = Number(row.number);
      if (tip.number - n > config.REORG_DEPTH) break;
      const node = await this.getHeader(n);
      if (node && node.hash === row.hash) {
        ancestor = { number: n, hash: row.hash, timestamp: Number(row.timestamp) };
        break;
      }
    }
    if (!ancestor) {
      const message = `chain reorganisation deeper than REORG_DEPTH=${config.REORG_DEPTH} below block ${tip.number} (or a different chain): no indexed block within the depth is canonical; refusing to continue`;
      this.log("reorg_fatal", { block: tip.number, reason }, message, "fatal");
      throw new FatalIndexerError(message);
    }
    if (ancestor.number === tip.number) {
      this.log(
        "reorg_check",
        { block: tip.number, reason },
        "checkpoint still canonical; refetching",
        "debug",
      );
      return;
    }
    const finalized = await this.getHeader("finalized").catch(() => null);
    if (finalized && ancestor.number + 1 <= finalized.number) {
      const message = `chain reorganisation at block ${ancestor.number + 1} is at or below the finalized block ${finalized.number}; refusing to roll back`;
      this.log("reorg_fatal", { block: ancestor.number + 1, finalized: finalized.number }, message, "fatal");
      throw new FatalIndexerError(message);
    }
    // No trending refresh may run concurrently with the rollback (it would snapshot orphaned data).
    await this.settle();
    const depth = tip.number - ancestor.number;
    const client = this.writer ?? (await pool.connect());
    const started = performance.now();
    try {
      await client.query("BEGIN");
      const result = await rollbackTo(client, ancestor, {
        chainId: config.CHAIN_ID,
        launchpad: config.LAUNCHPAD_ADDRESS,
        oldTip: tip.number,
        depth,
      });
      await client.query("COMMIT");
      this.stats.reorgs++;
      this.deps.metrics.reorgs.inc();
      this.deps.metrics.reorgDepth.set(depth);
      this.lastTrendingBlock = -1;
      this.log(
        "reorg",
        {
          from_block: result.fromBlock,
          to_block: result.toBlock,
          depth,
          events: result.events,
          tokens: result.affectedTokens,
          removed_tokens: result.removedTokens,
          ms: Math.round(performance.now() - started),
          reason,
        },
        "rolled back orphaned blocks",
        "warn",
      );
    } catch (error) {
      await client.query("ROLLBACK").catch(() => {});
      throw error;
    } finally {
      if (client !== this.writer) client.release();
    }
    await this.reload();
  }
}

/** Topic0 values, exported for tests and the benchmark. */
export { TOPIC0 };
