import type { Pool } from "pg";
import type { IndexerConfig } from "../config.js";
import type { IndexerMetrics } from "../metrics.js";
import type { BlockHeader } from "../rpc/rpc-client.js";
import type { SyncLog } from "../sync-telemetry.js";
import { createHeadClock, type HeadSample, type HeadState } from "./head-clock.js";
import { HeadPacer } from "./head-pacer.js";

/** Dependencies of {@link createHeadFollower}. */
export interface HeadFollowerDeps {
  config: Pick<IndexerConfig, "CHAIN_ID" | "POLL_INTERVAL_MS" | "HEAD_STALE_MS">;
  pool: Pool;
  metrics: IndexerMetrics;
  log: SyncLog;
  /** The node's latest header. @throws when the node has none (the caller's chain check). */
  latestHeader(): Promise<BlockHeader>;
  /** The last committed block (number, hash: null before any, block timestamp in Unix seconds). */
  tip(): HeadSample & { hash: string | null };
  /** Sleeps `ms` or until the scheduler stops. */
  pause(ms: number): Promise<void>;
  /** True once the scheduler was told to stop. */
  stopped(): boolean;
}

/** The live side of the sync loop: reads and paces the chain head, reports the lag (see {@link createHeadFollower}). */
export interface HeadFollower {
  /** The latest head observed by the loop (0 before the first). */
  readonly number: number;
  /** The head clock's state now (see `head-clock.ts`). */
  state(): HeadState;
  /** The loop works towards `head`: it becomes {@link number}; the lag gauges follow. */
  observe(head: BlockHeader): void;
  /**
   * Sets the head and lag gauges from the head clock (called on every head, every commit and
   * every second by the lag ticker, so they move while the node hangs) and, at most once a
   * second, writes the head the lag is measured against to `indexer_checkpoints`
   * (`head_block_number`, with `head_seen_at` = when it was last read), for `/api/v1/status`.
   */
  updateLag(): void;
  /**
   * Reads the latest head; a successful read is what keeps the head clock fresh. Remembers when
   * each head was first seen: the polls after it are timed from then (see {@link HeadPacer}).
   */
  latest(): Promise<BlockHeader>;
  /** True when the poll due after `head` was first seen is due already (the step outlasted it). */
  pollDue(head: BlockHeader): boolean;
  /** Polls the head, paced, until it differs from `current` (or the scheduler stops: `current`). */
  waitForNew(current: BlockHeader): Promise<BlockHeader>;
  /** Waits for the head heartbeat write in flight. */
  settle(): Promise<void>;
}

/**
 * Follows the chain head: every read observed by the head clock (lag while the node hangs) and
 * the pacer (polls timed from when a head was first seen, see {@link HeadPacer}); the head and lag
 * gauges and the `indexer_checkpoints` heartbeat.
 */
export function createHeadFollower(deps: HeadFollowerDeps): HeadFollower {
  const { config, pool, metrics, log } = deps;
  const pacer = new HeadPacer();
  const clock = createHeadClock({ staleAfterMs: config.HEAD_STALE_MS });
  let seenHead = { hash: "", at: 0 };
  let heartbeatAt = 0;
  let heartbeat: Promise<void> | null = null;
  let headNumber = 0;

  function updateLag(): void {
    const state = clock.state();
    if (state.knownHead < 0) return;
    const tip = deps.tip();
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

  async function latest(): Promise<BlockHeader> {
    const head = await deps.latestHeader();
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

  async function waitForNew(current: BlockHeader): Promise<BlockHeader> {
    // The first poll is due `quiet` after this head was first seen, whatever its indexing took;
    // a poll made at the end of that indexing (when it was due) counts: then one interval on.
    let wait = Math.max(config.POLL_INTERVAL_MS, quietMs() - sinceSeen(current));
    for (;;) {
      if (deps.stopped()) return current;
      await deps.pause(wait);
      wait = config.POLL_INTERVAL_MS;
      if (deps.stopped()) return current;
      const head = await latest();
      updateLag();
      if (head.hash !== current.hash) return head;
    }
  }

  return {
    get number() {
      return headNumber;
    },
    state: () => clock.state(),
    observe(head) {
      headNumber = Math.max(head.number, 0);
      updateLag();
    },
    updateLag,
    latest,
    pollDue: (head) => sinceSeen(head) > quietMs(),
    waitForNew,
    async settle() {
      await heartbeat;
    },
  };
}
