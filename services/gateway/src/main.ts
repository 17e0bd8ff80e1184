import { loadEnv } from "@tmi/shared/env";
import { serve } from "@tmi/shared/http";
import { createLogger } from "@tmi/shared/logger";
import type { FastifyInstance } from "fastify";
import { Redis } from "ioredis";
import { buildApp } from "./app.js";
import { gatewayEnvSchema } from "./config.js";

const config = loadEnv(gatewayEnvSchema);
const logger = createLogger({ service: "gateway", level: config.LOG_LEVEL });

// Rate-limit counters: fail fast (one try, short connect timeout) so a Redis outage lets traffic through.
const redis =
  config.RATE_LIMIT_PER_MINUTE > 0
    ? new Redis(config.REDIS_URL, {
        connectTimeout: 1000,
        maxRetriesPerRequest: 1,
        enableAutoPipelining: true,
      })
    : null;
redis?.on("error", (error) =>
  logger.warn({ err: error }, "redis error (rate limiting skipped while it lasts)"),
);

const app = buildApp({ logger, config, redis });
const address = await serve(app as unknown as FastifyInstance, {
  host: config.HOST,
  port: config.GATEWAY_PORT,
  logger,
  onClose: async () => {
    await redis?.quit().catch(() => undefined);
  },
});
logger.info(
  {
    address,
    query_api: config.QUERY_API_URL,
    metadata_api: config.METADATA_API_URL,
    oracle_price: config.ORACLE_PRICE_URL,
    rate_limit_per_minute: config.RATE_LIMIT_PER_MINUTE,
  },
  "gateway listening",
);
