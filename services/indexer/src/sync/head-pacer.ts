import type { BlockHeader } from "../rpc/rpc-client.js";

/** Block intervals remembered (seconds per block, from the heads' timestamps). */
const KEEP = 8;

/**
 * Paces the polling of `eth_getBlockByNumber("latest")` when caught up. The polls follow a
 * schedule counted from when the current head was first seen, not from when its range was
 * indexed: the first poll comes one typical block interval (the median of the last 8, from the
 * heads' timestamps) less one poll interval after the head was seen, then one every
 * `POLL_INTERVAL_MS`; a poll already due when indexing ends is made at once. So the polls per
 * block do not depend on how long a block takes to index: on 2-second blocks with 250 ms polls,
 * about 2 per block (the one just before the next block and the one that finds it) instead of 8,
 * and a block is still seen within one poll interval of its arrival. The median ignores the odd
 * short interval of a node that mined two blocks in a burst after a late one (a 3 s then a 1 s
 * interval). Irregular chains (a devnet that mines on demand: intervals of 0 s) keep polling
 * every interval.
 */
export class HeadPacer {
  private readonly intervals: number[] = [];
  private last: { number: number; timestamp: number } | null = null;

  /** After a head was seen (every new head, in order; the same head twice changes nothing). */
  observe(head: BlockHeader): void {
    const last = this.last;
    if (last && head.number > last.number) {
      this.intervals.push(Math.max(0, head.timestamp - last.timestamp) / (head.number - last.number));
      if (this.intervals.length > KEEP) this.intervals.shift();
    }
    if (!last || head.number !== last.number) this.last = { number: head.number, timestamp: head.timestamp };
  }

  /** How long after a new head was first seen the first poll is due (ms; at least `pollMs`). */
  quietMs(pollMs: number): number {
    if (this.intervals.length < 3) return pollMs;
    const sorted = [...this.intervals].sort((a, b) => a - b);
    const median = sorted[Math.floor((sorted.length - 1) / 2)]! * 1000;
    return Math.max(pollMs, median - pollMs);
  }
}
