import pg from "pg";
import type { Logger } from "pino";
import { DatabaseOutageError } from "../errors.js";

/** First key of the advisory lock pair (`'tmi'`); the second is the chain id. */
export const LOCK_NAMESPACE = 0x746d69;

/** The held writer lock: a dedicated connection; losing it means another writer may start. */
export interface WriterLock {
  /** Resolves when the lock connection ends (error or server restart): the holder must stop writing. */
  lost: Promise<Error>;
  release(): Promise<void>;
}

/**
 * Takes `pg_try_advisory_lock(LOCK_NAMESPACE, chainId)` on a dedicated connection, retrying every
 * `retryMs` while another indexer holds it (hot standby: logs once that it waits).
 * Resolves once held; rejects only when `signal` aborts.
 */
export async function acquireWriterLock(options: {
  databaseUrl: string;
  chainId: number;
  logger: Logger;
  retryMs?: number;
  signal?: AbortSignal;
  onStandby?: (standby: boolean) => void;
  /**
   * Give up when PostgreSQL has been unreachable this long (ms, counted from `unavailableSince`
   * or from the first failed connection); undefined: retry forever.
   */
  maxUnavailableMs?: number;
  /** When the outage began (ms since epoch), if it began before this call. */
  unavailableSince?: number | null;
}): Promise<WriterLock> {
  const { logger, chainId } = options;
  let announced = false;
  let unavailableSince = options.unavailableSince ?? null;
  for (;;) {
    if (options.signal?.aborted) throw new Error("aborted while waiting for the writer lock");
    const client = new pg.Client({
      connectionString: options.databaseUrl,
      application_name: "tmi-indexer-lock",
    });
    // Connection errors reject the pending call; an "error" event without a listener would crash.
    client.on("error", () => {});
    try {
      await client.connect();
      const res = await client.query<{ ok: boolean }>("SELECT pg_try_advisory_lock($1, $2) AS ok", [
        LOCK_NAMESPACE,
        chainId,
      ]);
      if (res.rows[0]?.ok) {
        options.onStandby?.(false);
        logger.info({ chain_id: chainId, action: "lock_acquired" }, "writer lock acquired");
        let resolveLost!: (e: Error) => void;
        const lost = new Promise<Error>((r) => (resolveLost = r));
        let released = false;
        client.on("error", (e) => {
          if (!released) resolveLost(e);
        });
        client.on("end", () => {
          if (!released) resolveLost(new Error("writer lock connection closed"));
        });
        return {
          lost,
          async release() {
            released = true;
            await client
              .query("SELECT pg_advisory_unlock($1, $2)", [LOCK_NAMESPACE, chainId])
              .catch(() => {});
            await client.end().catch(() => {});
          },
        };
      }
      await client.end().catch(() => {});
      if (!announced) {
        announced = true;
        options.onStandby?.(true);
        logger.info(
          { chain_id: chainId, action: "standby" },
          "another indexer holds the writer lock; standing by",
        );
      }
      unavailableSince = null;
    } catch (error) {
      await client.end().catch(() => {});
      unavailableSince ??= Date.now();
      const waited = Date.now() - unavailableSince;
      if (options.maxUnavailableMs !== undefined && waited >= options.maxUnavailableMs) {
        throw new DatabaseOutageError(
          `PostgreSQL unreachable for ${Math.round(waited / 1000)} s (limit DB_OUTAGE_MAX_MS=${options.maxUnavailableMs}): ${(error as Error).message}`,
          { cause: error },
        );
      }
      logger.warn(
        { chain_id: chainId, action: "lock_error", err: error, unavailable_ms: waited },
        "could not try the writer lock; retrying",
      );
    }
    await new Promise<void>((resolve) => {
      const timer = setTimeout(done, options.retryMs ?? 2_000);
      function done() {
        clearTimeout(timer);
        options.signal?.removeEventListener("abort", done);
        resolve();
      }
      options.signal?.addEventListener("abort", done, { once: true });
    });
  }
}
