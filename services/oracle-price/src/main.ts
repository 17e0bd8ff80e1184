import { loadEnv } from "@tmi/shared/env";
import { serve } from "@tmi/shared/http";
import { createLogger } from "@tmi/shared/logger";
import type { FastifyInstance } from "fastify";
import { buildApp } from "./app.js";
import { missingOracleSettings, oracleEnvSchema } from "./config.js";

const config = loadEnv(oracleEnvSchema);
const logger = createLogger({ service: "oracle-price", level: config.LOG_LEVEL });
const missing = missingOracleSettings(config);
if (missing.length > 0) {
  logger.warn({ missing }, "oracle settings missing: /api/v1/prices/eth-usd answers 503 oracle_unavailable");
}
const app = buildApp({ logger, config });
const address = await serve(app as unknown as FastifyInstance, {
  host: config.HOST,
  port: config.PORT,
  logger,
});
logger.info(
  {
    address,
    chain_id: config.ORACLE_CHAIN_ID,
    feed: config.ORACLE_ETH_USD_ADDRESS ?? null,
    sequencer_feed: config.ORACLE_SEQUENCER_UPTIME_ADDRESS ?? null,
    max_age_s: config.ORACLE_ETH_USD_MAX_AGE,
  },
  "oracle-price listening",
);
