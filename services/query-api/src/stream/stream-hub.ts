import { parseIndexedNotification } from "@tmi/shared/market";
import type { FastifyBaseLogger } from "fastify";
import pg from "pg";
import { CandleFixes } from "./stream-candle-fixes.js";
import {
  parseEventId,
  type ResetReason,
  reorgEvent,
  resetEvent,
  type StreamEventData,
  sseFrame,
} from "./stream-events.js";
import { IndexedListener } from "./stream-listener.js";
import { readBlockRange, readResumeGap, readStreamCheckpoint } from "./stream-reader.js";
import { ReplayRing } from "./stream-ring.js";
import { matches, type StreamSubscriber, writeTo } from "./stream-subscribers.js";

/** Settings of the stream hub (all optional; defaults in brackets). */
export interface StreamHubConfig {
  /** Events kept in memory for `Last-Event-ID` resume [10,000]. */
  ringSize?: number;
  /** A resume older than the ring is re-read from the database when at most this many blocks behind [2,000]. */
  maxGapBlocks?: number;
  /** …and when that gap holds at most this many events [5,000]; otherwise the client gets `reset`. */
  maxGapEvents?: number;
  /** A notified range with more trades (or launches) than this is not streamed: `reset` instead [5,000]. */
  maxBatchEvents?: number;
  /** Heartbeat comment period in ms [15,000]. */
  heartbeatMs?: number;
  /** Checkpoint poll period in ms, the safety net for lost notifications [1,000]. */
  pollMs?: number;
  /** A subscriber with more unsent bytes than this is disconnected (slow consumer) [1 MiB]. */
  maxBufferedBytes?: number;
  /**
   * With `readPosition`: how long events wait for the read database to show their block before
   * they are sent anyway (ms) [2,000].
   */
  readWaitMs?: number;
  /** With no subscriber for this long, stop listening and reading (connections to the primary close) [30,000]. */
  idleStopMs?: number;
}

interface Notification {
  reorg?: { from: bigint; to: bigint };
  /** `performance.now()` at arrival. */
  at?: number;
}

/**
 * The per-process fan-out of the live stream. One dedicated `pg` connection LISTENs on
 * `tmi_indexed`; after a notification (or the checkpoint poll) it reads, in one REPEATABLE
 * READ transaction, the checkpoint and the committed rows of the blocks after the last
 * dispatched one up to the checkpoint, turns them into events once, keeps them in a ring buffer
 * and writes each event's frame to every matching subscriber. Reorgs (from the notification,
 * or seen in the checkpoint) are sent first as `reorg` events and mark the orphaned ring entries,
 * which are never replayed. Nothing is read before the indexer committed it, so nothing
 * uncommitted or orphaned is sent.
 */
export class StreamHub {
  private readonly cfg: Required<StreamHubConfig>;
  private readonly subscribers = new Set<StreamSubscriber>();
  private readonly ring: ReplayRing;
  /** Every block ≤ this has been dispatched (null before start). */
  private highWater: bigint | null = null;
  private seenReorgAt: number | null = null;
  /** Candles that carried orphaned trades, to be sent again with their state after the rollback. */
  private readonly candleFixes = new CandleFixes();
  /** Range of a reorg sent from the checkpoint, whose notification may still arrive (sent once only). */
  private reorgFromCheckpoint: string | null = null;
  private readonly listener: IndexedListener;
  private readonly pending: Notification[] = [];
  private ticked = false;
  private draining = false;
  private starting: Promise<void> | null = null;
  private stopped = false;
  /** True while idle-stopped (no subscriber): nothing is read until the next subscriber. */
  private suspended = false;
  private timers: NodeJS.Timeout[] = [];
  private readonly ownPool: pg.Pool | null;
  private readonly db: pg.Pool;
  private idleTimer: NodeJS.Timeout | null = null;
  /** Block the read database is known to show (from `readPosition`). */
  private readShown: bigint | null = null;

