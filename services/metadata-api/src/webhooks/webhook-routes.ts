// The webhook routes (docs/api.md "Webhooks"): `/api/v1/webhooks`, each owned by the API key
// that created it. The key is resolved here, by its SHA-256 in `api_keys` (the same rule as the
// gateway's), on every request: metadata-api trusts no header set by the gateway, and a revoked
// key loses its webhooks' routes at once.
import { randomBytes } from "node:crypto";
import type { createPgPool } from "@tmi/db";
import { AppError } from "@tmi/shared/errors";
import { apiKeyOf, type HttpApp, hashApiKey } from "@tmi/shared/http";
import {
  createWebhookSchema,
  patchWebhookSchema,
  subscriptionProblem,
  type WebhookFilters,
  webhookDeliveriesQuerySchema,
  webhookIdParamsSchema,
} from "@tmi/shared/webhooks";
import type { FastifyRequest } from "fastify";
import { parseInput } from "../routes/parse-input.js";
import { type DeliveryQueue, eventIdOf } from "./webhook-dispatcher.js";
import { checkWebhookUrl, type WebhookUrlPolicy } from "./webhook-url.js";

type Pool = ReturnType<typeof createPgPool>;

/** What the webhook routes need. */
export interface WebhookRoutesDeps {
  pool: Pool;
  queue: DeliveryQueue;
  /** The SSRF guard of target URLs (WEBHOOK_ALLOW_PRIVATE relaxes it). */
  urlPolicy: WebhookUrlPolicy;
}

/** Most webhooks one API key may own. */
export const MAX_WEBHOOKS_PER_KEY = 100;

interface WebhookRow {
  id: string;
  url: string;
  events: string[];
  filters: Record<string, unknown>;
  enabled: boolean;
  disabled_reason: string | null;
  failing_since: Date | null;
  created_at: Date;
  updated_at: Date;
}

const COLUMNS = "id, url, events, filters, enabled, disabled_reason, failing_since, created_at, updated_at";

