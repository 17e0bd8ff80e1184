import { createDb } from "@tmi/db";
import { loadEnv } from "@tmi/shared/env";
import { createLogger } from "@tmi/shared/logger";
import { Worker } from "bullmq";
import { Redis } from "ioredis";
import { metadataEnvSchema } from "./env.js";
import { createFinalizeProcessor } from "./jobs/finalize.worker.js";

// Process entry of the metadata-api finalize worker (its own process; scales separately).
const env = loadEnv(metadataEnvSchema);
const logger = createLogger({ service: "metadata-worker", level: env.LOG_LEVEL });

const db = createDb({
  url: env.DATABASE_URL,
  applicationName: "tmi-metadata-worker",
  logger: {
    info: (message) => logger.info(message),
    warn: (message) => logger.warn(message),
    error: (message) => logger.warn(message),
  },
});
// BullMQ workers block on Redis: maxRetriesPerRequest must be null.
const connection = new Redis(env.REDIS_URL, { maxRetriesPerRequest: null });
const worker = new Worker("metadata-finalize", createFinalizeProcessor({ db, logger }), {
  connection,
  prefix: env.QUEUE_PREFIX,
  concurrency: 8,
});
worker.on("failed", (job, error) => {
  logger.info(
    { job_id: job?.id, attempt: job?.attemptsMade, reason: error.message },
    "finalize attempt failed; will retry",
  );
});
worker.on("error", (error) => logger.error({ err: error }, "worker error"));
worker.on("ready", () =>
  logger.info({ queue: "metadata-finalize", prefix: env.QUEUE_PREFIX }, "metadata worker ready"),
);

let closing = false;
async function shutdown(signal: string) {
  if (closing) process.exit(1);
  closing = true;
  logger.info({ signal, action: "shutdown" }, "shutting down");
  const timer = setTimeout(() => process.exit(1), 10_000);
  timer.unref();
  await worker.close();
  connection.disconnect();
  await db.$disconnect();
  process.exit(0);
}
process.once("SIGINT", () => void shutdown("SIGINT"));
process.once("SIGTERM", () => void shutdown("SIGTERM"));
