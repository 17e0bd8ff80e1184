// The webhook routes' wire contract (docs/api.md "Webhooks"), in one place for the service that
// serves them (metadata-api validates its bodies with these schemas) and for the OpenAPI document
// (query-api documents the routes from the same schemas, so the typed client gets them too).
import { z } from "zod";

/**
 * Event types a subscription may ask for. `trade` also brings `trade.removed`, `token.launched`
 * brings `token.removed` and `token.progress` brings `token.progress.removed` (a reorg's
 * retractions carry the payload of what they retract, so the same filters let them through).
 */
export const WEBHOOK_EVENT_TYPES = [
  "trade",
  "token.launched",
  "token.graduated",
  "token.progress",
  "metadata.finalized",
] as const;

/** A subscribable event type. */
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

/** Most entries of `filters.tokens` and of `filters.wallets`. */
export const MAX_FILTER_ADDRESSES = 100;

/** Most thresholds in `filters.progress_bps`. */
export const MAX_PROGRESS_THRESHOLDS = 20;

const address = z
  .string()
  .regex(/^0x[0-9a-fA-F]{40}$/, "an address: 0x and 40 hex digits")
  .transform((a) => a.toLowerCase());
const addresses = z.array(address).min(1).max(MAX_FILTER_ADDRESSES);
const wei = z.string().regex(/^(0|[1-9][0-9]{0,77})$/, "an integer amount in wei, as a decimal string");
const usd = z.string().regex(/^(0|[1-9][0-9]{0,20})(\.[0-9]{1,18})?$/, "a USD amount as a decimal string");
const progressThresholds = z
  .array(z.number().int("a threshold in basis points: an integer").min(1).max(10_000))
  .min(1)
  .max(MAX_PROGRESS_THRESHOLDS)
  .refine((list) => new Set(list).size === list.length, "each threshold at most once")
  .transform((list) => [...list].sort((a, b) => a - b));

/**
 * Filters of a subscription (all optional; every given one must match): the event's token among
 * `tokens` (every type but `token.launched`); for `trade`, its trader among `wallets` (≤ 100
 * addresses each), its `side`, its `reserve_amount` (wei) ≥ `min_reserve_amount`, its
 * `reserve_amount_usd` ≥ `min_usd` (a trade without a USD value does not match `min_usd`).
 * `progress_bps`: the thresholds of `token.progress` (1–10000 bps, distinct, ≤ 20; stored
 * ascending), required with that event. Addresses are stored lower-case.
 */
export const webhookFiltersSchema = z
  .object({
    tokens: addresses.optional(),
    wallets: addresses.optional(),
    side: z.enum(["buy", "sell"]).optional(),
    min_reserve_amount: wei.optional(),
    min_usd: usd.optional(),
    progress_bps: progressThresholds.optional(),
  })
  .strict();

/** Parsed filters. */
export type WebhookFilters = z.output<typeof webhookFiltersSchema>;

/**
 * The rule across `events` and `filters` (checked on the created or patched result): a
 * `token.progress` subscription names its thresholds. Returns the problem, or null.
 */
export function subscriptionProblem(subscription: {
  events: readonly string[];
  filters: Pick<WebhookFilters, "progress_bps">;
}): { path: string; message: string } | null {
  if (subscription.events.includes("token.progress") && !subscription.filters.progress_bps)
    return { path: "filters.progress_bps", message: "required with the token.progress event" };
  return null;
}

const events = z.array(z.enum(WEBHOOK_EVENT_TYPES)).min(1).max(WEBHOOK_EVENT_TYPES.length);
const targetUrl = z
  .string()
  .min(1)
  .max(2048)
  .meta({ description: "http(s) URL receiving the signed POSTs; must resolve to a public address" });

/** Body of `POST /api/v1/webhooks`. */
export const createWebhookSchema = z
  .object({
    url: targetUrl,
    events,
    filters: webhookFiltersSchema.default({}),
  })
  .strict()
  .superRefine((body, ctx) => {
    const problem = subscriptionProblem(body);
    if (problem) ctx.addIssue({ code: "custom", path: problem.path.split("."), message: problem.message });
  });

/** Body of `PATCH /api/v1/webhooks/{id}` (at least one member; the result must satisfy {@link subscriptionProblem}). */
export const patchWebhookSchema = z
  .object({
    url: targetUrl.optional(),
    events: events.optional(),
    filters: webhookFiltersSchema.optional(),
    enabled: z
      .boolean()
      .optional()
      .meta({ description: "false disables; true re-enables (clears the reason)" }),
  })
  .strict()
  .refine((body) => Object.keys(body).length > 0, "give at least one of url, events, filters, enabled");

/** Path parameters of `/api/v1/webhooks/{id}` routes. */
export const webhookIdParamsSchema = z.object({
  id: z.string().regex(/^wh_[0-9a-f]{16}$/, "a webhook id"),
});

/** Query of `GET /api/v1/webhooks/{id}/deliveries`. */
export const webhookDeliveriesQuerySchema = z
  .object({
    limit: z.coerce.number().int().min(1).max(100).default(50),
    cursor: z
      .string()
      .regex(/^[0-9]{1,19}$/, "a cursor from next_cursor")
      .optional(),
  })
  .strict();

const isoTime = z.string().meta({ description: "ISO 8601 time (UTC)" });

