/** A chain head as the head clock needs it: number and block timestamp (Unix seconds). */
export interface HeadSample {
  number: number;
  timestamp: number;
}

/** What the head clock says at one instant (see {@link createHeadClock}). */
export interface HeadState {
  /** The last head read from the node (−1 before the first). */
  knownHead: number;
  /**
   * The head to measure lag against: the known head, or while the head is stale an estimate of
   * where the chain is now (known head + elapsed wall time / the chain's average block interval).
   */
  head: number;
  /** Seconds since the last successful head read (0 before the first: nothing to be late for). */
  ageSeconds: number;
  /** True when no head was read for longer than `staleAfterMs`: the node hangs or is unreachable. */
  stale: boolean;
}

/** The head clock of the indexer (see {@link createHeadClock}). */
export interface HeadClock {
  /** Records a successful read of the latest head (wall time = the clock's now). */
  observe(head: HeadSample): void;
  /** The state now. */
  state(): HeadState;
  /**
   * Lag of the indexed tip against {@link HeadState.head}: `blocks` = head − tip (≥ 0);
   * `seconds` = 0 when caught up (0 blocks) and the head is fresh, else the larger of
   * (now − the tip's block timestamp) and the head's age — so it grows with wall time while the
   * node hangs, even when the indexer was caught up when it stopped answering.
   */
  lag(tip: HeadSample): { blocks: number; seconds: number };
  /** Average seconds between blocks seen so far (null until two heads with distinct numbers). */
  blockIntervalSeconds(): number | null;
}

/**
 * Tracks when the chain head was last read, so that lag keeps growing while the node hangs or is
 * unreachable (nothing else happens then: no head, no commit). `staleAfterMs` is the documented
 * readiness threshold (indexer `HEAD_STALE_MS`); `now` returns wall time in ms (tests pass their own).
 * The block interval is a moving average over consecutive heads (weight 1/5 per new sample).
 */
export function createHeadClock(options: { staleAfterMs: number; now?: () => number }): HeadClock {
  const now = options.now ?? Date.now;
  let last: HeadSample | null = null;
  let seenAt = 0;
  let interval: number | null = null;

  const state = (): HeadState => {
    if (last === null) return { knownHead: -1, head: -1, ageSeconds: 0, stale: false };
    const ageMs = Math.max(0, now() - seenAt);
    const stale = ageMs > options.staleAfterMs;
    const estimate = stale && interval !== null && interval > 0 ? Math.floor(ageMs / 1000 / interval) : 0;
    return { knownHead: last.number, head: last.number + estimate, ageSeconds: ageMs / 1000, stale };
  };

  return {
    observe(head) {
      if (last !== null && head.number > last.number && head.timestamp >= last.timestamp) {
        const sample = (head.timestamp - last.timestamp) / (head.number - last.number);
        interval = interval === null ? sample : interval * 0.8 + sample * 0.2;
      }
      last = { number: head.number, timestamp: head.timestamp };
      seenAt = now();
    },
    state,
    lag(tip) {
      const s = state();
      const blocks = Math.max(0, s.head - tip.number);
      if (blocks === 0 && !s.stale) return { blocks, seconds: 0 };
      const behind = blocks === 0 || tip.timestamp <= 0 ? 0 : Math.max(0, now() / 1000 - tip.timestamp);
      return { blocks, seconds: Math.max(behind, s.stale ? s.ageSeconds : 0) };
    },
    blockIntervalSeconds: () => interval,
  };
}
