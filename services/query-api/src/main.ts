import { EnvError } from "@tmi/shared/env";
import { serve } from "@tmi/shared/http";
import { createLogger } from "@tmi/shared/logger";
import type { FastifyInstance } from "fastify";
import { buildApp } from "./app.js";
import { loadQueryApiSettings } from "./config.js";
import { createReadPool } from "./db.js";
import { createReadDatabase } from "./read-database/read-database.js";
import { streamRoutes } from "./stream/stream-routes.js";

// Process entry of query-api: settings, logger, read-only pool, app, listen, shutdown.
let settings: ReturnType<typeof loadQueryApiSettings>;
try {
  settings = loadQueryApiSettings();
} catch (error) {
  if (error instanceof EnvError) {
    process.stderr.write(`${error.message}\n`);
    process.exit(1);
  }
  throw error;
}

const logger = createLogger({ service: "query-api", level: settings.logLevel });
if (settings.cursorSecretIsDefault) {
  logger.warn(
    { setting: "CURSOR_SECRET" },
    "CURSOR_SECRET is not set: using the fixed development secret (not allowed in production)",
  );
}
const pool = createReadPool({
  url: settings.databaseReadUrl,
  max: settings.poolMax,
  onError: (error) => logger.error({ err: error }, "idle database connection failed"),
});
const hasReplica = settings.databaseReadUrl !== settings.databaseUrl;
// With a replica: the primary measures the lag (one connection, closed after 10 s idle) and, with
// READ_FALLBACK_TO_PRIMARY, carries the reads while the replica is unreachable.
const primaryPool = hasReplica
  ? createReadPool({
      url: settings.databaseUrl,
      max: settings.fallbackToPrimary ? settings.poolMax : 1,
      applicationName: "tmi-query-api-primary",
      idleTimeoutMs: 10_000,
      onError: (error) => logger.warn({ err: error }, "idle primary connection failed"),
    })
  : null;
const readDatabase = createReadDatabase({
  readPool: pool,
  primaryPool,
  fallbackToPrimary: settings.fallbackToPrimary,
});

const app = await buildApp({
  pool,
  readDatabase,
  maxReplicaLagS: settings.maxReplicaLagS,
  minBlockWaitMs: settings.minBlockWaitMs,
  config: settings,
  logger,
  plugins: [
    // The live stream LISTENs on the primary (a standby cannot LISTEN) and reads its ranges there,
    // only while someone subscribes; an event is sent once the read database shows its block (at
    // most STREAM_READ_WAIT_MS later), so a REST read right after it finds what it announced.
    streamRoutes({
      listenerUrl: settings.databaseUrl,
      config: {
        readWaitMs: settings.streamReadWaitMs,
        maxConnectionsPerIp: settings.streamMaxPerClient,
        maxConnections: settings.streamMaxConnections,
        idleStopMs: settings.streamIdleStopMs,
      },
      readPosition: () => readDatabase.indexedBlock(0),
    }),
  ],
});
const address = await serve(app as unknown as FastifyInstance, {
  host: settings.host,
  port: settings.port,
  logger,
  onClose: async () => {
    await Promise.all([pool.end(), primaryPool?.end()]);
  },
});
logger.info(
  {
    address,
    read_replica: settings.databaseReadUrl !== settings.databaseUrl,
    trust_proxy: settings.trustProxy,
  },
  "query-api listening",
);
