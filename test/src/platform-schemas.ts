// The response shapes a client of the API may rely on, written as zod schemas for the contract and
// fuzz tests: what zonk.fun's own web client parses (it shows "invalid response" when a body fails
// its schema), tightened by the project's decisions in docs/api.md (one Token object, the error
// envelope, optional keys absent and never null). Written from those rules, not generated from the
// services' own schemas, so that a service cannot pass by agreeing with itself.
//
// Objects are open (extra keys such as `usd`, `stats`, `reserve_amount_usd` are allowed, as the
// client allows them), except the error body, whose only top-level key is `error`.
import * as chain from "@tmi/shared/chain";
import { z } from "zod";

/** `0x` + 40 hex digits (any letter case; the API answers lowercase). */
export const addressSchema = z.string().regex(/^0x[0-9a-fA-F]{40}$/, "address");
/** `0x` + 64 hex digits. */
export const hashSchema = z.string().regex(/^0x[0-9a-fA-F]{64}$/, "hash");
/** Integer amount in base units as a decimal string (never a JSON number). */
export const amountSchema = z.string().regex(/^\d+$/, "decimal integer string");
/** Non-negative JSON integer (block numbers, indexes, counts, Unix seconds). */
export const countSchema = z.number().int().nonnegative();
/** Path of a stored object served by `/objects/*`. */
export const objectPathSchema = z.string().regex(/^\/objects\/\S+$/, "path under /objects/");

/** The chart intervals, in the order the spec lists them. */
export const CHART_INTERVALS = ["1m", "5m", "15m", "1h", "4h", "1d", "1w"] as const;

/** The curve allocation in token base units (800,000,000 × 10^18), the platform's `graduation_threshold`. */
export const CURVE_ALLOCATION = 800_000_000n * 10n ** 18n;

/**
 * Names of every event in the chain interface's ABIs (`@tmi/shared/chain`): an activity item's
 * `event_name` is the name emitted on chain, so it must be one of these.
 */
export const CHAIN_EVENT_NAMES: ReadonlySet<string> = new Set(
  (Object.values(chain) as unknown[])
    .filter((value): value is { type?: unknown; name?: unknown }[] => Array.isArray(value))
    .flat()
    .filter((item) => item?.type === "event" && typeof item.name === "string")
    .map((item) => item.name as string),
);

/** Position of a log: `{block_number, transaction_hash, log_index}`. */
export const logPositionSchema = z.object({
  block_number: countSchema,
  transaction_hash: hashSchema,
  log_index: countSchema,
});

/** Token `metrics`: the spec's fields plus `latest_trade_timestamp`; nullable keys are always present. */
export const metricsSchema = z.object({
  trade_count: countSchema,
  buy_count: countSchema,
  sell_count: countSchema,
  volume: amountSchema,
  fees: amountSchema,
  unique_trader_count: countSchema,
  current_price: amountSchema.nullable(),
  fully_diluted_value: amountSchema.nullable(),
  holder_count: countSchema.nullable(),
  latest_trade_timestamp: countSchema.nullable(),
});

/**
 * Token `curve`: the platform client needs `address`, `sold_supply`, `reserve_balance` and reads
 * `graduation_threshold` (token base units) and `lifecycle`; the rest is the project's Token object.
 * `progress_bps` = floor(sold_supply × 10000 / graduation_threshold), at most 10000.
 */
export const curveSchema = z
  .object({
    address: addressSchema,
    canonical_pool_address: addressSchema.optional(),
    supply: amountSchema,
    sold_supply: amountSchema,
    reserve_balance: amountSchema,
    virtual_token_reserve: amountSchema,
    virtual_eth_reserve: amountSchema,
    graduation_threshold: amountSchema,
    progress_bps: z.number().int().min(0).max(10_000),
    lifecycle: z.enum(["active", "graduated"]),
  })
  .superRefine((curve, ctx) => {
    const threshold = BigInt(curve.graduation_threshold);
    if (threshold === 0n) return;
    const expected = (BigInt(curve.sold_supply) * 10_000n) / threshold;
    const bps = expected > 10_000n ? 10_000 : Number(expected);
    if (curve.progress_bps !== bps)
      ctx.addIssue({
        code: "custom",
        path: ["progress_bps"],
        message: `progress_bps ${curve.progress_bps} is not floor(sold_supply × 10000 / graduation_threshold) = ${bps}`,
      });
  });

