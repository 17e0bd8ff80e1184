import type { Pool } from "pg";
import type { IndexerConfig } from "../config.js";
import type { SyncLog } from "../sync-telemetry.js";
import { refreshTrending } from "../write/trending.js";

/** Dependencies of {@link createTrendingRefresher}. */
export interface TrendingRefresherDeps {
  config: Pick<
    IndexerConfig,
    "CHAIN_ID" | "TRENDING_REFRESH_MS" | "TRENDING_WINDOW" | "TRENDING_KEEP_SECONDS"
  >;
  pool: Pool;
  log: SyncLog;
  /** The last committed block (−1 before any). */
  indexedBlock(): number;
  /** True once the scheduler has caught up with the head. */
  caughtUp(): boolean;
  /** True once the scheduler was told to stop. */
  stopped(): boolean;
}

/** The trending snapshot's refresh schedule (see {@link createTrendingRefresher}). */
export interface TrendingRefresher {
  /**
   * Asks for a refresh: none when the snapshot is already of the last committed block, none
   * sooner than `TRENDING_REFRESH_MS` after the last (30 s while catching up) unless `force`;
   * one at a time, a request during a refresh runs once after it.
   */
  request(force: boolean): void;
  /** Waits for the refresh in flight (and the one it queued). */
  settle(): Promise<void>;
  /** After a reorg: the last snapshot's block is no longer known to be current. */
  invalidate(): void;
}

/** Refreshes the trending snapshot (`write/trending.ts`) in the background of the sync loop. */
export function createTrendingRefresher(deps: TrendingRefresherDeps): TrendingRefresher {
  const { config, pool, log } = deps;
  let running: Promise<void> | null = null;
  let again = false;
  let lastAt = 0;
  let lastBlock = -1;

  function request(force: boolean): void {
    if (lastBlock === deps.indexedBlock()) return;
    const every = deps.caughtUp() ? config.TRENDING_REFRESH_MS : Math.max(config.TRENDING_REFRESH_MS, 30_000);
    if (!force && Date.now() - lastAt < every) return;
    if (running) {
      again = true;
      return;
    }
    lastAt = Date.now();
    running = refreshTrending(pool, {
      chainId: config.CHAIN_ID,
      windowSeconds: config.TRENDING_WINDOW,
      keepSeconds: config.TRENDING_KEEP_SECONDS,
    })
      .then((asOf) => {
        if (asOf !== null) lastBlock = asOf;
      })
      .catch((error) => log("error", "trending_error", { err: error }, "trending refresh failed"))
      .finally(() => {
        running = null;
        if (again && !deps.stopped()) {
          again = false;
          request(deps.caughtUp());
        }
      });
  }

  return {
    request,
    async settle() {
      while (running) await running;
    },
    invalidate() {
      lastBlock = -1;
    },
  };
}
