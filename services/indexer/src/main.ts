import { EnvError } from "@tmi/shared/env";
import { serve } from "@tmi/shared/http";
import { createLogger } from "@tmi/shared/logger";
import pg from "pg";
import { buildApp } from "./app.js";
import { type IndexerConfig, loadIndexerConfig } from "./config.js";
import { createIndexingCore } from "./core/indexing-core.js";
import {
  DatabaseOutageError,
  DatabaseUnavailableError,
  FatalIndexerError,
  isDatabaseUnavailable,
} from "./errors.js";
import { createMetrics } from "./metrics.js";
import { createRpcClient, RpcError } from "./rpc/rpc-client.js";
import { resolveChainContracts } from "./sync/chain-contracts.js";
import { createSyncScheduler, type SyncScheduler } from "./sync/sync-scheduler.js";
import { acquireWriterLock } from "./sync/writer-lock.js";

// Process entry: config, logger, HTTP probes, then (repeatedly, across PostgreSQL outages) the
// writer lock and the sync loop. SIGTERM/SIGINT abort every RPC call in flight and exit 0.
let config: IndexerConfig;
try {
  config = loadIndexerConfig();
} catch (error) {
  process.stderr.write(
    `${error instanceof EnvError ? error.message : String((error as Error).message ?? error)}\n`,
  );
  process.exit(1);
}

const logger = createLogger({ service: "indexer", level: config.LOG_LEVEL });
const metrics = createMetrics(config.CHAIN_ID);
// JIT off: a range's read-model statement is estimated above jit_above_cost as the tables grow, and
// compiling it costs more CPU than running it (seconds per range; docs/benchmarks.md, Indexer).
const pool = new pg.Pool({
  connectionString: config.DATABASE_URL,
  max: 4,
  application_name: "tmi-indexer",
  options: "-c jit=off",
});
pool.on("error", (error) =>
  logger.warn({ chain_id: config.CHAIN_ID, action: "db_error", err: error }, "idle database client error"),
);
const shutdown = new AbortController();
const rpc = createRpcClient({
  url: config.RPC_URL,
  maxConcurrent: config.MAX_CONCURRENT_REQUESTS,
  timeoutMs: config.RPC_TIMEOUT_MS,
  onError: (error) => metrics.rpcErrors.inc({ method: error.method }),
  maxBatch: config.RPC_MAX_BATCH,
  onBatchRefused: (error) =>
    logger.warn(
      { chain_id: config.CHAIN_ID, action: "rpc_batch_refused", err: error },
      "the node refuses JSON-RPC batches; sending one call per request from now on",
    ),
  signal: shutdown.signal,
});

let scheduler: SyncScheduler | null = null;
let standby = true;

const app = buildApp({
  logger,
  registry: metrics.registry,
  async readiness() {
    if (standby || !scheduler)
      throw new Error("standby: another indexer holds the writer lock (or PostgreSQL is down)");
    const head = scheduler.headState();
    if (head.stale)
      throw new Error(
        `no chain head read for ${Math.floor(head.ageSeconds)} s (HEAD_STALE_MS ${config.HEAD_STALE_MS}): the node hangs or is unreachable`,
      );
    const lag = Math.max(scheduler.head, head.head) - scheduler.indexedBlock;
    if (!scheduler.caughtUp || lag > config.READY_MAX_LAG_BLOCKS)
      throw new Error(`behind the head by ${lag} blocks`);
  },
});

await serve(app as unknown as Parameters<typeof serve>[0], {
  host: config.HOST,
  port: config.PORT,
  logger,
  // Aborting the RPC client ends a hung call at once; a write in flight finishes (milliseconds).
  graceMs: 5_000,
  onClose: async () => {
    shutdown.abort(new Error("shutting down"));
    scheduler?.stop();
    await done.catch(() => {});
    await rpc.close();
    await pool.end().catch(() => {});
  },
});

const sleep = (ms: number) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(finish, ms);
    function finish() {
      clearTimeout(timer);
      shutdown.signal.removeEventListener("abort", finish);
      resolve();
    }
    shutdown.signal.addEventListener("abort", finish, { once: true });
  });

/** An RPC failure that may pass (transport, timeout, 5xx, rate limit), not a shutdown. */
function isRpcUnavailable(error: unknown): boolean {
  return error instanceof RpcError && !error.aborted && error.retryable;
}

/** Runs `fn` until it does not fail with {@link isRpcUnavailable}, logging and backing off (1 s doubling to 30 s). */
async function untilRpcAnswers<T>(fn: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await fn();
    } catch (error) {
      if (shutdown.signal.aborted || !isRpcUnavailable(error)) throw error;
      logger.error(
        { chain_id: config.CHAIN_ID, action: "rpc_unavailable", err: error, attempt },
        "the node does not answer; retrying",
      );
      await sleep(Math.min(30_000, 1_000 * 2 ** Math.min(attempt - 1, 5)));
    }
  }
}

