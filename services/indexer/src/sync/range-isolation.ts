import type { IndexerConfig } from "../config.js";
import type { IndexingCore } from "../core/indexing-core.js";
import { errorText, FatalIndexerError } from "../errors.js";
import type { DecodedEvent } from "../events/index.js";
import type { FetchedRange } from "../fetch/range-fetcher.js";
import type { IndexerMetrics } from "../metrics.js";
import type { EngineStats, SyncLog } from "../sync-telemetry.js";
import { findFirstFailing, isDataError, logKey } from "./failed-log-isolation.js";
import type { RangeWriter, SkipRecord } from "./range-writer.js";

/** Dependencies of {@link indexIsolating}. */
export interface RangeIsolationDeps {
  config: Pick<IndexerConfig, "SKIP_FAILING_LOGS">;
  core: IndexingCore;
  metrics: IndexerMetrics;
  stats: EngineStats;
  log: SyncLog;
  writer: RangeWriter;
}

/**
 * Indexes a range whose write keeps failing: bisects its events (each attempt prepared and
 * written in a transaction that is rolled back) to the first log that makes it fail, leaves that
 * log out, and repeats until the rest commits; each left-out log is recorded in `skipped_logs`
 * in the range's own transaction (so a reorg forgets it), counted and logged.
 * @throws the range's error when no single log is to blame, FatalIndexerError when
 * `SKIP_FAILING_LOGS=false`.
 */
export async function indexIsolating(
  deps: RangeIsolationDeps,
  fetched: FetchedRange,
  firstError: unknown,
): Promise<void> {
  const { config, core, log, writer } = deps;
  const records: SkipRecord[] = [];
  let events = fetched.events.filter((e) => !writer.skipped.has(logKey(e)));
  for (;;) {
    await writer.forget();
    const attempt = async (subset: readonly DecodedEvent[]) => {
      await writer.forget();
      const prepared = await core.prepare(writer.rangeInput(fetched, [...subset]));
      const client = writer.client!;
      await client.query("BEGIN");
      try {
        await core.write(client, prepared);
      } finally {
        await client.query("ROLLBACK").catch(() => {});
      }
    };
    let whole: unknown;
    try {
      await attempt(events);
    } catch (error) {
      whole = error;
    }
    if (whole === undefined) break;
    if (!isDataError(whole)) throw whole;
    const found = await findFirstFailing(events, attempt, isDataError);
    if (!found) throw whole ?? firstError;
    const event = events[found.index]!;
    const reason = errorText(found.error);
    const fields = {
      block: event.blockNumber,
      log_index: event.logIndex,
      transaction_hash: event.transactionHash,
      contract: event.address,
      event: event.name,
      reason,
    };
    if (!config.SKIP_FAILING_LOGS) {
      log("fatal", "log_failed", fields, "a log cannot be indexed and SKIP_FAILING_LOGS=false; stopping");
      throw new FatalIndexerError(
        `log ${event.logIndex} of block ${event.blockNumber} (${event.name} from ${event.address}) cannot be indexed: ${reason}`,
      );
    }
    log("error", "log_skipped", fields, "a log cannot be indexed: recorded in skipped_logs and left out");
    records.push({ event, reason });
    events = events.filter((_, i) => i !== found.index);
  }
  await writer.forget();
  const input = writer.rangeInput(fetched, events);
  const prepared = await core.prepare(input);
  await writer.commit(input, prepared, records);
  for (const r of records) writer.skipped.add(logKey(r.event));
  deps.stats.skippedLogs += records.length;
  deps.metrics.skippedLogs.inc(records.length);
}