/** Token `graduation` (present only once graduated): `phase` plus optional settlement facts. */
export const graduationSchema = z.object({
  phase: z.literal("graduated"),
  canonical_pool_address: addressSchema.optional(),
  graduation_manager_address: addressSchema.optional(),
  lp_custodian_address: addressSchema.optional(),
  position_token_id: amountSchema.optional(),
  liquidity: amountSchema.optional(),
  token_amount: amountSchema.optional(),
  eth_amount: amountSchema.optional(),
  sold_supply: amountSchema.optional(),
  curve_terminal_at: logPositionSchema.optional(),
  settled_at: logPositionSchema.optional(),
});

/**
 * The one Token object (list items, newest, search, trending, detail, creator pages, finalize):
 * metadata fields at the top level and absent when unset; `graduation` absent before graduation
 * and present after (`curve.lifecycle` tells which).
 */
export const tokenSchema = z
  .object({
    address: addressSchema,
    creator: addressSchema,
    name: z.string(),
    symbol: z.string(),
    initial_supply: amountSchema,
    description: z.string().optional(),
    image_url: objectPathSchema.optional(),
    metadata_url: objectPathSchema.optional(),
    website_url: z.url().optional(),
    x_url: z.url().optional(),
    telegram_url: z.url().optional(),
    discord_url: z.url().optional(),
    metadata_verified: z.boolean().optional(),
    created_at: logPositionSchema,
    metrics: metricsSchema,
    curve: curveSchema,
    graduation: graduationSchema.optional(),
  })
  .superRefine((token, ctx) => {
    const graduated = token.curve.lifecycle === "graduated";
    if (graduated !== (token.graduation !== undefined))
      ctx.addIssue({
        code: "custom",
        path: ["graduation"],
        message: `graduation must be present exactly when curve.lifecycle is "graduated" (lifecycle ${token.curve.lifecycle})`,
      });
  });

/** A Page of `item`: `items`, and `next_cursor` only when a further page exists (absent, never null or ""). */
export function pageSchema<T extends z.ZodType>(item: T) {
  return z.object({ items: z.array(item), next_cursor: z.string().min(1).optional() });
}

/** `*_share_bps`: amount × 10,000 / initial_supply, floored. */
const bpsSchema = z.number().int().min(0).max(10_000);

/** Compact `risk` of the Token objects of lists (addition, issue 28; docs/api.md "Risk and all-time high"). */
export const compactRiskSchema = z.strictObject({
  creator_share_bps: bpsSchema,
  creator_has_sold: z.boolean(),
  top10_share_bps: bpsSchema,
  sniper_share_bps: bpsSchema,
  insider_share_bps: bpsSchema,
});

const cohortFields = {
  count: countSchema,
  holding_count: countSchema,
  balance: amountSchema,
  share_bps: bpsSchema,
};

/** Full `risk` of the token detail (addition, issue 28). */
export const fullRiskSchema = z
  .strictObject({
    creator: z.strictObject({
      address: addressSchema,
      balance: amountSchema,
      share_bps: bpsSchema,
      bought_tokens: amountSchema,
      sold_tokens: amountSchema,
      transferred_out_tokens: amountSchema,
      has_sold: z.boolean(),
    }),
    dev_buy: z.strictObject({ tokens: amountSchema, reserve: amountSchema, count: countSchema }),
    snipers: z.strictObject({ ...cohortFields, bought_tokens: amountSchema }),
    launch_block_buyers: z.strictObject({ ...cohortFields, bought_tokens: amountSchema }),
    insiders: z.strictObject({ ...cohortFields, received_tokens: amountSchema }),
    top10_share_bps: bpsSchema,
    distribution_bps: z.strictObject({
      top_10: bpsSchema,
      top_11_30: bpsSchema,
      top_31_50: bpsSchema,
      rest: bpsSchema,
    }),
    platform_share_bps: bpsSchema,
    sniper_window_blocks: z.literal(2),
  })
  .superRefine((risk, ctx) => {
    if (risk.creator.has_sold !== BigInt(risk.creator.sold_tokens) > 0n)
      ctx.addIssue({
        code: "custom",
        path: ["creator", "has_sold"],
        message: "has_sold must be sold_tokens > 0",
      });
    for (const cohort of ["snipers", "launch_block_buyers", "insiders"] as const)
      if (risk[cohort].holding_count > risk[cohort].count)
        ctx.addIssue({ code: "custom", path: [cohort], message: "holding_count must not exceed count" });
    if (risk.launch_block_buyers.count > risk.snipers.count)
      ctx.addIssue({
        code: "custom",
        path: ["launch_block_buyers"],
        message: "launch-block buyers are snipers",
      });
  });