/** The wire Webhook (never its secret). */
function webhookOf(row: WebhookRow) {
  return {
    id: row.id,
    url: row.url,
    events: row.events,
    filters: row.filters,
    enabled: row.enabled,
    disabled_reason: row.disabled_reason,
    failing_since: row.failing_since?.toISOString() ?? null,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}

const idParams = webhookIdParamsSchema;
const pageQuery = webhookDeliveriesQuerySchema;

/**
 * Registers `POST|GET /api/v1/webhooks`, `GET|PATCH|DELETE /api/v1/webhooks/{id}`,
 * `POST /api/v1/webhooks/{id}/test` and `GET /api/v1/webhooks/{id}/deliveries`. Every route
 * answers 401 `invalid_api_key` without a valid key, 404 `not_found` for a webhook of another key,
 * 400 `invalid_request` for a bad body, id or query (a refused URL included).
 */
export function registerWebhookRoutes(app: HttpApp, deps: WebhookRoutesDeps): void {
  const { pool } = deps;

  async function owner(request: FastifyRequest): Promise<string> {
    const key = apiKeyOf(request.headers);
    if (key === undefined)
      throw new AppError("invalid_api_key", "webhooks need an API key (Authorization: Bearer)");
    const found = await pool.query<{ id: string }>(
      "SELECT id FROM api_keys WHERE key_hash = $1 AND revoked_at IS NULL",
      [hashApiKey(key)],
    );
    const row = found.rows[0];
    if (!row) throw new AppError("invalid_api_key", "the API key is unknown or revoked");
    return row.id;
  }

  async function owned(request: FastifyRequest): Promise<{ key: string; row: WebhookRow }> {
    const key = await owner(request);
    const { id } = parseInput(idParams, request.params);
    const found = await pool.query<WebhookRow>(
      `SELECT ${COLUMNS} FROM webhooks WHERE id = $1 AND api_key_id = $2`,
      [id, key],
    );
    const row = found.rows[0];
    if (!row) throw new AppError("not_found", `no webhook ${id}`);
    return { key, row };
  }

  app.post("/api/v1/webhooks", async (request, reply) => {
    const key = await owner(request);
    const body = parseInput(createWebhookSchema, request.body);
    const url = await checkWebhookUrl(body.url, deps.urlPolicy);
    const count = await pool.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM webhooks WHERE api_key_id = $1",
      [key],
    );
    if ((count.rows[0]?.n ?? 0) >= MAX_WEBHOOKS_PER_KEY)
      throw new AppError("invalid_request", `an API key owns at most ${MAX_WEBHOOKS_PER_KEY} webhooks`);
    const id = `wh_${randomBytes(8).toString("hex")}`;
    const secret = `whsec_${randomBytes(32).toString("base64")}`;
    const created = await pool.query<WebhookRow>(
      `INSERT INTO webhooks (id, api_key_id, url, events, filters, secret) VALUES ($1, $2, $3, $4, $5, $6)
       RETURNING ${COLUMNS}`,
      [id, key, url, body.events, JSON.stringify(body.filters), secret],
    );
    reply.code(201).header("cache-control", "no-store");
    return { ...webhookOf(created.rows[0]!), secret };
  });

  app.get("/api/v1/webhooks", async (request, reply) => {
    const key = await owner(request);
    const rows = await pool.query<WebhookRow>(
      `SELECT ${COLUMNS} FROM webhooks WHERE api_key_id = $1 ORDER BY created_at, id`,
      [key],
    );
    reply.header("cache-control", "no-store");
    return { items: rows.rows.map(webhookOf) };
  });

  app.get("/api/v1/webhooks/:id", async (request, reply) => {
    const { row } = await owned(request);
    reply.header("cache-control", "no-store");
    return webhookOf(row);
  });

  app.patch("/api/v1/webhooks/:id", async (request, reply) => {
    const { row } = await owned(request);
    const body = parseInput(patchWebhookSchema, request.body);
    const problem = subscriptionProblem({
      events: body.events ?? row.events,
      filters: body.filters ?? (row.filters as WebhookFilters),
    });
    if (problem) throw new AppError("invalid_request", `${problem.path}: ${problem.message}`);
    const url = body.url === undefined ? row.url : await checkWebhookUrl(body.url, deps.urlPolicy);
    // Enabling again clears the reason and the failure clock.
    const updated = await pool.query<WebhookRow>(
      `UPDATE webhooks SET url = $2, events = coalesce($3, events), filters = coalesce($4::jsonb, filters),
         enabled = coalesce($5, enabled),
         disabled_reason = CASE WHEN $5 IS NULL THEN disabled_reason WHEN $5 THEN NULL ELSE 'disabled by its owner' END,
         failing_since = CASE WHEN $5 THEN NULL ELSE failing_since END, updated_at = now()
       WHERE id = $1 RETURNING ${COLUMNS}`,
      [
        row.id,
        url,
        body.events ?? null,
        body.filters === undefined ? null : JSON.stringify(body.filters),
        body.enabled ?? null,
      ],
    );
    reply.header("cache-control", "no-store");
    return webhookOf(updated.rows[0]!);
  });

  app.delete("/api/v1/webhooks/:id", async (request, reply) => {
    const { row } = await owned(request);
    await pool.query("DELETE FROM webhooks WHERE id = $1", [row.id]);
    reply.code(204);
  });

  app.post("/api/v1/webhooks/:id/test", async (request, reply) => {
    const { row } = await owned(request);
    const created = await pool.query<{ event: bigint; delivery: bigint }>(
      `WITH e AS (INSERT INTO webhook_outbox (type, subject, payload, dispatched)
                  VALUES ('webhook.test', 'test:' || $1, jsonb_build_object('webhook_id', $1::text), true) RETURNING id)
       INSERT INTO webhook_deliveries (webhook_id, event_id, next_attempt_at)
       SELECT $1, id, now() FROM e RETURNING event_id AS event, id AS delivery`,
      [row.id],
    );
    const { event, delivery } = created.rows[0]!;
    // A lost enqueue is made up by the dispatcher's reconciler (the delivery is recorded).
    await deps.queue
      .enqueue(delivery, 0)
      .catch((error) => request.log.warn({ err: error }, "test delivery not queued"));
    reply.code(202).header("cache-control", "no-store");
    return { event_id: eventIdOf(event), delivery_id: String(delivery) };
  });

  app.get("/api/v1/webhooks/:id/deliveries", async (request, reply) => {
    const { row } = await owned(request);
    const q = parseInput(pageQuery, request.query);
    const rows = await pool.query<{
      id: bigint;
      event_id: bigint;
      type: string;
      status: string;
      attempts: number;
      last_status: number | null;
      last_error: string | null;
      next_attempt_at: Date | null;
      created_at: Date;
      delivered_at: Date | null;
    }>(
      `SELECT d.id, d.event_id, o.type, d.status, d.attempts, d.last_status, d.last_error, d.next_attempt_at,
              d.created_at, d.delivered_at
       FROM webhook_deliveries d JOIN webhook_outbox o ON o.id = d.event_id
       WHERE d.webhook_id = $1 AND ($2::bigint IS NULL OR d.id < $2) ORDER BY d.id DESC LIMIT $3`,
      [row.id, q.cursor ?? null, q.limit + 1],
    );
    const page = rows.rows.slice(0, q.limit);
    reply.header("cache-control", "no-store");
    return {
      items: page.map((d) => ({
        id: String(d.id),
        event_id: eventIdOf(d.event_id),
        type: d.type,
        status: d.status,
        attempts: d.attempts,
        last_status: d.last_status,
        last_error: d.last_error,
        next_attempt_at: d.next_attempt_at?.toISOString() ?? null,
        created_at: d.created_at.toISOString(),
        delivered_at: d.delivered_at?.toISOString() ?? null,
      })),
      next_cursor: rows.rows.length > q.limit ? String(page[page.length - 1]!.id) : null,
    };
  });
}
