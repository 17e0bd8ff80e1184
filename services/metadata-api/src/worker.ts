import { createPgPool } from "@tmi/db";
import { loadEnv } from "@tmi/shared/env";
import { createLogger } from "@tmi/shared/logger";
import { Worker } from "bullmq";
import { Redis } from "ioredis";
import { Registry } from "prom-client";
import { createMetadataDb } from "./db.js";
import { metadataEnvSchema } from "./env.js";
import { createFinalizeProcessor } from "./jobs/finalize.worker.js";
import { createJobProducer } from "./jobs/job-catalog.js";
import { createPendingSweep } from "./jobs/pending-sweep.js";
import { checkRedisPersistence } from "./jobs/redis-persistence.js";
import { startWebhookDispatcher, type WebhookDispatcher } from "./webhooks/webhook-dispatcher.js";
import { createWebhookMetrics } from "./webhooks/webhook-metrics.js";
import { webhookAddressPolicy } from "./webhooks/webhook-url.js";
import { buildWorkerApp } from "./worker-app.js";

// Process entry of the metadata-api finalize worker (its own process; scales separately): the
// BullMQ worker of `metadata-finalize`, the periodic sweep of pending drafts without a job, and
// the webhook dispatcher (WEBHOOK_DISPATCHER; docs/operations.md "Webhook dispatcher"), and with
// WORKER_METRICS_PORT its `/metrics`.
const env = loadEnv(metadataEnvSchema);
const logger = createLogger({ service: "metadata-worker", level: env.LOG_LEVEL });

const db = createMetadataDb(env.DATABASE_URL, "tmi-metadata-worker", logger);
// BullMQ workers block on Redis: maxRetriesPerRequest must be null.
const connection = new Redis(env.REDIS_URL, { maxRetriesPerRequest: null });
const jobs = createJobProducer(connection, env.QUEUE_PREFIX);
let worker: Worker | null = null;
let dispatcher: WebhookDispatcher | null = null;
// The dispatcher's deliveries each hold a connection for two short statements: sized with WEBHOOK_CONCURRENCY.
const pool = createPgPool({
  url: env.DATABASE_URL,
  max: Math.min(24, Math.ceil(env.WEBHOOK_CONCURRENCY / 2) + 2),
  applicationName: "tmi-metadata-worker",
});
const registry = new Registry();
const metrics = env.WEBHOOK_DISPATCHER
  ? createWebhookMetrics({ registry, pool, connection, prefix: env.QUEUE_PREFIX })
  : null;
const http = env.WORKER_METRICS_PORT > 0 ? buildWorkerApp({ logger, registry }) : null;
let sweepTimer: NodeJS.Timeout | null = null;
let sweeping: Promise<unknown> = Promise.resolve();
let closing = false;

async function start() {
  await checkRedisPersistence(connection, {
    production: env.NODE_ENV === "production",
    requireAof: env.REDIS_REQUIRE_AOF,
    logger,
    service: "metadata-worker",
  });
  worker = new Worker("metadata-finalize", createFinalizeProcessor({ db, logger }), {
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
  if (env.WEBHOOK_DISPATCHER) {
    dispatcher = startWebhookDispatcher({
      pool,
      connection,
      prefix: env.QUEUE_PREFIX,
      network: { policy: webhookAddressPolicy(env.WEBHOOK_ALLOW_PRIVATE) },
      settings: {
        timeoutMs: env.WEBHOOK_TIMEOUT_MS,
        backoffBaseMs: env.WEBHOOK_BACKOFF_BASE_MS,
        backoffMaxMs: env.WEBHOOK_BACKOFF_MAX_MS,
        disableAfterMs: env.WEBHOOK_DISABLE_AFTER_MS,
        concurrency: env.WEBHOOK_CONCURRENCY,
        pollMs: env.WEBHOOK_POLL_MS,
        reconcileMs: env.WEBHOOK_RECONCILE_MS,
        retentionDays: env.WEBHOOK_RETENTION_DAYS,
      },
      logger,
      ...(metrics ? { metrics } : {}),
    });
    await dispatcher.ready();
    logger.info({ queue: "webhook-deliveries", prefix: env.QUEUE_PREFIX }, "webhook dispatcher ready");
  }
  if (http) {
    const address = await http.listen({ host: env.HOST, port: env.WORKER_METRICS_PORT });
    logger.info({ address }, "worker metrics listening");
  }
  if (env.PENDING_SWEEP_INTERVAL_MS > 0) {
    const sweep = createPendingSweep({ db, jobs, logger });
    const tick = () => {
      sweeping = sweep()
        .then((result) => {
          if (result.requeued.length > 0 || result.promoted.length > 0)
            logger.info(
              {
                action: "sweep_pending",
                ...result,
                requeued: result.requeued.length,
                promoted: result.promoted.length,
              },
              "sweep done",
            );
        })
        .catch((error) => logger.warn({ err: error, action: "sweep_pending" }, "sweep failed; will retry"))
        .finally(() => {
          if (!closing) sweepTimer = setTimeout(tick, env.PENDING_SWEEP_INTERVAL_MS);
        });
    };
    tick();
  }
}

async function shutdown(signal: string) {
  if (closing) process.exit(1);
  closing = true;
  logger.info({ signal, action: "shutdown" }, "shutting down");
  const timer = setTimeout(() => process.exit(1), 10_000);
  timer.unref();
  if (sweepTimer) clearTimeout(sweepTimer);
  await sweeping;
  await worker?.close();
  await http?.close();
  await dispatcher?.close();
  await metrics?.close();
  await jobs.close();
  await pool.end();
  connection.disconnect();
  await db.$disconnect();
  process.exit(0);
}
process.once("SIGINT", () => void shutdown("SIGINT"));
process.once("SIGTERM", () => void shutdown("SIGTERM"));

start().catch((error) => {
  logger.fatal({ err: error }, "metadata worker failed to start");
  process.exit(1);
});