/** Stored filters as answered (the wire form of {@link webhookFiltersSchema}'s output). */
export const webhookFiltersWireSchema = z
  .object({
    tokens: z.array(z.string()).optional(),
    wallets: z.array(z.string()).optional(),
    side: z.enum(["buy", "sell"]).optional(),
    min_reserve_amount: z.string().optional().meta({ description: "wei, decimal string" }),
    min_usd: z.string().optional().meta({ description: "USD, decimal string" }),
    progress_bps: z
      .array(z.number().int())
      .optional()
      .meta({ description: "token.progress thresholds, ascending" }),
  })
  .meta({ id: "WebhookFilters" });

const webhookFields = {
  id: z.string().meta({ description: "wh_ + 16 hex digits" }),
  url: z.string(),
  events: z.array(z.enum(WEBHOOK_EVENT_TYPES)),
  filters: webhookFiltersWireSchema,
  enabled: z.boolean(),
  disabled_reason: z
    .string()
    .nullable()
    .meta({ description: "why it was disabled (410 Gone, failing, its owner)" }),
  failing_since: isoTime.nullable().meta({ description: "first failure since the last success" }),
  created_at: isoTime,
  updated_at: isoTime,
};

/** A webhook as answered (never its secret). */
export const webhookWireSchema = z.object(webhookFields).meta({ id: "Webhook" });

/** `POST /api/v1/webhooks` (201): the webhook and its signing secret, shown this once. */
export const webhookCreatedWireSchema = z
  .object({
    ...webhookFields,
    secret: z.string().meta({ description: "Standard Webhooks secret: whsec_ + base64" }),
  })
  .meta({ id: "WebhookCreated" });

/** `GET /api/v1/webhooks` (200): the key's webhooks, oldest first. */
export const webhookListWireSchema = z
  .object({ items: z.array(webhookWireSchema) })
  .meta({ id: "WebhookList" });

/** One delivery of an event to a webhook. */
export const webhookDeliveryWireSchema = z
  .object({
    id: z.string().meta({ description: "delivery id (decimal)" }),
    event_id: z.string().meta({ description: "evt_<n>: the webhook-id header, the deduplication key" }),
    type: z.string().meta({ description: "event type, retractions and webhook.test included" }),
    status: z.enum(["pending", "delivered", "failed"]),
    attempts: z.number().int(),
    last_status: z.number().int().nullable().meta({ description: "HTTP status of the last attempt" }),
    last_error: z.string().nullable(),
    next_attempt_at: isoTime.nullable(),
    created_at: isoTime,
    delivered_at: isoTime.nullable(),
  })
  .meta({ id: "WebhookDelivery" });

/** `GET /api/v1/webhooks/{id}/deliveries` (200): newest first. */
export const webhookDeliveryPageWireSchema = z
  .object({ items: z.array(webhookDeliveryWireSchema), next_cursor: z.string().nullable() })
  .meta({ id: "WebhookDeliveryPage" });

/** `POST /api/v1/webhooks/{id}/test` (202): the `webhook.test` event queued. */
export const webhookTestAcceptedWireSchema = z
  .object({ event_id: z.string(), delivery_id: z.string() })
  .meta({ id: "WebhookTestAccepted" });

/** One webhook route as documented: what it takes and its success answer (`null`: no body). */
export interface WebhookRouteDoc {
  method: "GET" | "POST" | "PATCH" | "DELETE";
  url: string;
  summary: string;
  params?: z.ZodType;
  querystring?: z.ZodType;
  body?: z.ZodType;
  status: 200 | 201 | 202 | 204;
  response: z.ZodType | null;
}

/** Every webhook route (served by metadata-api; each needs an API key). */
export const WEBHOOK_ROUTES: readonly WebhookRouteDoc[] = [
  {
    method: "POST",
    url: "/api/v1/webhooks",
    summary: "Create a webhook; its signing secret is shown once",
    body: createWebhookSchema,
    status: 201,
    response: webhookCreatedWireSchema,
  },
  {
    method: "GET",
    url: "/api/v1/webhooks",
    summary: "The API key's webhooks",
    status: 200,
    response: webhookListWireSchema,
  },
  {
    method: "GET",
    url: "/api/v1/webhooks/:id",
    summary: "One webhook",
    params: webhookIdParamsSchema,
    status: 200,
    response: webhookWireSchema,
  },
  {
    method: "PATCH",
    url: "/api/v1/webhooks/:id",
    summary: "Change url, events, filters or enabled",
    params: webhookIdParamsSchema,
    body: patchWebhookSchema,
    status: 200,
    response: webhookWireSchema,
  },
  {
    method: "DELETE",
    url: "/api/v1/webhooks/:id",
    summary: "Delete a webhook and its deliveries",
    params: webhookIdParamsSchema,
    status: 204,
    response: null,
  },
  {
    method: "POST",
    url: "/api/v1/webhooks/:id/test",
    summary: "Send a signed webhook.test event",
    params: webhookIdParamsSchema,
    status: 202,
    response: webhookTestAcceptedWireSchema,
  },
  {
    method: "GET",
    url: "/api/v1/webhooks/:id/deliveries",
    summary: "The webhook's deliveries, newest first",
    params: webhookIdParamsSchema,
    querystring: webhookDeliveriesQuerySchema,
    status: 200,
    response: webhookDeliveryPageWireSchema,
  },
];
