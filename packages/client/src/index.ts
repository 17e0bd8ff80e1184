// Typed client of the query-api routes (`/api/v1/...` behind the gateway), generated from the
// OpenAPI document query-api serves (`/api/v1/openapi.json`): `src/generated/api.ts` is rebuilt by
// `pnpm build` (scripts/generate.mjs), so a changed route, parameter or field changes these types
// and every caller that no longer fits fails to compile. Requests go through openapi-fetch.
import createClient, { type Client, type ClientOptions } from "openapi-fetch";
import type { components, paths } from "./generated/api.js";

export type { components, paths };

/** A client of every documented route: `client.GET("/api/v1/tokens/{address}", {params: {path: {address}}})`. */
export type ApiClient = Client<paths>;

/**
 * Creates an {@link ApiClient} for the API at `baseUrl` (the gateway, e.g.
 * `https://api.example.com`). Each call resolves to `{data}` (the documented 2xx body) or
 * `{error}` (the error envelope `{error: {code, message, request_id, details?}}`), with `response`;
 * it never throws on an HTTP status. `fetch` may be replaced (tests, retries, headers).
 */
export function createApiClient(options: ClientOptions & { baseUrl: string }): ApiClient {
  return createClient<paths>(options);
}

/** The document's named schemas. */
export type Schemas = components["schemas"];
/** The one Token object (lists, search, trending, creators). */
export type Token = Schemas["Token"];
/** Token detail: the Token object with `stats`. */
export type TokenDetail = Schemas["TokenDetail"];
/** A page of Tokens. */
export type TokenPage = Schemas["TokenPage"];
/** Current price and fully diluted value. */
export type Pricing = Schemas["Pricing"];
/** Chart in wei (default `currency=eth`). */
export type Chart = Schemas["Chart"];
/** One wei candle. */
export type Candle = Schemas["Candle"];
/** Chart in USD (`currency=usd`). */
export type UsdChart = Schemas["UsdChart"];
/** One USD candle. */
export type UsdCandle = Schemas["UsdCandle"];
/** One trade (curve or pool). */
export type Trade = Schemas["Trade"];
/** A page of trades. */
export type TradePage = Schemas["TradePage"];
/** A page of decoded chain events. */
export type ActivityPage = Schemas["ActivityPage"];
/** Creator profile with its first page of tokens. */
export type CreatorProfile = Schemas["CreatorProfile"];
/** The error envelope of every 4xx/5xx answer. */
export type ApiError = Schemas["Error"];

/** Whether `chart` is a USD chart (`currency=usd`). */
export function isUsdChart(chart: Chart | UsdChart): chart is UsdChart {
  return "currency" in chart && chart.currency === "usd";
}

/** DEX Screener adapter (`/dexscreener/*`, their Adapter Specs v1.1): `GET latest-block`. */
export type DexScreenerLatestBlock = Schemas["DexScreenerLatestBlockResponse"];
/** DEX Screener adapter: `GET asset?id=` (a launched token). */
export type DexScreenerAsset = Schemas["DexScreenerAssetResponse"];
/** DEX Screener adapter: `GET pair?id=` (a token's curve with WETH). */
export type DexScreenerPair = Schemas["DexScreenerPairResponse"];
/** DEX Screener adapter: one curve trade as a `swap` event. */
export type DexScreenerSwapEvent = Schemas["DexScreenerSwapEvent"];
/** DEX Screener adapter: `GET events?fromBlock=&toBlock=`. */
export type DexScreenerEvents = Schemas["DexScreenerEventsResponse"];

/** One published trader-reward distribution of a token (`/api/v1/tokens/{address}/rewards/distributions`). */
export type RewardDistribution = Schemas["RewardDistribution"];
/** A page of {@link RewardDistribution}. */
export type RewardDistributionPage = Schemas["RewardDistributionPage"];
/**
 * One distribution of a wallet (`/api/v1/wallets/{address}/rewards`): its claim, its leaf in an
 * uploaded tree, or both; with a leaf, `amount` and `proof` are the distributor's `claim` arguments.
 */
export type WalletReward = Schemas["WalletReward"];
/** A page of {@link WalletReward}, newest epoch first (`limit`, `cursor`, `order`). */
export type WalletRewardPage = Schemas["WalletRewardPage"];

/**
 * The answer of `POST /api/v1/rewards/distributions/{id}/tree` (served by metadata-api behind the
 * gateway, so not in query-api's OpenAPI document): the stored tree (201, or 200 when already
 * stored). docs/api.md "Reward distributions".
 */
export interface RewardTreeStored {
  distribution_id: string;
  token_address: string;
  epoch: string;
  asset: string;
  root: string;
  /** How the leaves were laid out to hash to the published root. */
  order: "given" | "sorted";
  leaf_count: number;
}

/**
 * Uploads every leaf (`amount` a decimal string in base units) of the published distribution `id`
 * through the gateway at `baseUrl`. Resolves with the status (201 stored, 200 already stored) and
 * the stored tree.
 * @throws Error with the error envelope's `code` (400 `invalid_request`, 404 `not_found`, 422
 *   `root_mismatch`, …) and `status`.
 */
export async function uploadRewardTree(
  baseUrl: string,
  id: string,
  leaves: readonly { claimant: string; amount: string }[],
  init: { fetch?: typeof fetch; headers?: Record<string, string> } = {},
): Promise<{ status: 200 | 201; tree: RewardTreeStored }> {
  const response = await (init.fetch ?? fetch)(`${baseUrl}/api/v1/rewards/distributions/${id}/tree`, {
    method: "POST",
    headers: { "content-type": "application/json", ...init.headers },
    body: JSON.stringify({ leaves }),
  });
  const body = (await response.json()) as RewardTreeStored | ApiError;
  if (response.status !== 200 && response.status !== 201) {
    const error = (body as ApiError).error;
    throw Object.assign(new Error(error?.message ?? `HTTP ${response.status}`), {
      code: error?.code,
      status: response.status,
    });
  }
  return { status: response.status, tree: body as RewardTreeStored };
}

/** A webhook of an API key (`/api/v1/webhooks`; every webhook route needs the key: pass `headers: {authorization: "Bearer <key>"}` to {@link createApiClient}). */
export type Webhook = Schemas["Webhook"];
/** `POST /api/v1/webhooks` (201): the webhook and its signing secret, shown this once. */
export type WebhookCreated = Schemas["WebhookCreated"];
/** `GET /api/v1/webhooks`: the key's webhooks, oldest first. */
export type WebhookList = Schemas["WebhookList"];
/** One delivery of an event to a webhook. */
export type WebhookDelivery = Schemas["WebhookDelivery"];
/** `GET /api/v1/webhooks/{id}/deliveries`: a page of deliveries, newest first. */
export type WebhookDeliveryPage = Schemas["WebhookDeliveryPage"];
/** `POST /api/v1/webhooks/{id}/test` (202): the queued `webhook.test` event. */
export type WebhookTestAccepted = Schemas["WebhookTestAccepted"];