  constructor(
    private readonly options: {
      /** Primary database URL: the LISTEN connection (and reads, unless `pool` is given). */
      listenerUrl: string;
      /** Pool for the range reads; must see what the notification announced (the primary, not a lagging replica). */
      pool?: pg.Pool;
      /**
       * Block up to which the database REST reads from shows data (the replica's
       * `indexer_checkpoints`): events wait for it (at most `readWaitMs`), so that what the stream
       * announces is readable over REST. Without it events are sent as soon as they are read.
       */
      readPosition?: () => Promise<bigint | null>;
      logger: FastifyBaseLogger;
      config?: StreamHubConfig;
    },
  ) {
    this.cfg = {
      ringSize: 10_000,
      maxGapBlocks: 2_000,
      maxGapEvents: 5_000,
      maxBatchEvents: 5_000,
      heartbeatMs: 15_000,
      pollMs: 1_000,
      maxBufferedBytes: 1024 * 1024,
      readWaitMs: 2_000,
      idleStopMs: 30_000,
      ...options.config,
    };
    this.ring = new ReplayRing(this.cfg.ringSize);
    this.listener = new IndexedListener({
      url: options.listenerUrl,
      logger: options.logger,
      onNotification: (payload) => {
        this.pending.push({ ...parseNotification(payload, options.logger), at: performance.now() });
        void this.drain();
      },
      onReconnected: () => this.tick(), // catch up on whatever was committed meanwhile
      stopped: () => this.stopped,
    });
    this.ownPool = options.pool
      ? null
      : new pg.Pool({
          connectionString: options.listenerUrl,
          max: 3,
          application_name: "query-api-stream",
          options: "-c default_transaction_read_only=on -c statement_timeout=10000",
          idleTimeoutMillis: 30_000,
        });
    this.db = options.pool ?? this.ownPool!;
  }

  /** Number of connected subscribers. */
  get size(): number {
    return this.subscribers.size;
  }

  /** True while the hub listens (started by a subscriber and not idle-stopped since). */
  get listening(): boolean {
    return this.starting !== null && !this.suspended;
  }

  /** Last dispatched block (null before the first checkpoint). */
  get indexedBlock(): bigint | null {
    return this.highWater;
  }

  /** Starts listening (once; later calls wait for the same start). */
  start(): Promise<void> {
    this.starting ??= this.doStart().catch((error) => {
      this.starting = null;
      throw error;
    });
    return this.starting;
  }

  private async doStart(): Promise<void> {
    this.suspended = false;
    await this.listener.connect();
    const checkpoint = await readStreamCheckpoint(this.db);
    if (checkpoint) {
      this.highWater = checkpoint.blockNumber;
      this.seenReorgAt = checkpoint.lastReorgAt;
    }
    const heartbeat = setInterval(() => this.heartbeat(), this.cfg.heartbeatMs);
    const poll = setInterval(() => this.tick(), this.cfg.pollMs);
    heartbeat.unref();
    poll.unref();
    this.timers.push(heartbeat, poll);
    this.tick();
  }

  /** Asks for a catch-up read (checkpoint poll, reconnect). */
  private tick(): void {
    this.ticked = true;
    void this.drain();
  }

  private async drain(): Promise<void> {
    if (this.draining || this.stopped) return;
    this.draining = true;
    try {
      while (!this.stopped && !this.suspended && (this.pending.length > 0 || this.ticked)) {
        const batch = this.pending.splice(0);
        this.ticked = false;
        await this.process(batch);
      }
    } catch (error) {
      this.options.logger.error(
        { err: error },
        "stream: reading indexed rows failed; retrying on the next poll",
      );
    } finally {
      this.draining = false;
    }
  }

  /**
   * One catch-up step: notified reorgs first, then one statement reading the checkpoint and the
   * rows after the last dispatched block up to it (a reorg seen only in the checkpoint is sent,
   * then the range is read again from the lowered position).
   */
  private async process(batch: Notification[]): Promise<void> {
    const startedAt = performance.now();
    if (this.highWater === null) {
      const checkpoint = await readStreamCheckpoint(this.db);
      if (!checkpoint) return;
      this.highWater = checkpoint.blockNumber; // first checkpoint: start from here
      this.seenReorgAt = checkpoint.lastReorgAt;
      return;
    }
    const notified = batch.flatMap((n) => {
      if (!n.reorg) return [];
      // Already sent from the checkpoint (the poll saw the rollback before its notification came).
      const key = `${n.reorg.from}-${n.reorg.to}`;
      if (this.reorgFromCheckpoint === key) {
        this.reorgFromCheckpoint = null;
        return [];
      }
      return [n.reorg];
    });
    for (const reorg of notified) this.dispatchReorg(reorg);

    let read = await readBlockRange(this.db, this.highWater, null, this.cfg.maxBatchEvents);
    const checkpoint = read.checkpoint;
    if (!checkpoint) return;
    const seen: { from: bigint; to: bigint }[] = [];
    if (checkpoint.lastReorgAt !== null && checkpoint.lastReorgAt !== this.seenReorgAt) {
      // A reorg committed without (or before) its notification: take it from the checkpoint.
      if (
        notified.length === 0 &&
        checkpoint.lastReorgFromBlock !== null &&
        checkpoint.lastReorgToBlock !== null
      ) {
        if (checkpoint.lastReorgFromBlock <= this.highWater) {
          seen.push({ from: checkpoint.lastReorgFromBlock, to: checkpoint.lastReorgToBlock });
          this.reorgFromCheckpoint = `${checkpoint.lastReorgFromBlock}-${checkpoint.lastReorgToBlock}`;
        }
      }
      this.seenReorgAt = checkpoint.lastReorgAt;
    }
    if (checkpoint.blockNumber < this.highWater && !seen.some((r) => r.from <= checkpoint.blockNumber + 1n)) {
      seen.push({ from: checkpoint.blockNumber + 1n, to: this.highWater });
    }
    if (seen.length > 0) {
      for (const reorg of seen) this.dispatchReorg(reorg);
      read = await readBlockRange(this.db, this.highWater, checkpoint.blockNumber, this.cfg.maxBatchEvents);
    }
    const fixes =
      this.candleFixes.size > 0 && !read.overflow ? await this.candleFixes.take(this.db, read.events) : [];
    const after = this.highWater;
    const hi = read.hi ?? checkpoint.blockNumber;
    if (hi <= after) {
      this.dispatch(fixes);
      return;
    }
    this.highWater = hi;
    if (read.overflow) {
      this.options.logger.warn(
        { from: String(after + 1n), to: String(hi) },
        "stream: range too large, sending reset",
      );
      this.broadcastReset("backlog");
      return;
    }
    const readAt = performance.now();
    await this.waitForReadDatabase(hi);
    this.dispatch(fixes.length > 0 ? [...fixes, ...read.events] : read.events);
    this.options.logger.debug(
      {
        events: read.events.length,
        subscribers: this.subscribers.size,
        queued_ms: batch[0]?.at === undefined ? null : startedAt - batch[0].at,
        read_ms: readAt - startedAt,
        dispatch_ms: performance.now() - readAt,
      },
      "stream: dispatched",
    );
  }

