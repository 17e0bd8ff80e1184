import type { StreamEventData } from "./stream-events.js";
import { sseFrame } from "./stream-events.js";

/** One dispatched event kept for replay, with its SSE frame, numbered in dispatch order. */
export interface RingEntry {
  seq: number;
  event: StreamEventData;
  frame: string;
  /** Set when a later reorg rolled its block back: never replayed. */
  orphaned: boolean;
}

/**
 * The last dispatched events (`size`, trimmed when 10 % over), in order and by id: what a client
 * resuming with a `Last-Event-ID` is replayed from without reading the database.
 */
export class ReplayRing {
  private readonly entries: RingEntry[] = [];
  private readonly byId = new Map<string, RingEntry>();
  private seq = 0;

  constructor(private readonly size: number) {}

  /** Keeps `event` (its frame built once) as the newest entry. */
  remember(event: StreamEventData): RingEntry {
    const entry: RingEntry = { seq: ++this.seq, event, frame: sseFrame(event), orphaned: false };
    this.entries.push(entry);
    this.byId.set(event.id, entry);
    if (this.entries.length > this.size * 1.1) {
      const dropped = this.entries.splice(0, this.entries.length - this.size);
      for (const old of dropped) if (this.byId.get(old.event.id) === old) this.byId.delete(old.event.id);
    }
    return entry;
  }

  /** The entry of event id `id`, if still kept. */
  get(id: string): RingEntry | undefined {
    return this.byId.get(id);
  }

  /** The entries after sequence number `seq`, oldest first. */
  *after(seq: number): Generator<RingEntry> {
    let lo = 0;
    let hi = this.entries.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.entries[mid]!.seq <= seq) lo = mid + 1;
      else hi = mid;
    }
    for (let i = lo; i < this.entries.length; i++) yield this.entries[i]!;
  }

  /**
   * Marks orphaned every data event at or after block `from` (a reorg rolled them back) and
   * returns those it marked, newest first; control events and entries already orphaned are left.
   */
  orphanFrom(from: bigint): RingEntry[] {
    const marked: RingEntry[] = [];
    for (let i = this.entries.length - 1; i >= 0; i--) {
      const entry = this.entries[i]!;
      if (entry.event.name === "reorg" || entry.event.name === "reset") continue;
      if (entry.event.position.block < from || entry.orphaned) continue;
      entry.orphaned = true;
      marked.push(entry);
    }
    return marked;
  }

  /** Forgets every entry (idle stop). */
  clear(): void {
    this.entries.length = 0;
    this.byId.clear();
  }
}
