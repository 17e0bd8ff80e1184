// Prometheus metrics of the webhook dispatcher (docs/operations.md "Webhook dispatcher"), served
// by the metadata worker on `/metrics` (WORKER_METRICS_PORT): attempts by outcome, the latency
// of delivered events, and the queue depths read at scrape time from PostgreSQL (the record) and
// from the BullMQ queue (the timers).
import type { createPgPool } from "@tmi/db";
import { Queue } from "bullmq";
import type { Redis } from "ioredis";
import { Counter, Gauge, Histogram, type Registry } from "prom-client";
import type { AttemptOutcome } from "./webhook-dispatcher.js";
import { WEBHOOK_QUEUE } from "./webhook-dispatcher.js";

type Pool = ReturnType<typeof createPgPool>;

/** What the dispatcher reports as it works (see {@link createWebhookMetrics}). */
export interface DispatcherMetrics {
  /** One delivery attempt finished with `outcome` (`skipped`: not pending any more, not counted). */
  attempted(outcome: AttemptOutcome): void;
  /**
   * A delivery succeeded: `insertedAt` is its outbox row's insert (the indexed rows' commit),
   * `blockTimestamp` the Unix seconds of the event's block when it has one.
   */
  delivered(type: string, insertedAt: Date, blockTimestamp: number | undefined): void;
}

/** Buckets of the latency histograms (seconds): sub-second to the 2 h backoff cap. */
const LATENCY_BUCKETS = [0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60, 300, 1800, 7200];

/**
 * Registers on `registry`: `webhook_delivery_attempts_total{outcome}` (delivered, retry = a failed
 * attempt to be retried, failed = given up: 410, disabled, failing too long),
 * `webhook_delivery_latency_seconds{type}` (outbox insert → 2xx) and
 * `webhook_block_delivery_latency_seconds{type}` (the event's block timestamp → 2xx: includes the
 * indexer's lag; events with a block only), and the gauges read at each scrape:
 * `webhook_outbox_pending` (events not fanned out yet), `webhook_deliveries_pending` and
 * `webhook_deliveries_due` (pending deliveries, and those whose attempt time has passed), and
 * `webhook_queue_jobs{state}` (BullMQ jobs waiting, delayed, active). The gauges are global
 * (every replica reports the same values: aggregate them with max, not sum).
 * @param connection ioredis of the BullMQ queue (`prefix` its key prefix).
 */
export function createWebhookMetrics(options: {
  registry: Registry;
  pool: Pool;
  connection: Redis;
  prefix: string;
}): DispatcherMetrics & { close(): Promise<void> } {
  const { registry, pool } = options;
  const registers = [registry];
  const attempts = new Counter({
    name: "webhook_delivery_attempts_total",
    help: "Webhook delivery attempts by outcome (delivered, retry: failed and rescheduled, failed: given up)",
    labelNames: ["outcome"],
    registers,
  });
  for (const outcome of ["delivered", "retry", "failed"]) attempts.inc({ outcome }, 0);
  const latency = new Histogram({
    name: "webhook_delivery_latency_seconds",
    help: "Seconds from the event's outbox insert (the indexed rows' commit) to its delivery (2xx)",
    labelNames: ["type"],
    buckets: LATENCY_BUCKETS,
    registers,
  });
  const blockLatency = new Histogram({
    name: "webhook_block_delivery_latency_seconds",
    help: "Seconds from the event's block timestamp to its delivery (2xx), events with a block only",
    labelNames: ["type"],
    buckets: LATENCY_BUCKETS,
    registers,
  });
  const count = async (where: string) => {
    const result = await pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${where}`);
    return result.rows[0]?.n ?? 0;
  };
  for (const [name, help, where] of [
    [
      "webhook_outbox_pending",
      "Outbox events not fanned out into deliveries yet",
      "webhook_outbox WHERE NOT dispatched",
    ],
    [
      "webhook_deliveries_pending",
      "Deliveries not delivered nor given up yet",
      "webhook_deliveries WHERE status = 'pending'",
    ],
    [
      "webhook_deliveries_due",
      "Pending deliveries whose next attempt time has passed (the backlog)",
      "webhook_deliveries WHERE status = 'pending' AND next_attempt_at <= now()",
    ],
  ] as const)
    new Gauge({
      name,
      help,
      registers,
      async collect() {
        this.set(await count(where));
      },
    });
  const queue = new Queue(WEBHOOK_QUEUE, { connection: options.connection, prefix: options.prefix });
  new Gauge({
    name: "webhook_queue_jobs",
    help: "BullMQ jobs of the delivery queue by state",
    labelNames: ["state"],
    registers,
    async collect() {
      const jobs = await queue.getJobCounts("waiting", "delayed", "active");
      for (const state of ["waiting", "delayed", "active"]) this.set({ state }, jobs[state] ?? 0);
    },
  });
  return {
    attempted(outcome) {
      if (outcome !== "skipped") attempts.inc({ outcome });
    },
    delivered(type, insertedAt, blockTimestamp) {
      const now = Date.now();
      latency.observe({ type }, Math.max(0, (now - insertedAt.getTime()) / 1000));
      if (blockTimestamp !== undefined)
        blockLatency.observe({ type }, Math.max(0, now / 1000 - blockTimestamp));
    },
    close: () => queue.close(),
  };
}