/** `ath` of the token detail (addition, issue 28): null before the first priced trade. */
export const athSchema = z.strictObject({
  price: amountSchema,
  market_cap: amountSchema,
  block_number: countSchema,
  timestamp: countSchema,
  drawdown_bps: bpsSchema,
  market_cap_usd: z
    .string()
    .regex(/^[0-9]+(\.[0-9]*[1-9])?$/, "exact USD decimal")
    .nullable(),
});

/** A Token object of a list: the Token with its compact `risk`. */
export const listTokenSchema = tokenSchema.and(z.object({ risk: compactRiskSchema }));

/** Token detail: the Token with the full `risk` and `ath`. */
export const tokenDetailSchema = tokenSchema.and(
  z.object({ risk: fullRiskSchema, ath: athSchema.nullable() }),
);

/** Page of Token (list items, with their compact `risk`). */
export const tokenPageSchema = pageSchema(listTokenSchema);

/** A trade; `source` is `curve` or `uniswap_v3` (the spec's `dex_v3` is a neutral stand-in). */
export const tradeSchema = z.object({
  token_address: addressSchema,
  trader: addressSchema,
  side: z.enum(["buy", "sell"]),
  token_amount: amountSchema,
  reserve_amount: amountSchema,
  curve_value: amountSchema,
  protocol_fee: amountSchema,
  creator_fee: amountSchema,
  source: z.enum(["curve", "uniswap_v3"]),
  block_number: countSchema,
  transaction_index: countSchema,
  transaction_hash: hashSchema,
  log_index: countSchema,
});

/** Page of Trade. */
export const tradePageSchema = pageSchema(tradeSchema);

/** A decoded chain event: `event_name` as emitted on chain, `decoded` its arguments with `token`. */
export const activityItemSchema = z.object({
  event_name: z.string().refine((name) => CHAIN_EVENT_NAMES.has(name), {
    message: "event_name is not an event of the chain interface",
  }),
  decoded: z.looseObject({ token: addressSchema }),
  block_number: countSchema,
  transaction_index: countSchema,
  transaction_hash: hashSchema,
  log_index: countSchema,
});

/** Page of Activity item. */
export const activityPageSchema = pageSchema(activityItemSchema);

/** A candle; prices are present and null for a bucket without trades. */
export const candleSchema = z.object({
  bucket_start: countSchema,
  trade_count: countSchema,
  buy_count: countSchema,
  sell_count: countSchema,
  volume: amountSchema,
  unique_trader_count: countSchema,
  open_price: amountSchema.nullable(),
  high_price: amountSchema.nullable(),
  low_price: amountSchema.nullable(),
  close_price: amountSchema.nullable(),
});

/** Chart response. */
export const chartSchema = z.object({
  interval: z.enum(CHART_INTERVALS),
  supported_intervals: z.array(z.string()).refine((list) => list.join() === CHART_INTERVALS.join(), {
    message: `must be ${CHART_INTERVALS.join(",")}`,
  }),
  candles: z.array(candleSchema),
});

/** A USD value: exact decimal string, trailing fractional zeros trimmed, no exponent. */
export const usdValueSchema = z.string().regex(/^[0-9]+(\.[0-9]*[1-9])?$/, "exact USD decimal");

