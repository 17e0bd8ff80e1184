import { EnvError } from "@tmi/shared/env";
import { serve } from "@tmi/shared/http";
import { createLogger } from "@tmi/shared/logger";
import pg from "pg";
import { buildApp } from "./app.js";
import { type IndexerConfig, loadIndexerConfig } from "./config.js";
import { createMetrics } from "./metrics.js";
import { createRpcClient } from "./rpc/rpc-client.js";
import { FatalIndexerError, IndexerEngine } from "./sync/indexer-engine.js";
import { acquireWriterLock } from "./sync/writer-lock.js";

// Process entry: config, logger, HTTP probes, writer lock, then the sync loop.
let config: IndexerConfig;
try {
  config = loadIndexerConfig();
} catch (error) {
  process.stderr.write(`${error instanceof EnvError ? error.message : String(error)}\n`);
  process.exit(1);
}

const logger = createLogger({ service: "indexer", level: config.LOG_LEVEL });
const metrics = createMetrics(config.CHAIN_ID);
const pool = new pg.Pool({ connectionString: config.DATABASE_URL, max: 4, application_name: "tmi-indexer" });
pool.on("error", (error) =>
  logger.error({ chain_id: config.CHAIN_ID, action: "db_error", err: error }, "idle database client error"),
);
const rpc = createRpcClient({
  url: config.RPC_URL,
  maxConcurrent: config.MAX_CONCURRENT_REQUESTS,
  timeoutMs: config.RPC_TIMEOUT_MS,
  onError: (error) => metrics.rpcErrors.inc({ method: error.method }),
});

let engine: IndexerEngine | null = null;
let standby = true;
const shutdown = new AbortController();

const app = buildApp({
  logger,
  registry: metrics.registry,
  async readiness() {
    if (standby || !engine) throw new Error("standby: another indexer holds the writer lock");
    const lag = engine.head - engine.indexedBlock;
    if (!engine.caughtUp || lag > config.READY_MAX_LAG_BLOCKS)
      throw new Error(`behind the head by ${lag} blocks`);
  },
});

await serve(app as unknown as Parameters<typeof serve>[0], {
  host: config.HOST,
  port: config.PORT,
  logger,
  onClose: async () => {
    shutdown.abort();
    engine?.stop();
    await done.catch(() => {});
    await rpc.close();
    await pool.end().catch(() => {});
  },
});

const done = (async () => {
  const lock = await acquireWriterLock({
    databaseUrl: config.DATABASE_URL,
    chainId: config.CHAIN_ID,
    logger,
    signal: shutdown.signal,
    onStandby: (s) => {
      standby = s;
      metrics.standby.set(s ? 1 : 0);
    },
  });
  engine = new IndexerEngine({ config, pool, rpc, logger, metrics });
  void lock.lost.then((error) => {
    if (shutdown.signal.aborted) return;
    logger.fatal({ chain_id: config.CHAIN_ID, action: "lock_lost", err: error }, "writer lock lost; exiting");
    process.exit(1);
  });
  try {
    await engine.run();
  } finally {
    await lock.release();
  }
})();

done.catch((error) => {
  if (shutdown.signal.aborted) return;
  const fatal = error instanceof FatalIndexerError;
  logger.fatal(
    { chain_id: config.CHAIN_ID, action: fatal ? "fatal" : "crash", err: error },
    error instanceof Error ? error.message : String(error),
  );
  process.exit(fatal ? 2 : 1);
});
