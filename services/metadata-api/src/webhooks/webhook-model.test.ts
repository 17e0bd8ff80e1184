import { describe, expect, test } from "vitest";
import {
  createWebhookSchema,
  matchesSubscription,
  scaledDecimal,
  webhookFiltersSchema,
} from "./webhook-model.js";

const A = `0x${"aa".repeat(20)}`;
const B = `0x${"bb".repeat(20)}`;
const trade = (over: Record<string, unknown> = {}) => ({
  type: "trade" as const,
  payload: {
    token_address: A,
    trader: B,
    side: "buy",
    reserve_amount: "1000",
    reserve_amount_usd: "12.5",
    ...over,
  },
});

describe("matchesSubscription", () => {
  test("default: a subscription without filters gets its type and the retraction of it", () => {
    const sub = { events: ["trade"], filters: {} };
    expect(matchesSubscription(trade(), sub)).toBe(true);
    expect(matchesSubscription({ ...trade(), type: "trade.removed" }, sub)).toBe(true);
    expect(matchesSubscription({ type: "token.launched", payload: { token: { address: A } } }, sub)).toBe(
      false,
    );
    expect(matchesSubscription({ type: "webhook.test", payload: {} }, sub)).toBe(false);
  });

  test("behavior: min_usd compares exact decimals; a trade without a USD value does not match", () => {
    const sub = { events: ["trade"], filters: webhookFiltersSchema.parse({ min_usd: "12.5" }) };
    expect(matchesSubscription(trade({ reserve_amount_usd: "12.5" }), sub)).toBe(true);
    expect(matchesSubscription(trade({ reserve_amount_usd: "12.4999999999999999999999" }), sub)).toBe(false);
    expect(matchesSubscription(trade({ reserve_amount_usd: "100" }), sub)).toBe(true);
    expect(matchesSubscription(trade({ reserve_amount_usd: null }), sub)).toBe(false);
  });

  test("behavior: tokens filters trades, graduations and metadata; not launches", () => {
    const sub = {
      events: ["trade", "token.launched", "token.graduated", "metadata.finalized"],
      filters: webhookFiltersSchema.parse({ tokens: [B.toUpperCase().replace("0X", "0x")] }),
    };
    expect(matchesSubscription(trade(), sub)).toBe(false);
    expect(matchesSubscription(trade({ token_address: B }), sub)).toBe(true);
    expect(matchesSubscription({ type: "token.graduated", payload: { token: { address: A } } }, sub)).toBe(
      false,
    );
    expect(matchesSubscription({ type: "token.graduated", payload: { token: { address: B } } }, sub)).toBe(
      true,
    );
    expect(matchesSubscription({ type: "metadata.finalized", payload: { token_address: B } }, sub)).toBe(
      true,
    );
    expect(matchesSubscription({ type: "token.launched", payload: { token: { address: A } } }, sub)).toBe(
      true,
    );
  });

  test("error: filters out of bounds are refused", () => {
    expect(webhookFiltersSchema.safeParse({ wallets: Array.from({ length: 101 }, () => A) }).success).toBe(
      false,
    );
    expect(webhookFiltersSchema.safeParse({ min_reserve_amount: "1.5" }).success).toBe(false);
    expect(webhookFiltersSchema.safeParse({ min_usd: "-1" }).success).toBe(false);
    expect(webhookFiltersSchema.safeParse({ side: "both" }).success).toBe(false);
    expect(webhookFiltersSchema.safeParse({ other: 1 }).success).toBe(false);
  });
});

describe("token.progress", () => {
  const progress = (
    threshold: number,
    type: "token.progress" | "token.progress.removed" = "token.progress",
  ) => ({
    type,
    payload: { token: { address: A }, threshold_bps: threshold, progress_bps: threshold + 3 },
  });

  test("behavior: a subscription gets the crossings of its own thresholds and their retractions", () => {
    const sub = {
      events: ["token.progress"],
      filters: webhookFiltersSchema.parse({ progress_bps: [5000, 2500] }),
    };
    expect(sub.filters.progress_bps).toEqual([2500, 5000]);
    expect(matchesSubscription(progress(2500), sub)).toBe(true);
    expect(matchesSubscription(progress(5000, "token.progress.removed"), sub)).toBe(true);
    expect(matchesSubscription(progress(7500), sub)).toBe(false);
    expect(matchesSubscription(progress(2500), { events: ["trade"], filters: sub.filters })).toBe(false);
    const other = {
      events: ["token.progress"],
      filters: webhookFiltersSchema.parse({ progress_bps: [2500], tokens: [B] }),
    };
    expect(matchesSubscription(progress(2500), other)).toBe(false);
  });

  test("error: bad thresholds, and token.progress without thresholds, are refused", () => {
    for (const bad of [
      [],
      [0],
      [10_001],
      [2.5],
      ["5000"],
      [100, 100],
      Array.from({ length: 21 }, (_, i) => i + 1),
    ])
      expect(webhookFiltersSchema.safeParse({ progress_bps: bad }).success, JSON.stringify(bad)).toBe(false);
    expect(webhookFiltersSchema.safeParse({ progress_bps: [1, 10_000] }).success).toBe(true);
    const body = { url: "https://example.com/h", events: ["token.progress"] };
    const missing = createWebhookSchema.safeParse(body);
    expect(missing.success).toBe(false);
    expect(missing.error?.issues[0]?.path).toEqual(["filters", "progress_bps"]);
    expect(createWebhookSchema.safeParse({ ...body, filters: { progress_bps: [5000] } }).success).toBe(true);
  });
});

describe("scaledDecimal", () => {
  test("default", () => {
    expect(scaledDecimal("12.5", 3)).toBe(12500n);
    expect(scaledDecimal("7", 2)).toBe(700n);
    expect(scaledDecimal("0.123456", 3)).toBe(123n);
  });
});