/**
 * Candle in USD (addition: `chart?currency=usd`): the wei values × `eth_usd`, the ETH/USD answer
 * in force at the bucket's end (null when none; then prices and a non-zero volume are null too).
 */
export const usdCandleSchema = candleSchema
  .extend({
    volume: usdValueSchema.nullable(),
    open_price: usdValueSchema.nullable(),
    high_price: usdValueSchema.nullable(),
    low_price: usdValueSchema.nullable(),
    close_price: usdValueSchema.nullable(),
    eth_usd: usdValueSchema.nullable(),
  })
  .refine(
    (c) => c.eth_usd !== null || (c.open_price === null && (c.trade_count === 0) === (c.volume === "0")),
    {
      message: "without eth_usd a candle has no USD price, and a USD volume only when it has no trades",
    },
  );

/** Chart in USD (addition: `chart?currency=usd`). */
export const usdChartSchema = chartSchema.extend({
  currency: z.literal("usd"),
  candles: z.array(usdCandleSchema),
});

/** Pricing. */
export const pricingSchema = z.object({
  token_address: addressSchema,
  current_price: amountSchema.nullable(),
  fully_diluted_value: amountSchema.nullable(),
  source: z.enum(["indexed_v3_curve", "indexed_v3_market"]),
});

/** Creator profile: the first page of the creator's tokens. */
export const creatorProfileSchema = z.object({
  address: addressSchema,
  token_count: countSchema,
  volume: amountSchema,
  tokens: z.array(tokenSchema),
  next_cursor: z.string().min(1).optional(),
});

/** An amount of one asset (native ETH: the zero address). */
const assetAmountSchema = z.strictObject({ asset: addressSchema, amount: amountSchema });

/** The creator's curve fees of a token (docs/api.md "Fees"). */
const creatorFeeFields = {
  payout_address: addressSchema.nullable(),
  pending_payout_address: addressSchema.nullable(),
  earned: amountSchema,
  claimed: amountSchema,
  claimable: amountSchema,
};

/** Token fee economy (addition: `/api/v1/tokens/{address}/fees`). */
export const tokenFeesSchema = z.strictObject({
  curve: z.strictObject({
    total: amountSchema,
    protocol: amountSchema,
    creator: amountSchema,
    community: amountSchema,
    trader_rewards: amountSchema,
  }),
  creator: z.strictObject(creatorFeeFields),
  lp: z.array(
    z.strictObject({
      asset: addressSchema,
      collected: amountSchema,
      creator: amountSchema,
      protocol: amountSchema,
      community: amountSchema,
      trader_rewards: amountSchema,
    }),
  ),
  community: z.array(
    z.strictObject({
      asset: addressSchema,
      funded: amountSchema,
      forwarded: amountSchema,
      balance: amountSchema,
    }),
  ),
  trader_rewards: z.array(
    z.strictObject({ asset: addressSchema, funded: amountSchema, paid: amountSchema, balance: amountSchema }),
  ),
});

/** Creator earnings (addition: `/api/v1/creators/{address}/earnings`). */
export const creatorEarningsSchema = z.strictObject({
  address: addressSchema,
  curve_claimable: amountSchema,
  lp_claimable: z.array(assetAmountSchema),
  claimed: z.strictObject({ curve: amountSchema, lp: z.array(assetAmountSchema) }),
  tokens: z.array(
    z.strictObject({ token: addressSchema, ...creatorFeeFields, lp: z.array(assetAmountSchema) }),
  ),
  next_cursor: z.string().min(1).optional(),
});

/** Where a distributor log stands (docs/api.md "Reward distributions"). */
const rewardLogSchema = z.strictObject({
  block_number: z.number().int().min(0),
  timestamp: z.number().int().min(0),
  transaction_hash: hashSchema,
  log_index: z.number().int().min(0),
});

/** Token trader-reward distributions (addition: `/api/v1/tokens/{address}/rewards/distributions`). */
export const rewardDistributionPageSchema = pageSchema(
  z.strictObject({
    distribution_id: hashSchema,
    epoch: amountSchema,
    asset: addressSchema,
    root: hashSchema,
    published: rewardLogSchema,
    claimed_count: z.number().int().min(0),
    claimed_amount: amountSchema,
    tree_uploaded: z.boolean(),
  }),
);

