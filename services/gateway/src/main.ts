import { loadEnv } from "@tmi/shared/env";
import { serve } from "@tmi/shared/http";
import { createLogger } from "@tmi/shared/logger";
import type { FastifyInstance } from "fastify";
import pg from "pg";
import { createApiKeyResolver } from "./api-keys/api-keys.js";
import { buildApp, createRateLimitRedis, redisReady } from "./app.js";
import { gatewayEnvSchema } from "./config.js";

const config = loadEnv(gatewayEnvSchema);
const logger = createLogger({ service: "gateway", level: config.LOG_LEVEL });

const redis = config.RATE_LIMIT_PER_MINUTE > 0 ? createRateLimitRedis(config.REDIS_URL) : null;
redis?.on("error", (error) =>
  logger.warn({ err: error }, "redis error (rate limiting skipped while it lasts)"),
);
// Count from the first request when Redis is there; start anyway (unlimited until it is) when not.
if (redis && !(await redisReady(redis, 3000)))
  logger.warn("redis not ready at start: rate limiting skipped until it is");

// API keys: a small pool, used only by requests that send a key (answers cached API_KEY_CACHE_MS).
const keyDb = new pg.Pool({ connectionString: config.DATABASE_URL, max: 4, application_name: "tmi-gateway" });
keyDb.on("error", (error) => logger.warn({ err: error }, "api key database error"));
const apiKeys = createApiKeyResolver({ db: keyDb, cacheMs: config.API_KEY_CACHE_MS });

const app = buildApp({ logger, config, redis, apiKeys });
const address = await serve(app as unknown as FastifyInstance, {
  host: config.HOST,
  port: config.GATEWAY_PORT,
  logger,
  onClose: async () => {
    await redis?.quit().catch(() => undefined);
    await keyDb.end().catch(() => undefined);
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
