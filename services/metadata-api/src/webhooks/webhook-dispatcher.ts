// The webhook dispatcher (docs/api.md "Webhooks", docs/operations.md): fans the outbox out into
// deliveries, delivers them through BullMQ with Standard Webhooks signatures, and re-enqueues
// from PostgreSQL whatever Redis lost. PostgreSQL is the record (outbox and deliveries); Redis only
// holds the timers of the next attempts.
import type { createPgPool } from "@tmi/db";
import type { Logger } from "@tmi/shared/logger";
import { Queue, Worker } from "bullmq";
import type { Redis } from "ioredis";
import { Webhook } from "standardwebhooks";
import { request } from "undici";
import type { AddressPolicy } from "../net/address-policy.js";
import { createGuardedAgent, type Resolver } from "../net/guarded-agent.js";
import type { DispatcherMetrics } from "./webhook-metrics.js";
import { matchesSubscription, type OutboxEventType, type WebhookFilters } from "./webhook-model.js";

type Pool = ReturnType<typeof createPgPool>;

/** BullMQ queue of delivery attempts (one job per attempt, id `d<delivery>-a<attempt>`). */
export const WEBHOOK_QUEUE = "webhook-deliveries";

/** The wire id of outbox event `id` (`webhook-id`, the deduplication key). */
export function eventIdOf(id: bigint | string | number): string {
  return `evt_${id}`;
}

/** Settings of the dispatcher (docs/operations.md; README config table `WEBHOOK_*`). */
export interface DispatcherSettings {
  /** Whole-request timeout of a delivery (WEBHOOK_TIMEOUT_MS, 10 s). */
  timeoutMs: number;
  /** Delay before the 2nd attempt; doubles per attempt (WEBHOOK_BACKOFF_BASE_MS, 2 s: 3rd attempt 6 s after the 1st). */
  backoffBaseMs: number;
  /** Longest delay between attempts (WEBHOOK_BACKOFF_MAX_MS, 2 h). */
  backoffMaxMs: number;
  /** A subscription failing without a success for this long is disabled (WEBHOOK_DISABLE_AFTER_MS, 24 h). */
  disableAfterMs: number;
  /** Concurrent deliveries per dispatcher process (WEBHOOK_CONCURRENCY, 32). */
  concurrency: number;
  /** Pause between outbox polls when idle (WEBHOOK_POLL_MS, 200 ms). */
  pollMs: number;
  /** Period of the re-enqueue of due deliveries from PostgreSQL (WEBHOOK_RECONCILE_MS, 5 s). */
  reconcileMs: number;
  /** Dispatched events are kept this long (WEBHOOK_RETENTION_DAYS, 7). */
  retentionDays: number;
}

/** Defaults of {@link DispatcherSettings}. */
export const DEFAULT_DISPATCHER_SETTINGS: DispatcherSettings = {
  timeoutMs: 10_000,
  backoffBaseMs: 2_000,
  backoffMaxMs: 2 * 3600_000,
  disableAfterMs: 24 * 3600_000,
  concurrency: 32,
  pollMs: 200,
  reconcileMs: 5_000,
  retentionDays: 7,
};

/** Delay before attempt `attempt + 1` after `attempt` failed attempts (exponential, capped). */
export function backoffDelayMs(
  attempt: number,
  settings: Pick<DispatcherSettings, "backoffBaseMs" | "backoffMaxMs">,
): number {
  return Math.min(settings.backoffMaxMs, settings.backoffBaseMs * 2 ** Math.max(0, attempt - 1));
}

/** Where deliveries may connect (the SSRF guard) and with which trust. */
export interface DeliveryNetwork {
  policy: AddressPolicy;
  resolver?: Resolver;
  /** Extra trusted CA certificates (tests' HTTPS receivers). */
  ca?: string | Buffer;
}

/** Enqueues delivery attempts (routes' `POST /{id}/test`, the fan-out, the reconciler). */
export interface DeliveryQueue {
  /** Adds the job of attempt `attempts + 1` of delivery `id`, after `delayMs`; a repeat is a no-op. */
  enqueue(id: bigint | string, attempts: number, delayMs?: number): Promise<void>;
  /** The first attempt of each delivery in `ids`, in one round trip (the fan-out). */
  enqueueFirst(ids: readonly (bigint | string)[]): Promise<void>;
  close(): Promise<void>;
}