/**
 * Wallet trader rewards (addition: `/api/v1/wallets/{address}/rewards`): a page of the
 * distributions the wallet has a claim or an uploaded leaf in, newest epoch first.
 */
export const walletRewardPageSchema = pageSchema(
  z
    .strictObject({
      distribution_id: hashSchema,
      token_address: addressSchema,
      epoch: amountSchema,
      asset: addressSchema,
      root: hashSchema,
      amount: amountSchema,
      proof: z.array(hashSchema).nullable(),
      claimed: z.boolean(),
      claim: rewardLogSchema.nullable(),
      claimable: z.boolean(),
    })
    // A claim exactly when claimed; claimable only with a proof and not claimed.
    .refine((r) => r.claimed === (r.claim !== null), "claim present exactly when claimed")
    .refine((r) => !r.claimable || (!r.claimed && r.proof !== null), "claimable needs a proof and no claim")
    .refine((r) => r.claimed || r.proof !== null, "an item has a claim or a leaf"),
);

/** A stored reward tree (addition: `POST /api/v1/rewards/distributions/{id}/tree`, 201 and 200). */
export const rewardTreeSchema = z.strictObject({
  distribution_id: hashSchema,
  token_address: addressSchema,
  epoch: amountSchema,
  asset: addressSchema,
  root: hashSchema,
  order: z.enum(["given", "sorted"]),
  leaf_count: z.number().int().min(1),
});

/** Holder (addition: `/api/v1/tokens/{address}/holders`). */
export const holderPageSchema = pageSchema(
  z.object({
    address: addressSchema,
    balance: amountSchema,
    // Addition (issue 28): the holder's cohorts, sorted.
    tags: z
      .array(z.enum(["creator", "insider", "launch_block_buyer", "sniper"]))
      .refine((tags) => tags.every((t, i) => i === 0 || tags[i - 1]! < t), "tags sorted, distinct"),
  }),
);

/** Holder count over time (addition, issue 28): `{items: [{time, holder_count}]}`, buckets ascending. */
export const holderHistorySchema = z
  .strictObject({ items: z.array(z.strictObject({ time: countSchema, holder_count: countSchema })) })
  .refine((h) => h.items.every((x, i) => i === 0 || h.items[i - 1]!.time < x.time), "buckets ascending");

/** A signed decimal integer string (PnL). */
const signedAmountSchema = z.string().regex(/^-?\d+$/, "signed decimal integer string");

/** Where and when a trade happened (first/last trade of a position). */
const tradePointSchema = z.strictObject({
  block_number: countSchema,
  transaction_hash: hashSchema,
  log_index: countSchema,
  timestamp: countSchema,
});

/** The fields of a position (docs/api.md "Wallets and traders"). */
const positionFields = {
  bought_tokens: amountSchema,
  bought_reserve: amountSchema,
  sold_tokens: amountSchema,
  sold_reserve: amountSchema,
  buy_count: countSchema,
  sell_count: countSchema,
  first_trade: tradePointSchema,
  last_trade: tradePointSchema,
  open_quantity: amountSchema,
  cost_basis: amountSchema,
  realized_pnl: signedAmountSchema,
  unrealized_pnl: signedAmountSchema,
  pnl: signedAmountSchema,
};

/** Wallet summary (addition: `/api/v1/wallets/{address}`). */
export const walletSummarySchema = z.strictObject({
  address: addressSchema,
  holding_count: countSchema,
  value: amountSchema,
  value_usd: z.string().nullable(),
  realized_pnl: signedAmountSchema,
  unrealized_pnl: signedAmountSchema,
  pnl: signedAmountSchema,
  trade_count: countSchema,
  volume: amountSchema,
  created_token_count: countSchema,
});

/** Page of Holding (addition: `/api/v1/wallets/{address}/holdings`). */
export const holdingPageSchema = pageSchema(
  z.strictObject({
    token: tokenSchema,
    balance: amountSchema,
    value: amountSchema,
    value_usd: z.string().nullable(),
    share_bps: countSchema,
    position: z.strictObject(positionFields).optional(),
  }),
);

