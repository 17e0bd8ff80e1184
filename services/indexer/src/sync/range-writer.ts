import type { Pool, PoolClient } from "pg";
import type { IndexerConfig } from "../config.js";
import type { IndexingCore, PreparedRange, RangeInput } from "../core/indexing-core.js";
import { type DecodedEvent, TOPIC0 } from "../events/index.js";
import type { FetchedRange } from "../fetch/range-fetcher.js";
import type { IndexerMetrics } from "../metrics.js";
import { type EngineStats, EventRate, rssMb, type SyncLog } from "../sync-telemetry.js";
import type { HeadFollower } from "./head-follower.js";
import type { TrendingRefresher } from "./trending-refresher.js";

/** The last committed block: number (−1 before any), hash (null before any), block timestamp (Unix s). */
export interface Tip {
  number: number;
  hash: string | null;
  timestamp: number;
}

/** A log left out of its range because it cannot be indexed, with why (see `range-isolation.ts`). */
export interface SkipRecord {
  event: DecodedEvent;
  reason: string;
}

/** Dependencies of {@link createRangeWriter}. */
export interface RangeWriterDeps {
  config: Pick<IndexerConfig, "CHAIN_ID" | "START_BLOCK" | "REORG_DEPTH">;
  pool: Pool;
  core: IndexingCore;
  metrics: IndexerMetrics;
  stats: EngineStats;
  log: SyncLog;
  head: Pick<HeadFollower, "number" | "updateLag">;
  trending: Pick<TrendingRefresher, "request">;
  /** Name/symbol reads that fell back to the latest block so far (the range fetcher's count). */
  latestFallbacks(): number;
}

/** The write side of the sync loop and its checkpoint (see {@link createRangeWriter}). */
export interface RangeWriter {
  /** The committed checkpoint. */
  readonly tip: Tip;
  /** The writer connection (set while the scheduler runs; commits need it). */
  client: PoolClient | null;
  /** Logs to leave out (block hash:log index, see `logKey`), from `skipped_logs`. */
  readonly skipped: Set<string>;
  /** Loads the committed checkpoint into {@link tip} (`START_BLOCK` − 1 when there is none). */
  reloadCheckpoint(): Promise<void>;
  /** Loads the checkpoint and the skipped logs from the database. */
  resync(): Promise<void>;
  /**
   * After a failed step or a reorg: the checkpoint and the skipped logs again, and the state of
   * the tokens named by ranges above the checkpoint (not committed, or reverted) forgotten; the
   * others keep theirs, the ranges that follow read again only the dropped tokens they name. No
   * reload of the known tokens.
   */
  forget(): Promise<void>;
  /** The token cache's gauges and counters from the core's. */
  syncTokenMetrics(): void;
  /** The core's input for `fetched` with `events` (its events, or some left out). */
  rangeInput(fetched: FetchedRange, events: DecodedEvent[]): RangeInput;
  /**
   * Writes a prepared range and the logs it leaves out (`skipped_logs`) in one transaction, then
   * moves {@link tip} to its end and updates stats, gauges and the trending schedule.
   * @throws the write's error (rolled back; {@link tip} unchanged).
   */
  commit(input: RangeInput, prepared: PreparedRange, skip?: SkipRecord[]): Promise<void>;
}

/** Commits ranges through the core, one transaction per range, on the writer connection. */
export function createRangeWriter(deps: RangeWriterDeps): RangeWriter {
  const { config, pool, core, metrics, stats, log, head } = deps;
  const skipped = new Set<string>();
  const rate = new EventRate();
  let tip: Tip = { number: -1, hash: null, timestamp: 0 };
  let client: PoolClient | null = null;

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

  async function resync(): Promise<void> {
    await reloadCheckpoint();
    const skippedRows = await pool.query<{ block_hash: string; log_index: number }>(
      "SELECT block_hash, log_index FROM skipped_logs WHERE block_number > $1",
      [tip.number - config.REORG_DEPTH],
    );
    skipped.clear();
    for (const r of skippedRows.rows) skipped.add(`${r.block_hash}:${r.log_index}`);
    metrics.indexed.set(tip.number);
    metrics.latestFallbacks.set(deps.latestFallbacks());
  }

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

  function syncTokenMetrics(): void {
    const r = core.reads;
    metrics.cachedTokens.set(r.cached);
    if (r.tokens > stats.tokenReads) metrics.tokenReads.inc(r.tokens - stats.tokenReads);
    if (r.evicted > stats.tokenEvictions) metrics.tokenEvictions.inc(r.evicted - stats.tokenEvictions);
    stats.tokenReads = r.tokens;
    stats.tokenEvictions = r.evicted;
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
      startAnswer: fetched.startAnswer,
      headBlock: head.number,
    };
  }

  async function commit(input: RangeInput, prepared: PreparedRange, skip: SkipRecord[] = []): Promise<void> {
    const writer = client!;
    const started = performance.now();
    await writer.query("BEGIN");
    try {
      await core.write(writer, prepared);
      for (const s of skip) await recordSkipped(writer, s);
      await writer.query("COMMIT");
    } catch (error) {
      await writer.query("ROLLBACK").catch(() => {});
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
    head.updateLag();
    metrics.latestFallbacks.set(deps.latestFallbacks());
    metrics.eventsPerSecond.set(rate.add(prepared.eventCount, Date.now()));
    log(
      "debug",
      "batch_committed",
      {
        from_block: input.fromBlock,
        to_block: input.toBlock,
        events: prepared.eventCount,
        trades: prepared.tradeCount,
        ms: Math.round(ms),
        rss_mb: rssMb(),
      },
      "range committed",
    );
    deps.trending.request(false);
  }

  return {
    get tip() {
      return tip;
    },
    get client() {
      return client;
    },
    set client(value) {
      client = value;
    },
    skipped,
    reloadCheckpoint,
    resync,
    forget,
    syncTokenMetrics,
    rangeInput,
    commit,
  };
}

/** Records a left-out log in `skipped_logs` (once per block and log index), in `client`'s transaction. */
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