/** The producer side of {@link WEBHOOK_QUEUE} on `connection` with BullMQ `prefix`. */
export function createDeliveryQueue(connection: Redis, prefix: string): DeliveryQueue {
  const queue = new Queue(WEBHOOK_QUEUE, { connection, prefix });
  const job = (id: bigint | string, attempts: number, delayMs: number) => ({
    name: "deliver",
    data: { delivery: String(id), attempts },
    opts: {
      jobId: `d${id}-a${attempts}`,
      delay: Math.max(0, delayMs),
      removeOnComplete: true,
      removeOnFail: true,
    },
  });
  return {
    async enqueue(id, attempts, delayMs = 0) {
      const { name, data, opts } = job(id, attempts, delayMs);
      await queue.add(name, data, opts);
    },
    async enqueueFirst(ids) {
      for (let i = 0; i < ids.length; i += 1000)
        await queue.addBulk(ids.slice(i, i + 1000).map((id) => job(id, 0, 0)));
    },
    close: () => queue.close(),
  };
}

interface OutboxRow {
  id: bigint;
  type: OutboxEventType;
  payload: Record<string, unknown>;
}

interface SubscriptionRow {
  id: string;
  events: string[];
  filters: WebhookFilters;
}

/**
 * Claims up to `limit` outbox events not fanned out yet (in id order, `FOR UPDATE SKIP LOCKED`:
 * several dispatchers share the work), adds each trade's `reserve_amount_usd` (the ETH/USD answer
 * in force at the trade, as the REST Trade), writes one `pending` delivery per matching enabled
 * subscription and marks the events dispatched, in one transaction. Returns the deliveries
 * created (to enqueue) and the number of events claimed.
 */
