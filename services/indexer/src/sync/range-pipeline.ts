import { setImmediate as yieldToIo } from "node:timers/promises";
import type { IndexerConfig } from "../config.js";
import type { IndexingCore } from "../core/indexing-core.js";
import { ChainMismatchError } from "../errors.js";
import type { EmitterSet } from "../fetch/log-filter.js";
import type { DiscoveryLink, FetchedRange, RangeFetcher } from "../fetch/range-fetcher.js";
import type { IndexerMetrics } from "../metrics.js";
import type { BlockHeader } from "../rpc/rpc-client.js";
import type { EngineStats } from "../sync-telemetry.js";
import { logKey } from "./failed-log-isolation.js";
import { indexIsolating, type RangeIsolationDeps } from "./range-isolation.js";
import type { RangeWriter } from "./range-writer.js";

/** Dependencies of {@link syncTo}. */
export interface RangePipelineDeps extends RangeIsolationDeps {
  config: Pick<IndexerConfig, "SKIP_FAILING_LOGS" | "REORG_DEPTH" | "PREFETCH_RANGES">;
  core: IndexingCore;
  metrics: IndexerMetrics;
  stats: EngineStats;
  fetcher: RangeFetcher;
  writer: RangeWriter;
  /** The log filter's emitter set (see the scheduler). */
  emitters(): EmitterSet;
  /** The latest head observed (the reorg window ends there). */
  headNumber(): number;
  /** True once the scheduler was told to stop: the pipeline ends after the range in hand. */
  stopped(): boolean;
}

/**
 * Indexes from the checkpoint to `target`: a prefetching pipeline (`PREFETCH_RANGES` ranges
 * fetched ahead, spans from the fetcher, ranges within the reorg window at most 200 blocks and
 * never straddling its start) with one write at a time, each range checked to extend the last.
 * `head` (the header just polled) is not fetched again by the range that ends there. With
 * `isolate`, one range only, written log by log as needed (see {@link indexIsolating}).
 * @throws ChainMismatchError when a range does not extend the indexed chain; the fetch's or the
 * write's error (the writes before it are committed).
 */
export async function syncTo(
  deps: RangePipelineDeps,
  target: number,
  isolate: boolean,
  head?: BlockHeader,
): Promise<void> {
  const { config, core, metrics, stats, fetcher, writer } = deps;
  const reorgWindowStart = deps.headNumber() - config.REORG_DEPTH + 1;
  const emitters = deps.emitters();
  const skipped = writer.skipped;
  const inflight: { promise: Promise<FetchedRange> }[] = [];
  let next = writer.tip.number + 1;
  let tipHash = writer.tip.hash;
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
    while (inflight.length > 0 && !deps.stopped()) {
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
        await indexIsolating(deps, fetched, null);
        return; // one range in isolation, then back to the pipeline
      }
      await yieldToIo();
      const input = writer.rangeInput(fetched, events);
      const prepared = await core.prepare(input);
      stats.buildMs += performance.now() - buildStarted;
      await yieldToIo();
      await pendingWrite;
      pendingWrite = writer.commit(input, prepared).then(() => {
        metrics.knownTokens.set(emitters.tokenCount);
        writer.syncTokenMetrics();
      });
      pendingWrite.catch(() => {});
    }
    await pendingWrite;
  } finally {
    await pendingWrite.catch(() => {});
  }
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
