import type { Logger } from "pino";

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

/** Every {@link EngineStats} counter at zero (a scheduler's stats at start). */
export function createEngineStats(): EngineStats {
  return {
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
}

/**
 * One structured log line of the sync loop: `chain_id` and `action` (a snake_case event name)
 * added to `fields`, then `message`.
 */
export type SyncLog = (
  level: "info" | "warn" | "error" | "debug" | "fatal",
  action: string,
  fields: Record<string, unknown>,
  message: string,
) => void;

/** The {@link SyncLog} of chain `chainId` on `logger`. */
export function createSyncLog(logger: Logger, chainId: number): SyncLog {
  return (level, action, fields, message) => logger[level]({ chain_id: chainId, action, ...fields }, message);
}

/** Events per second over the commits of the last 10 s of wall time (see {@link EventRate.add}). */
export class EventRate {
  private readonly window: { at: number; events: number }[] = [];

  /**
   * Records a commit of `events` events at `now` (ms, `Date.now()`) and returns the rate: the
   * events committed after the oldest commit kept, per second since it (0 with one commit kept).
   */
  add(events: number, now: number): number {
    const window = this.window;
    window.push({ at: now, events });
    while (window.length > 1 && now - window[0]!.at > 10_000) window.shift();
    const span = Math.max(1, now - window[0]!.at);
    return window.length > 1 ? (window.slice(1).reduce((s, w) => s + w.events, 0) * 1000) / span : 0;
  }
}

/** User + system time of a `process.cpuUsage` delta (ms). */
export const cpuMs = (usage: NodeJS.CpuUsage) => (usage.user + usage.system) / 1000;

/** Memory the process holds (resident set size, MiB, rounded), for log lines. */
export const rssMb = () => Math.round(process.memoryUsage().rss / 2 ** 20);