export async function fanOut(pool: Pool, limit: number): Promise<{ events: number; deliveries: bigint[] }> {
  const client = await pool.connect();
  try {
    await client.query("BEGIN");
    const claimed = await client.query<OutboxRow>(
      `WITH c AS (SELECT id FROM webhook_outbox WHERE NOT dispatched ORDER BY id LIMIT $1 FOR UPDATE SKIP LOCKED)
       SELECT o.id, o.type,
         CASE WHEN o.type IN ('trade', 'trade.removed') THEN o.payload || jsonb_build_object('reserve_amount_usd',
           trim_scale((o.payload->>'reserve_amount')::numeric * (SELECT a.answer FROM eth_usd_answers a
             WHERE (a.block_number, a.log_index) <= ((o.payload->>'block_number')::bigint, (o.payload->>'log_index')::int)
               AND a.answer > 0 ORDER BY a.block_number DESC, a.log_index DESC LIMIT 1) * '1e-26'::numeric)::text)
         ELSE o.payload END AS payload
       FROM webhook_outbox o JOIN c ON c.id = o.id ORDER BY o.id`,
      [limit],
    );
    if (claimed.rows.length === 0) {
      await client.query("COMMIT");
      return { events: 0, deliveries: [] };
    }
    const subs = await client.query<SubscriptionRow>(
      "SELECT id, events, filters FROM webhooks WHERE enabled",
    );
    const webhookIds: string[] = [];
    const eventIds: string[] = [];
    for (const event of claimed.rows) {
      for (const sub of subs.rows) {
        if (matchesSubscription(event, sub)) {
          webhookIds.push(sub.id);
          eventIds.push(String(event.id));
        }
      }
    }
    const ids = claimed.rows.map((r) => String(r.id));
    // The USD value is part of the delivered Trade: stored with the event.
    await client.query(
      `UPDATE webhook_outbox o SET dispatched = true, payload = d.payload
       FROM unnest($1::bigint[], $2::jsonb[]) AS d(id, payload) WHERE o.id = d.id`,
      [ids, claimed.rows.map((r) => JSON.stringify(r.payload))],
    );
    const created = await client.query<{ id: bigint }>(
      `INSERT INTO webhook_deliveries (webhook_id, event_id, next_attempt_at)
       SELECT w, e, now() FROM unnest($1::text[], $2::bigint[]) AS d(w, e)
       ON CONFLICT (webhook_id, event_id) DO NOTHING RETURNING id`,
      [webhookIds, eventIds],
    );
    await client.query("COMMIT");
    return { events: claimed.rows.length, deliveries: created.rows.map((r) => r.id) };
  } catch (error) {
    await client.query("ROLLBACK").catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
}

/** The outcome of one attempt. */
export type AttemptOutcome = "delivered" | "retry" | "failed" | "skipped";

/** The delivery side: attempts one delivery; used by the BullMQ worker. */
export interface DeliveryAttempter {
  /**
   * Attempt `attempts + 1` of delivery `id`: leased (one sender at a time; a lease left by a
   * crash expires), sent as `POST` with the Standard Webhooks headers over the SSRF-guarded agent,
   * recorded in `webhook_deliveries`; a failure schedules the next attempt (returned `retry`) or,
   * on `410 Gone` or after failing `disableAfterMs`, disables the subscription with a reason.
   * `skipped`: not pending at that attempt any more (done elsewhere, or a stale job).
   */
  attempt(id: string, attempts: number): Promise<AttemptOutcome>;
  close(): Promise<void>;
}

/** Creates the {@link DeliveryAttempter} (one guarded HTTP agent). */
export function createDeliveryAttempter(options: {
  pool: Pool;
  queue: DeliveryQueue;
  network: DeliveryNetwork;
  settings: DispatcherSettings;
  logger: Logger;
  /** Latency of each success (webhook-metrics.ts); absent: not measured. */
  metrics?: Pick<DispatcherMetrics, "delivered">;
}): DeliveryAttempter {
  const { pool, queue, settings, logger } = options;
  const agent = createGuardedAgent({
    policy: options.network.policy,
    resolver: options.network.resolver,
    timeoutMs: settings.timeoutMs,
    ...(options.network.ca ? { ca: options.network.ca } : {}),
  });
  const leaseMs = settings.timeoutMs * 3;

  async function send(url: string, secret: string, id: string, body: string): Promise<number> {
    const now = new Date();
    const signature = new Webhook(secret).sign(id, now, body);
    const response = await request(url, {
      dispatcher: agent,
      method: "POST",
      body,
      headers: {
        "content-type": "application/json",
        "user-agent": "tmi-webhooks",
        "webhook-id": id,
        "webhook-timestamp": String(Math.floor(now.getTime() / 1000)),
        "webhook-signature": signature,
      },
      signal: AbortSignal.timeout(settings.timeoutMs),
      headersTimeout: settings.timeoutMs,
      bodyTimeout: settings.timeoutMs,
    });
    await response.body.dump({ limit: 64 * 1024 }).catch(() => undefined);
    return response.statusCode;
  }

  return {
    async attempt(id, attempts) {
      const leased = await pool.query<{
        event_id: bigint;
        url: string;
        secret: string;
        enabled: boolean;
        type: string;
        payload: Record<string, unknown>;
        created_at: Date;
        webhook_id: string;
      }>(
        `UPDATE webhook_deliveries d SET lease_until = now() + make_interval(secs => $3::int / 1000.0)
         FROM webhooks w, webhook_outbox o
         WHERE d.id = $1 AND d.status = 'pending' AND d.attempts = $2
           AND (d.lease_until IS NULL OR d.lease_until < now())
           AND w.id = d.webhook_id AND o.id = d.event_id
         RETURNING d.event_id, d.webhook_id, w.url, w.secret, w.enabled, o.type, o.payload, o.created_at`,
        [id, attempts, leaseMs],
      );
      const row = leased.rows[0];
      if (!row) return "skipped";
      if (!row.enabled) {
        await pool.query(
          `UPDATE webhook_deliveries SET status = 'failed', last_error = 'the webhook is disabled',
             next_attempt_at = NULL, lease_until = NULL WHERE id = $1`,
          [id],
        );
        return "failed";
      }
      const eventId = eventIdOf(row.event_id);
      const body = JSON.stringify({
        id: eventId,
        type: row.type,
        timestamp: row.created_at.toISOString(),
        data: row.payload,
      });
      let status: number | null = null;
      let error: string | null = null;
      try {
        status = await send(row.url, row.secret, eventId, body);
      } catch (e) {
        error =
          (e as Error).name === "TimeoutError"
            ? "timed out"
            : String((e as Error).message ?? e).slice(0, 300);
      }
      if (status !== null && status >= 200 && status < 300) {
        await pool.query(
          `WITH d AS (UPDATE webhook_deliveries SET status = 'delivered', attempts = attempts + 1, last_status = $2,
             last_error = NULL, delivered_at = now(), next_attempt_at = NULL, lease_until = NULL WHERE id = $1)
           UPDATE webhooks SET failing_since = NULL WHERE id = $3 AND failing_since IS NOT NULL`,
          [id, status, row.webhook_id],
        );
        const block = row.payload.block_timestamp;
        options.metrics?.delivered(row.type, row.created_at, typeof block === "number" ? block : undefined);
        return "delivered";
      }
      const reason = status !== null ? `HTTP ${status}` : (error ?? "failed");
      if (status === 410) {
        await pool.query(
          `WITH d AS (UPDATE webhook_deliveries SET status = 'failed', attempts = attempts + 1, last_status = 410,
             last_error = 'the endpoint answered 410 Gone', next_attempt_at = NULL, lease_until = NULL WHERE id = $1)
           UPDATE webhooks SET enabled = false, disabled_reason = 'the endpoint answered 410 Gone', updated_at = now()
           WHERE id = $2`,
          [id, row.webhook_id],
        );
        logger.info({ webhook: row.webhook_id, action: "webhook_disabled" }, "webhook disabled: 410 Gone");
        return "failed";
      }
      const delay = backoffDelayMs(attempts + 1, settings);
      const result = await pool.query<{ disabled: boolean }>(
        `WITH w AS (
           UPDATE webhooks SET failing_since = coalesce(failing_since, now()),
             enabled = CASE WHEN coalesce(failing_since, now()) <= now() - make_interval(secs => $5::bigint / 1000.0) THEN false ELSE enabled END,
             disabled_reason = CASE WHEN coalesce(failing_since, now()) <= now() - make_interval(secs => $5::bigint / 1000.0)
               THEN 'failing since ' || to_char(coalesce(failing_since, now()) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') || ' (last: ' || $4 || ')'
               ELSE disabled_reason END
           WHERE id = $6 RETURNING NOT enabled AS disabled)
         UPDATE webhook_deliveries d SET attempts = attempts + 1, last_status = $2, last_error = $4, lease_until = NULL,
           status = CASE WHEN (SELECT disabled FROM w) THEN 'failed' ELSE 'pending' END,
           next_attempt_at = CASE WHEN (SELECT disabled FROM w) THEN NULL ELSE now() + make_interval(secs => $3::bigint / 1000.0) END
         WHERE d.id = $1 RETURNING (SELECT disabled FROM w) AS disabled`,
        [id, status, delay, reason, settings.disableAfterMs, row.webhook_id],
      );
      if (result.rows[0]?.disabled) {
        logger.info(
          { webhook: row.webhook_id, action: "webhook_disabled", reason },
          "webhook disabled: failing",
        );
        return "failed";
      }
      await queue.enqueue(id, attempts + 1, delay);
      return "retry";
    },
    close: () => agent.close(),
  };
}

/**
 * Re-enqueues every pending delivery that is due (its next attempt's time passed by more than
 * `graceMs`) and not leased: after a Redis wipe, a dispatcher crash between the fan-out's commit
 * and the enqueue, or a lost job. An attempt whose job is still queued is not duplicated (same job
 * id). Also drops dispatched events older than `retentionDays`. Returns how many were enqueued.
 */
export async function reconcile(
  pool: Pool,
  queue: DeliveryQueue,
  options: { graceMs: number; retentionDays: number; limit?: number },
): Promise<number> {
  const due = await pool.query<{ id: bigint; attempts: number }>(
    `SELECT id, attempts FROM webhook_deliveries
     WHERE status = 'pending' AND next_attempt_at <= now() - make_interval(secs => $1::int / 1000.0)
       AND (lease_until IS NULL OR lease_until < now())
     ORDER BY next_attempt_at LIMIT $2`,
    [options.graceMs, options.limit ?? 1000],
  );
  for (const d of due.rows) await queue.enqueue(d.id, d.attempts);
  await pool.query(
    `DELETE FROM webhook_outbox WHERE dispatched AND created_at < now() - make_interval(days => $1::int)
       AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.event_id = webhook_outbox.id AND d.status = 'pending')`,
    [options.retentionDays],
  );
  return due.rows.length;
}

/** A running dispatcher (fan-out loop, BullMQ worker, reconciler). */
export interface WebhookDispatcher {
  /** Resolves once the BullMQ worker is connected. */
  ready(): Promise<void>;
  close(): Promise<void>;
}

/**
 * Starts a dispatcher in this process: a loop that fans out the outbox (polling every
 * `pollMs` while idle, at once while there is more), a BullMQ worker of {@link WEBHOOK_QUEUE}
 * (`concurrency` deliveries at a time), and the reconciler every `reconcileMs`. Several
 * dispatchers (processes) may run: the outbox claim and the delivery lease keep their work apart.
 * @param connection ioredis with `maxRetriesPerRequest: null` (a BullMQ worker blocks on it).
 */
export function startWebhookDispatcher(options: {
  pool: Pool;
  connection: Redis;
  prefix: string;
  network: DeliveryNetwork;
  settings?: Partial<DispatcherSettings>;
  logger: Logger;
  /** Attempts and latencies are reported here (webhook-metrics.ts); absent: not measured. */
  metrics?: DispatcherMetrics;
}): WebhookDispatcher {
  const settings = { ...DEFAULT_DISPATCHER_SETTINGS, ...options.settings };
  const { pool, logger, metrics } = options;
  const queue = createDeliveryQueue(options.connection, options.prefix);
  const attempter = createDeliveryAttempter({
    pool,
    queue,
    network: options.network,
    settings,
    logger,
    ...(metrics ? { metrics } : {}),
  });
  // The worker's own connection (it blocks on Redis), closed with it: BullMQ leaves a given one open.
  const workerConnection = options.connection.duplicate();
  const worker = new Worker<{ delivery: string; attempts: number }>(
    WEBHOOK_QUEUE,
    async (job) => {
      // Not inside `metrics?.attempted(...)`: without metrics that would skip the attempt itself.
      const outcome = await attempter.attempt(job.data.delivery, job.data.attempts);
      metrics?.attempted(outcome);
    },
    { connection: workerConnection, prefix: options.prefix, concurrency: settings.concurrency },
  );
  worker.on("error", (error) => logger.warn({ err: error }, "webhook worker error"));
  // An attempt that threw (the database, a bug) is retried by the reconciler; say why.
  worker.on("failed", (job, error) =>
    logger.warn(
      { err: error, delivery: job?.data.delivery, action: "webhook_attempt" },
      "delivery attempt threw",
    ),
  );
  let closing = false;
  let fanTimer: NodeJS.Timeout | null = null;
  let reconcileTimer: NodeJS.Timeout | null = null;
  let running: Promise<unknown> = Promise.resolve();

  const fanTick = () => {
    running = fanOut(pool, 500)
      .then(async ({ events, deliveries }) => {
        await queue.enqueueFirst(deliveries);
        return events;
      })
      .catch((error) => {
        logger.warn({ err: error, action: "webhook_fan_out" }, "fan-out failed; will retry");
        return 0;
      })
      .then((events) => {
        if (!closing) fanTimer = setTimeout(fanTick, events >= 500 ? 0 : settings.pollMs);
      });
  };
  let reconciling: Promise<unknown> = Promise.resolve();
  const reconcileTick = () => {
    reconciling = reconcile(pool, queue, {
      graceMs: settings.reconcileMs,
      retentionDays: settings.retentionDays,
    })
      .then((n) => {
        if (n > 0) logger.info({ action: "webhook_reconcile", requeued: n }, "due deliveries re-enqueued");
      })
      .catch((error) =>
        logger.warn({ err: error, action: "webhook_reconcile" }, "reconcile failed; will retry"),
      )
      .finally(() => {
        if (!closing) reconcileTimer = setTimeout(reconcileTick, settings.reconcileMs);
      });
  };
  fanTick();
  reconcileTimer = setTimeout(reconcileTick, settings.reconcileMs);

  return {
    ready: () => worker.waitUntilReady().then(() => undefined),
    async close() {
      closing = true;
      if (fanTimer) clearTimeout(fanTimer);
      if (reconcileTimer) clearTimeout(reconcileTimer);
      await running;
      await reconciling;
      await worker.close();
      workerConnection.disconnect();
      await queue.close();
      await attempter.close();
    },
  };
}