  /**
   * Waits until the read database shows `block` (polling `readPosition` every 20 ms), at most
   * `readWaitMs`; past that the events go out anyway (logged), so a stalled replica cannot stop
   * the stream (its readiness fails and the balancer takes it out).
   */
  private async waitForReadDatabase(block: bigint): Promise<void> {
    const position = this.options.readPosition;
    if (!position || (this.readShown !== null && this.readShown >= block)) return;
    const deadline = performance.now() + this.cfg.readWaitMs;
    for (;;) {
      this.readShown = await position().catch(() => null);
      if (this.readShown !== null && this.readShown >= block) return;
      if (performance.now() >= deadline || this.stopped) {
        this.options.logger.warn(
          { block: String(block), read_block: this.readShown === null ? null : String(this.readShown) },
          "stream: the read database does not show the block yet; sending its events anyway",
        );
        return;
      }
      await new Promise((r) => setTimeout(r, 20));
    }
  }

  private dispatchReorg(reorg: { from: bigint; to: bigint }): void {
    for (const entry of this.ring.orphanFrom(reorg.from)) this.candleFixes.orphaned(entry.event, reorg);
    if (this.highWater !== null && this.highWater >= reorg.from) this.highWater = reorg.from - 1n;
    this.dispatch([reorgEvent(reorg)]);
  }

  private resetEvent(reason: ResetReason): StreamEventData {
    return resetEvent(reason, this.highWater);
  }

  private broadcastReset(reason: ResetReason): void {
    const frame = sseFrame(this.resetEvent(reason));
    for (const sub of this.subscribers) this.write(sub, frame);
  }

  /**
   * Adds events to the ring and writes them: one write per subscriber per batch, the bytes built
   * and encoded once per distinct filter and shared by every subscriber with that filter.
   */
  private dispatch(events: StreamEventData[]): void {
    if (events.length === 0) return;
    const entries = events.map((event) => this.ring.remember(event));
    const byKey = new Map<string, Buffer | null>();
    for (const sub of this.subscribers) {
      const shared = sub.after === null && !sub.closed;
      let bytes = shared ? byKey.get(sub.key) : undefined;
      if (bytes === undefined) {
        let chunk = "";
        for (const entry of entries) {
          if (matches(sub, entry.event)) chunk += entry.frame;
        }
        bytes = chunk ? Buffer.from(chunk, "utf8") : null;
        if (shared) byKey.set(sub.key, bytes);
      }
      if (bytes) this.write(sub, bytes);
    }
  }

  private write(sub: StreamSubscriber, chunk: string | Buffer): void {
    writeTo(sub, chunk, this.cfg.maxBufferedBytes, this.options.logger);
  }

  private heartbeat(): void {
    const frame = Buffer.from(`: heartbeat ${Math.floor(Date.now() / 1000)}\n\n`);
    for (const sub of this.subscribers) if (!sub.queue) this.write(sub, frame);
  }

