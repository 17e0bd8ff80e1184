import type { BlockHeader } from "../rpc/rpc-client.js";

/** Block intervals remembered (seconds per block, from the heads' timestamps). */
const KEEP = 8;

/**
 * Paces the polling of `eth_getBlockByNumber("latest")` when caught up: right after a new head
 * nothing new can come for about one block interval, so the first poll waits the shortest recent
 * interval less two poll intervals, then polls every `POLL_INTERVAL_MS`. On 2-second blocks with
 * 250 ms polls that is 2–3 polls per block instead of 8, and a block is still seen within one
 * poll interval of its arrival. Irregular chains (a devnet that mines on demand: intervals of 0 s)
 * keep polling every interval.
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

  /** How long to wait after a new head before the first poll (ms; at least `pollMs`). */
  quietMs(pollMs: number): number {
    if (this.intervals.length < 3) return pollMs;
    const shortest = Math.min(...this.intervals) * 1000;
    return Math.max(pollMs, shortest - 2 * pollMs);
  }
}
