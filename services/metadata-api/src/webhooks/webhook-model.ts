// The webhook subscription model (docs/api.md "Webhooks"): event types, filters, the request
// bodies of the routes, and which outbox events a subscription receives.
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

/** Every type an outbox row can have: the subscribable ones, the retractions, and `webhook.test`. */
export type OutboxEventType =
  | WebhookEventType
  | "trade.removed"
  | "token.removed"
  | "token.progress.removed"
  | "webhook.test";

/** The subscribed type an outbox type is delivered under (a retraction under what it retracts). */
export function subscribedTypeOf(type: OutboxEventType): WebhookEventType | null {
  if (type === "trade.removed") return "trade";
  if (type === "token.removed") return "token.launched";
  if (type === "token.progress.removed") return "token.progress";
  if (type === "webhook.test") return null;
  return type;
}

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
 * Filters of `trade` events (all optional; every given one must match): the trade's token among
 * `tokens`, its trader among `wallets` (≤ 100 addresses each), its `side`, its `reserve_amount`
 * (wei) ≥ `min_reserve_amount`, its `reserve_amount_usd` ≥ `min_usd` (a trade without a USD value
 * does not match `min_usd`). `tokens` also filters `token.graduated`, `token.progress` and
 * `metadata.finalized`. `progress_bps`: the thresholds of `token.progress` (1–10000 bps, distinct,
 * ≤ 20; stored ascending), required with that event.
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

const events = z.array(z.enum(WEBHOOK_EVENT_TYPES)).min(1).max(WEBHOOK_EVENT_TYPES.length);

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

/** Body of `POST /api/v1/webhooks`. */
export const createWebhookSchema = z
  .object({
    url: z.string().min(1).max(2048),
    events,
    filters: webhookFiltersSchema.default({}),
  })
  .strict()
  .superRefine((body, ctx) => {
    const problem = subscriptionProblem(body);
    if (problem) ctx.addIssue({ code: "custom", path: problem.path.split("."), message: problem.message });
  });

/** Body of `PATCH /api/v1/webhooks/{id}` (at least one member). */
export const patchWebhookSchema = z
  .object({
    url: z.string().min(1).max(2048).optional(),
    events: events.optional(),
    filters: webhookFiltersSchema.optional(),
    enabled: z.boolean().optional(),
  })
  .strict()
  .refine((body) => Object.keys(body).length > 0, "give at least one of url, events, filters, enabled");

/** Parses a decimal string (≤ `scale` fraction digits) into an integer scaled by 10^scale. */
export function scaledDecimal(text: string, scale: number): bigint {
  const [whole, fraction = ""] = text.split(".");
  return BigInt(`${whole}${fraction.padEnd(scale, "0").slice(0, scale)}`);
}

/** What the filters look at in an event's payload. */
export interface MatchableEvent {
  type: OutboxEventType;
  payload: Record<string, unknown>;
}

function tokenOf(payload: Record<string, unknown>): string | undefined {
  if (typeof payload.token_address === "string") return payload.token_address;
  const token = payload.token as { address?: unknown } | undefined;
  return typeof token?.address === "string" ? token.address : undefined;
}

/**
 * Whether a subscription to `events` with `filters` receives `event` (its type subscribed, or a
 * retraction of a subscribed type; then every filter that applies to the type matches).
 */
export function matchesSubscription(
  event: MatchableEvent,
  subscription: { events: string[]; filters: WebhookFilters },
): boolean {
  const type = subscribedTypeOf(event.type);
  if (type === null || !subscription.events.includes(type)) return false;
  const f = subscription.filters;
  const p = event.payload;
  if (f.tokens && type !== "token.launched") {
    const token = tokenOf(p);
    if (!token || !f.tokens.includes(token)) return false;
  }
  if (type === "token.progress") return f.progress_bps?.includes(Number(p.threshold_bps)) ?? false;
  if (type !== "trade") return true;
  if (f.wallets && !f.wallets.includes(String(p.trader))) return false;
  if (f.side && p.side !== f.side) return false;
  if (f.min_reserve_amount && BigInt(String(p.reserve_amount)) < BigInt(f.min_reserve_amount)) return false;
  if (f.min_usd) {
    const value = p.reserve_amount_usd;
    if (typeof value !== "string") return false;
    if (scaledDecimal(value, 40) < scaledDecimal(f.min_usd, 40)) return false;
  }
  return true;
}
