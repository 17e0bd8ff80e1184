import { join } from "node:path";
import { createPgPool } from "@tmi/db";
import { erc20Abi } from "@tmi/shared/chain";
import { loadEnv } from "@tmi/shared/env";
import { serve } from "@tmi/shared/http";
import { createLogger } from "@tmi/shared/logger";
import type { FastifyInstance } from "fastify";
import { Redis } from "ioredis";
import { createPublicClient, http, TransactionReceiptNotFoundError } from "viem";
import { buildApp } from "./app.js";
import { createMetadataDb } from "./db.js";
import { metadataEnvSchema, resolveFactoryAddress, workspacePath } from "./env.js";
import { createChainSignatureVerifier } from "./finalize/wallet-signature.js";
import { createImageFetcher } from "./images/image-fetcher.js";
import { createJobProducer } from "./jobs/job-catalog.js";
import { checkRedisPersistence } from "./jobs/redis-persistence.js";
import { createStorage } from "./storage/create-storage.js";
import { createDeliveryQueue } from "./webhooks/webhook-dispatcher.js";
import { webhookAddressPolicy } from "./webhooks/webhook-url.js";

// Process entry of the metadata-api server: config, logger, dependencies, listen, shutdown.
const env = loadEnv(metadataEnvSchema);
const logger = createLogger({ service: "metadata-api", level: env.LOG_LEVEL });

async function start() {
  const factory = resolveFactoryAddress(env);
  const chain = createPublicClient({
    transport: http(env.RPC_URL, { retryCount: 1, timeout: 10_000 }),
    cacheTime: 0,
  });
  const rpcChainId = await chain.getChainId();
  if (rpcChainId !== env.CHAIN_ID) {
    throw new Error(`RPC_URL serves chain ${rpcChainId}, but CHAIN_ID is ${env.CHAIN_ID}`);
  }
  const db = createMetadataDb(env.DATABASE_URL, "tmi-metadata-api", logger);
  const storage = await createStorage(env);
  const redis = new Redis(env.REDIS_URL, { maxRetriesPerRequest: 3, lazyConnect: false });
  await checkRedisPersistence(redis, {
    production: env.NODE_ENV === "production",
    requireAof: env.REDIS_REQUIRE_AOF,
    logger,
    service: "metadata-api",
  });
  const jobs = createJobProducer(redis, env.QUEUE_PREFIX);
  const fetcher = createImageFetcher({
    timeoutMs: env.IMAGE_FETCH_TIMEOUT_MS,
    maxBytes: env.IMAGE_MAX_BYTES,
  });
  const pool = createPgPool({ url: env.DATABASE_URL, max: 4, applicationName: "tmi-metadata-api" });
  const webhookQueue = createDeliveryQueue(redis, env.QUEUE_PREFIX);
  const app = await buildApp({
    logger,
    webhooks: {
      pool,
      queue: webhookQueue,
      urlPolicy: { policy: webhookAddressPolicy(env.WEBHOOK_ALLOW_PRIVATE) },
    },
    db,
    storage,
    fetcher,
    jobs,
    chainId: env.CHAIN_ID,
    factory,
    spoolDir: env.SPOOL_DIR
      ? workspacePath(env.SPOOL_DIR)
      : join(workspacePath(env.STORAGE_DIR), "..", "spool"),
    imageMaxBytes: env.IMAGE_MAX_BYTES,
    imageMaxPixels: env.IMAGE_MAX_PIXELS,
    rewardTreeMaxLeaves: env.REWARD_TREE_MAX_LEAVES,
    receipts: {
      async getReceipt(hash) {
        try {
          return await chain.getTransactionReceipt({ hash });
        } catch (error) {
          if (error instanceof TransactionReceiptNotFoundError) return null;
          throw error;
        }
      },
      verifyMessage: createChainSignatureVerifier(chain, { gas: BigInt(env.SIGNATURE_VERIFY_GAS) }),
      async getTokenNames(token) {
        try {
          const [name, symbol] = await Promise.all([
            chain.readContract({ address: token, abi: erc20Abi, functionName: "name" }),
            chain.readContract({ address: token, abi: erc20Abi, functionName: "symbol" }),
          ]);
          return { name, symbol };
        } catch {
          return null;
        }
      },
    },
  });
  const address = await serve(app as unknown as FastifyInstance, {
    host: env.HOST,
    port: env.PORT,
    logger,
    onClose: async () => {
      await fetcher.close();
      await jobs.close();
      await webhookQueue.close();
      redis.disconnect();
      await pool.end();
      await storage.close();
      await db.$disconnect();
    },
  });
  logger.info(
    { address, storage: env.STORAGE_DRIVER, chain_id: env.CHAIN_ID, factory },
    "metadata-api listening",
  );
}

start().catch((error) => {
  logger.fatal({ err: error }, "metadata-api failed to start");
  process.exit(1);
});