const done = (async () => {
  logger.info(
    {
      chain_id: config.CHAIN_ID,
      action: "config",
      network: config.NETWORK ?? null,
      factory: config.FACTORY_ADDRESS,
      start_block: config.START_BLOCK,
      sources: config.sources,
    },
    "chain settings",
  );
  // The node must answer before anything else; while it does not, wait (never crash-loop).
  const contracts = await untilRpcAnswers(async () => {
    const nodeChainId = Number.parseInt(await rpc.request<string>("eth_chainId", []), 16);
    if (nodeChainId !== config.CHAIN_ID)
      throw new FatalIndexerError(`RPC_URL serves chain ${nodeChainId}, CHAIN_ID is ${config.CHAIN_ID}`);
    return resolveChainContracts(rpc, config);
  });
  logger.info({ chain_id: config.CHAIN_ID, action: "contracts", ...contracts }, "platform contracts");
  /** Start of the current PostgreSQL outage (ms since epoch), null while connected. */
  let outageSince: number | null = null;
  while (!shutdown.signal.aborted) {
    const lock = await acquireWriterLock({
      databaseUrl: config.DATABASE_URL,
      chainId: config.CHAIN_ID,
      logger,
      signal: shutdown.signal,
      retryMs: 1_000,
      maxUnavailableMs: config.DB_OUTAGE_MAX_MS,
      unavailableSince: outageSince,
      onStandby: (s) => {
        standby = s;
        metrics.standby.set(s ? 1 : 0);
      },
    });
    if (outageSince !== null) {
      logger.info(
        { chain_id: config.CHAIN_ID, action: "db_recovered", outage_ms: Date.now() - outageSince },
        "PostgreSQL is back; resuming from the checkpoint",
      );
      outageSince = null;
      metrics.databaseDown.set(0);
    }
    const current = createSyncScheduler({
      config,
      pool,
      rpc,
      logger,
      metrics,
      contracts,
      core: createIndexingCore({
        chainId: config.CHAIN_ID,
        factory: contracts.factory,
        weth: contracts.weth,
        feed: contracts.feed,
        rewardsDistributor: contracts.rewardsDistributor,
        keepBlocks: config.REORG_DEPTH + 1,
        cacheTokens: config.KNOWN_TOKENS_CACHE,
      }),
    });
    scheduler = current;
    const running = current.run();
    running.catch(() => {});
    // Losing the lock connection means PostgreSQL went away (or the session was killed): stop writing.
    const lost = lock.lost.then((error) => {
      throw new DatabaseUnavailableError(`writer lock connection lost: ${error.message}`, { cause: error });
    });
    lost.catch(() => {});
    try {
      await Promise.race([running, lost]);
      break; // stopped
    } catch (error) {
      if (shutdown.signal.aborted) break;
      if (isRpcUnavailable(error)) {
        // The node went away before the scheduler's loop took over its retries (at its start).
        current.stop();
        await running.catch(() => {});
        logger.error(
          { chain_id: config.CHAIN_ID, action: "rpc_unavailable", err: error },
          "the node does not answer; retrying",
        );
        await sleep(2_000);
        continue;
      }
      if (!isDatabaseUnavailable(error)) throw error;
      current.stop();
      await running.catch(() => {});
      standby = true;
      outageSince = Date.now();
      metrics.databaseDown.set(1);
      if (config.DB_OUTAGE_MAX_MS === 0) {
        throw new DatabaseOutageError(
          `PostgreSQL connection lost and DB_OUTAGE_MAX_MS=0: ${(error as Error).message}`,
          { cause: error },
        );
      }
      logger.error(
        {
          chain_id: config.CHAIN_ID,
          action: "db_outage",
          err: error,
          max_wait_ms: config.DB_OUTAGE_MAX_MS,
        },
        "PostgreSQL connection lost; waiting to reconnect (indexing resumes from the checkpoint)",
      );
    } finally {
      scheduler = null;
      await lock.release();
    }
    await sleep(500);
  }
})();

done.catch((error) => {
  if (shutdown.signal.aborted) return;
  const fatal = error instanceof FatalIndexerError;
  const database = error instanceof DatabaseOutageError || isDatabaseUnavailable(error);
  logger.fatal(
    {
      chain_id: config.CHAIN_ID,
      action: fatal ? "fatal" : database ? "db_unavailable" : "crash",
      err: error,
    },
    error instanceof Error ? error.message : String(error),
  );
  process.exit(fatal ? 2 : database ? 3 : 1);
});
