// The webhook subscription model (docs/api.md "Webhooks"): event types, filters, the request
// bodies of the routes, and which outbox events a subscription receives.
import type { WebhookEventType, WebhookFilters } from "@tmi/shared/webhooks";

// The subscription rules and request bodies are the wire contract's (@tmi/shared/webhooks).
export type { WebhookEventType, WebhookFilters } from "@tmi/shared/webhooks";
export {
  createWebhookSchema,
  MAX_FILTER_ADDRESSES,
  MAX_PROGRESS_THRESHOLDS,
  patchWebhookSchema,
  subscriptionProblem,
  WEBHOOK_EVENT_TYPES,
  webhookFiltersSchema,
} from "@tmi/shared/webhooks";

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