/** Page of Trader (addition: `/api/v1/tokens/{address}/traders`). */
export const traderPageSchema = pageSchema(
  z.strictObject({ trader: addressSchema, balance: amountSchema, ...positionFields }),
);

/** Metadata draft (201): `description` always a string; object paths relative; social URLs only when given. */
export const metadataDraftSchema = z.object({
  draft_id: z.string().min(1),
  name: z.string().min(1),
  symbol: z.string().min(1),
  initial_supply: amountSchema,
  description: z.string(),
  image_url: objectPathSchema,
  metadata_url: z.string().regex(/^\/objects\/\S+\.json$/, "JSON object path under /objects/"),
  website_url: z.url().optional(),
  x_url: z.url().optional(),
  telegram_url: z.url().optional(),
  discord_url: z.url().optional(),
});

/** Finalize success (200): the Token object of the bound token. */
export const finalizeResponseSchema = tokenSchema;

/** ISO 8601 time (UTC, with milliseconds), as the webhook routes write times. */
const isoTimeSchema = z.string().regex(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/, "ISO 8601 time");

const webhookFields = {
  id: z.string().regex(/^wh_[0-9a-f]{16}$/),
  url: z.url(),
  events: z
    .array(z.enum(["trade", "token.launched", "token.graduated", "token.progress", "metadata.finalized"]))
    .min(1),
  filters: z.object({
    tokens: z.array(addressSchema).max(100).optional(),
    wallets: z.array(addressSchema).max(100).optional(),
    side: z.enum(["buy", "sell"]).optional(),
    min_reserve_amount: amountSchema.optional(),
    min_usd: z
      .string()
      .regex(/^\d+(\.\d+)?$/)
      .optional(),
    progress_bps: z.array(z.number().int().min(1).max(10_000)).min(1).max(20).optional(),
  }),
  enabled: z.boolean(),
  disabled_reason: z.string().nullable(),
  failing_since: isoTimeSchema.nullable(),
  created_at: isoTimeSchema,
  updated_at: isoTimeSchema,
};

/** Webhook (docs/api.md "Webhooks"): never its secret. */
export const webhookSchema = z
  .object(webhookFields)
  .refine((w) => !("secret" in w), "a webhook shows its secret only when created");

/** `POST /api/v1/webhooks` (201): the Webhook and its signing secret (Standard Webhooks `whsec_` + base64). */
export const webhookCreatedSchema = z.object({
  ...webhookFields,
  secret: z.string().regex(/^whsec_[A-Za-z0-9+/]+={0,2}$/),
});

/** `GET /api/v1/webhooks/{id}/deliveries` (200). */
export const webhookDeliveriesSchema = z.strictObject({
  items: z.array(
    z.object({
      id: z.string().regex(/^\d+$/),
      event_id: z.string().regex(/^evt_\d+$/),
      type: z.string().min(1),
      status: z.enum(["pending", "delivered", "failed"]),
      attempts: countSchema,
      last_status: z.number().int().min(100).max(599).nullable(),
      last_error: z.string().nullable(),
      next_attempt_at: isoTimeSchema.nullable(),
      created_at: isoTimeSchema,
      delivered_at: isoTimeSchema.nullable(),
    }),
  ),
  next_cursor: z.string().regex(/^\d+$/).nullable(),
});

/** `POST /api/v1/webhooks/{id}/test` (202): the queued `webhook.test` event and its delivery. */
export const webhookTestAcceptedSchema = z.strictObject({
  event_id: z.string().regex(/^evt_\d+$/),
  delivery_id: z.string().regex(/^\d+$/),
});

/** `GET /api/v1/webhooks` (200): the key's webhooks. */
export const webhookListSchema = z.strictObject({ items: z.array(webhookSchema) });