  /**
   * Adds a subscriber, first replaying what it missed after `lastEventId`: from the ring when
   * the id is there (orphaned entries skipped, the `reorg` that orphaned them included); else, for
   * a canonical position at most `maxGapBlocks` behind with at most `maxGapEvents` events, from the
   * database; otherwise a `reset` event. Live events arriving meanwhile are queued, then flushed.
   */
  async subscribe(sub: StreamSubscriber, lastEventId: string | undefined): Promise<void> {
    if (this.idleTimer) {
      clearTimeout(this.idleTimer);
      this.idleTimer = null;
    }
    await this.start();
    // Gone while the hub was starting: never joins (its close already ran).
    if (sub.closed || sub.res.destroyed) return;
    if (lastEventId === undefined) {
      this.subscribers.add(sub);
      return;
    }
    const known = this.ring.get(lastEventId);
    if (known) {
      // Synchronous: nothing can be dispatched between the replay and joining the live set.
      let chunk = "";
      for (const entry of this.ring.after(known.seq)) {
        if (!entry.orphaned && matches(sub, entry.event)) chunk += entry.frame;
      }
      if (chunk) this.write(sub, chunk);
      this.subscribers.add(sub);
      return;
    }
    const parsed = parseEventId(lastEventId);
    const highWater = this.highWater;
    if (!parsed || highWater === null) {
      this.write(sub, sseFrame(this.resetEvent("unknown_id")));
      this.subscribers.add(sub);
      return;
    }
    if (parsed.position.block > highWater) {
      // An id from a replica that is ahead of this one: deliver only what comes after it.
      sub.after = parsed.position;
      this.subscribers.add(sub);
      return;
    }
    if (highWater - parsed.position.block > BigInt(this.cfg.maxGapBlocks)) {
      this.write(sub, sseFrame(this.resetEvent("too_old")));
      this.subscribers.add(sub);
      return;
    }
    sub.queue = [];
    this.subscribers.add(sub);
    let gap: StreamEventData[] | ResetReason;
    try {
      gap = await readResumeGap(this.db, parsed, highWater, this.cfg.maxGapEvents);
    } catch (error) {
      this.options.logger.warn({ err: error }, "stream: resume read failed");
      gap = "too_old";
    }
    const queued = sub.queue;
    sub.queue = null;
    let chunk = "";
    if (typeof gap === "string") chunk = sseFrame(this.resetEvent(gap));
    else for (const event of gap) if (matches(sub, event)) chunk += sseFrame(event);
    if (chunk) this.write(sub, chunk);
    for (const held of queued) this.write(sub, held);
  }

  /** Removes a subscriber (on disconnect). */
  unsubscribe(sub: StreamSubscriber): void {
    sub.closed = true;
    this.subscribers.delete(sub);
    if (this.subscribers.size === 0 && !this.stopped && !this.idleTimer) {
      this.idleTimer = setTimeout(() => {
        this.idleTimer = null;
        if (this.subscribers.size === 0) void this.suspend();
      }, this.cfg.idleStopMs);
      this.idleTimer.unref();
    }
  }

  /**
   * Idle stop: no subscriber for `idleStopMs`, so stop listening and polling (the read pool's
   * connections close when idle) and forget the ring (a later resume re-reads short gaps from the
   * database). The next subscriber starts everything again.
   */
  private async suspend(): Promise<void> {
    if (this.stopped || this.suspended || this.starting === null) return;
    this.suspended = true;
    await this.starting.catch(() => {});
    if (this.subscribers.size > 0 || this.stopped) {
      // Someone subscribed meanwhile: keep going.
      this.suspended = false;
      this.tick();
      return;
    }
    // From here on synchronous (no subscriber can slip in), then the listener is closed.
    for (const timer of this.timers) clearInterval(timer);
    this.timers = [];
    const closing = this.listener.close();
    this.ring.clear();
    this.pending.length = 0;
    this.candleFixes.clear();
    this.reorgFromCheckpoint = null;
    this.highWater = null;
    this.starting = null;
    await closing;
    this.options.logger.debug("stream: no subscriber, stopped listening");
  }

  /** Ends every stream, stops listening and polling, closes the pool it made. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.idleTimer) clearTimeout(this.idleTimer);
    for (const timer of this.timers) clearInterval(timer);
    const closing = this.listener.close();
    for (const sub of this.subscribers) {
      sub.closed = true;
      sub.res.end();
    }
    this.subscribers.clear();
    await closing;
    await this.starting?.catch(() => {});
    await this.ownPool?.end().catch(() => {});
  }
}

/** The reorg range of a `tmi_indexed` payload (ranges only matter for reorgs); logs an unreadable one. */
function parseNotification(payload: string | undefined, logger: FastifyBaseLogger): Notification {
  if (!payload) return {};
  const parsed = parseIndexedNotification(payload);
  if (parsed === null) {
    logger.warn({ payload }, "stream: unreadable tmi_indexed payload");
    return {};
  }
  return parsed.reorg
    ? { reorg: { from: BigInt(parsed.reorg.from_block), to: BigInt(parsed.reorg.to_block) } }
    : {};
}
