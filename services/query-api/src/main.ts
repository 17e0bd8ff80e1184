import { EnvError } from "@tmi/shared/env";
import { serve } from "@tmi/shared/http";
import { createLogger } from "@tmi/shared/logger";
import type { FastifyInstance } from "fastify";
import { buildApp } from "./app.js";
import { loadQueryApiSettings } from "./config.js";
import { createReadPool } from "./db.js";
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

const app = await buildApp({
  pool,
  config: settings,
  logger,
  plugins: [
    // The live stream LISTENs on the primary (a standby cannot LISTEN) and reads its ranges there
    // (a replica could lag the notification); eager: the resume window fills from the start.
    streamRoutes({ listenerUrl: settings.databaseUrl, config: { eager: true } }),
  ],
});
const address = await serve(app as unknown as FastifyInstance, {
  host: settings.host,
  port: settings.port,
  logger,
  onClose: () => pool.end(),
});
logger.info(
  {
    address,
    read_replica: settings.databaseReadUrl !== settings.databaseUrl,
    trust_proxy: settings.trustProxy,
  },
  "query-api listening",
);