/** A delivered `token.progress` / `token.progress.removed` event body: the crossing trade's block. */
export const webhookProgressEventSchema = z.object({
  id: z.string().regex(/^evt_\d+$/),
  type: z.enum(["token.progress", "token.progress.removed"]),
  timestamp: z.string().min(1),
  data: z.object({
    token: z.object({ address: addressSchema, name: z.string(), symbol: z.string() }),
    threshold_bps: z.number().int().min(1).max(10_000),
    progress_bps: z.number().int().min(1).max(10_000),
    sold_supply: amountSchema,
    block_number: z.number().int().positive(),
    block_hash: hashSchema,
    log_index: z.number().int().min(0),
    transaction_hash: hashSchema,
    block_timestamp: z.number().int().positive(),
    retracts: z
      .string()
      .regex(/^evt_\d+$/)
      .optional(),
  }),
});

/** A delivered `trade` / `trade.removed` event body: the Trade fields plus the block. */
export const webhookTradeEventSchema = z.object({
  id: z.string().regex(/^evt_\d+$/),
  type: z.enum(["trade", "trade.removed"]),
  timestamp: z.string().min(1),
  data: tradeSchema.extend({
    block_hash: hashSchema,
    reserve_amount_usd: z
      .string()
      .regex(/^\d+(\.\d+)?$/)
      .nullable(),
    retracts: z
      .string()
      .regex(/^evt_\d+$/)
      .optional(),
  }),
});

/** A field problem in `error.details`. */
export const errorDetailSchema = z.object({ field: z.string(), reason: z.string() });

/** The error envelope: `{"error": {code, message, request_id, details?}}`, nothing else at the top. */
export const errorEnvelopeSchema = z.strictObject({
  error: z.object({
    code: z.string().regex(/^[a-z][a-z0-9_]*$/, "snake_case code"),
    message: z.string().min(1),
    request_id: z.string().regex(/^[A-Za-z0-9._:-]{1,128}$/),
    details: z.array(errorDetailSchema).min(1).optional(),
  }),
});

/** An error envelope with one given code. */
export function errorWithCode(code: string) {
  return errorEnvelopeSchema.refine((body) => body.error.code === code, {
    message: `error.code must be ${code}`,
  });
}

/** `/health` (`ok`) and `/readyz` (`ready`). */
export function serviceStatusSchema(status: "ok" | "ready") {
  return z.object({ status: z.literal(status), service: z.string().min(1), request_id: z.string().min(1) });
}

/** Indexing status (addition: `/api/v1/status`). */
export const indexingStatusSchema = z.looseObject({
  indexed_block: countSchema.nullable(),
  indexed_at: countSchema.nullable(),
});

/**
 * ETH/USD as the platform's web client parses it (the platform's running API serves this shape; the
 * spec's table copies its docs' "illustrative" sample): `price` with exactly 8 fractional digits,
 * `price_decimals` 8, `updated_at` ISO 8601 UTC (`2026-08-15T10:00:00Z`), `feed` (the address read),
 * `source` `chainlink_eth_usd`, `max_age_seconds`. The client drops any other answer and shows "USD
 * unavailable" on every money figure.
 */
export const platformClientEthUsdSchema = z.object({
  price: z.string().regex(/^\d+\.\d{8}$/, "decimal with exactly 8 fractional digits"),
  price_decimals: z.literal(8),
  updated_at: z.iso.datetime(),
  feed: addressSchema,
  source: z.literal("chainlink_eth_usd"),
  max_age_seconds: z.number().int().positive(),
});

/**
 * ETH/USD as we answer it: the platform client's shape, plus the spec's `decimals` (the fractional
 * digits of `price`, 8) and `chain_id`, and `updated_at_unix` (the spec's integer `updated_at`),
 * which must name the same second as the ISO `updated_at`.
 */
export const ethUsdSchema = platformClientEthUsdSchema
  .extend({
    decimals: z.literal(8),
    chain_id: z.number().int().positive(),
    updated_at_unix: countSchema,
  })
  .refine((body) => Date.parse(body.updated_at) === body.updated_at_unix * 1000, {
    message: "updated_at and updated_at_unix must name the same second",
  });

/**
 * Keys whose value may be `null` (present and nullable). Anywhere else a `null` breaks the rule
 * "optional keys are absent, never null".
 */
export const NULLABLE_KEYS: ReadonlySet<string> = new Set([
  "current_price",
  "fully_diluted_value",
  "holder_count",
  "latest_trade_timestamp",
  "open_price",
  "high_price",
  "low_price",
  "close_price",
  "eth_usd",
  // Fees (addition): who may claim, null while not indexed; the proposed payout, null when none.
  "payout_address",
  "pending_payout_address",
]);

/**
 * Paths (`a.b[0].c`) of every `null` in `body` under a key not in {@link NULLABLE_KEYS} and not
 * under one of `allowUnder` (the additions with documented nullable fields, e.g. `usd`).
 */
export function unexpectedNulls(body: unknown, allowUnder: readonly string[] = []): string[] {
  const found: string[] = [];
  const walk = (value: unknown, path: string, key: string, allowed: boolean) => {
    if (value === null) {
      if (!allowed && !NULLABLE_KEYS.has(key)) found.push(path || "(root)");
      return;
    }
    if (Array.isArray(value)) {
      for (const [i, v] of value.entries()) walk(v, `${path}[${i}]`, key, allowed);
    } else if (typeof value === "object")
      for (const [k, v] of Object.entries(value as object))
        walk(v, path ? `${path}.${k}` : k, k, allowed || allowUnder.includes(k));
  };
  walk(body, "", "", false);
  return found;
}

/** `schema.safeParse(body)` as a readable message (empty when it parses), for `expect(...).toBe("")`. */
export function schemaProblems(schema: z.ZodType, body: unknown): string {
  const result = schema.safeParse(body);
  return result.success ? "" : z.prettifyError(result.error);
}

/**
 * DEX Screener adapter bodies as the "DEX Screener Adapter Specs" v1.1 name them (their camelCase):
 * amounts in whole units with decimals applied, block numbers and Unix seconds as numbers.
 */
const dexUnitsSchema = z.string().regex(/^[0-9]+(\.[0-9]+)?$/, "decimal string in whole units");
const dexIdSchema = z.string().regex(/^0x[0-9a-f]{40}$/, "lowercase address");
const dexBlockSchema = z.strictObject({
  blockNumber: z.number().int().nonnegative(),
  blockTimestamp: z.number().int().nonnegative(),
});

/** `GET /dexscreener/latest-block`. */
export const dexLatestBlockSchema = z.strictObject({ block: dexBlockSchema });

/** `GET /dexscreener/asset`. */
export const dexAssetSchema = z.strictObject({
  asset: z.object({ id: dexIdSchema, name: z.string(), symbol: z.string(), totalSupply: dexUnitsSchema }),
});

/** `GET /dexscreener/pair`. */
export const dexPairSchema = z.strictObject({
  pair: z.object({
    id: dexIdSchema,
    dexKey: z.string().min(1),
    asset0Id: dexIdSchema,
    asset1Id: dexIdSchema,
    createdAtBlockNumber: z.number().int().nonnegative(),
    createdAtBlockTimestamp: z.number().int().nonnegative(),
    createdAtTxnId: hashSchema,
    feeBps: z.number().int().nonnegative().optional(),
  }),
});

/** `GET /dexscreener/events`: swap events, exactly one side in and the other out. */
export const dexEventsSchema = z.strictObject({
  events: z.array(
    z
      .object({
        block: dexBlockSchema,
        eventType: z.literal("swap"),
        txnId: hashSchema,
        txnIndex: z.number().int().nonnegative(),
        eventIndex: z.number().int().nonnegative(),
        maker: dexIdSchema,
        pairId: dexIdSchema,
        asset0In: dexUnitsSchema.optional(),
        asset1Out: dexUnitsSchema.optional(),
        asset1In: dexUnitsSchema.optional(),
        asset0Out: dexUnitsSchema.optional(),
        priceNative: dexUnitsSchema,
        reserves: z.object({ asset0: dexUnitsSchema, asset1: dexUnitsSchema }),
      })
      .refine(
        (e) =>
          (e.asset0In !== undefined && e.asset1Out !== undefined && e.asset1In === undefined) ||
          (e.asset1In !== undefined && e.asset0Out !== undefined && e.asset0In === undefined),
        "a swap is a buy (asset1In, asset0Out) or a sell (asset0In, asset1Out)",
      ),
  ),
});
