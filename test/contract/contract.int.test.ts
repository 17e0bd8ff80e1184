// Contract tests: every route of the API, errors included, called through the gateway of the whole
// system (test/src/system.ts: devnet, real indexer, every service) and every answer parsed with the
// schemas of test/src/platform-schemas.ts — what zonk.fun's web client parses, tightened by
// docs/api.md. The market is built once (test/src/api-scenario.ts); the tests of this file run in
// order on it. With API_EXAMPLES_OUT set, the titled answers are written as docs/api-examples.md.

import { createApiClient, isUsdChart, type paths, type Token } from "@tmi/client";
import { createTrader, setEthUsdRound, type Trader } from "@tmi/devnet";
import { traderRewardsVaultV3Abi } from "@tmi/shared/chain";
import { hashApiKey } from "@tmi/shared/http";
import { waitFor } from "@tmi/testkit";
import pg from "pg";
import { createPublicClient, http, zeroAddress } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { ApiExampleLog } from "../src/api-examples.js";
import { ALPHA_FIELDS, draftForm, type Market, seedMarket, TOTAL_SUPPLY } from "../src/api-scenario.js";
import { openApiChecker } from "../src/openapi-check.js";
import {
  activityPageSchema,
  CHART_INTERVALS,
  CURVE_ALLOCATION,
  chartSchema,
  creatorEarningsSchema,
  creatorProfileSchema,
  errorEnvelopeSchema,
  ethUsdSchema,
  holderHistorySchema,
  holderPageSchema,
  holdingPageSchema,
  indexingStatusSchema,
  metadataDraftSchema,
  platformClientEthUsdSchema,
  pricingSchema,
  rewardDistributionPageSchema,
  rewardTreeSchema,
  schemaProblems,
  serviceStatusSchema,
  tokenDetailSchema,
  tokenFeesSchema,
  tokenPageSchema,
  tokenSchema,
  tradePageSchema,
  traderPageSchema,
  unexpectedNulls,
  usdChartSchema,
  walletRewardPageSchema,
  walletSummarySchema,
  webhookCreatedSchema,
  webhookDeliveriesSchema,
  webhookListSchema,
  webhookSchema,
  webhookTestAcceptedSchema,
} from "../src/platform-schemas.js";
import { type JsonResponse, type System, startSystem } from "../src/system.js";

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;
const UNKNOWN = "0x00000000000000000000000000000000deadbeef";
const JSON_HEADERS = { "content-type": "application/json" };

/** Query of the chart route, as the OpenAPI document declares it. */
type ChartQuery = NonNullable<paths["/api/v1/tokens/{address}/chart"]["get"]["parameters"]["query"]>;

let system: System;
let market: Market;
const examples = new ApiExampleLog();
/** Every answer seen, for the checks that apply to all of them. */
const seen: { label: string; response: JsonResponse }[] = [];

/**
 * One request through the gateway; every answer must carry a valid `X-Request-ID`. With `example`,
 * the exchange goes into the API examples under that section and title.
 */
async function call(
  path: string,
  init: RequestInit & { example?: [section: string, title: string]; shownRequest?: unknown } = {},
): Promise<JsonResponse> {
  const { example, shownRequest, ...requestInit } = init;
  const response = await system.request(path, requestInit);
  const label = `${requestInit.method ?? "GET"} ${path}`;
  seen.push({ label, response });
  expect(response.headers.get("x-request-id"), `X-Request-ID of ${label}`).toMatch(REQUEST_ID);
  if (example)
    examples.add({
      section: example[0],
      title: example[1],
      method: requestInit.method ?? "GET",
      path,
      request: shownRequest,
      headers: ["retry-after", "allow", "cache-control"].filter(
        (h) => h !== "cache-control" || path.startsWith("/api/v1/prices"),
      ),
      response,
    });
  return response;
}

/**
 * The typed client (`@tmi/client`, generated from query-api's OpenAPI document) over the gateway:
 * each request goes through {@link call} (request id, examples, the checks over every answer), and
 * the answers the tests read are typed by the document, so a changed route, parameter or field
 * breaks `pnpm build` (`tsc -p test/contract`) as it would break an integrator's build.
 */
function api(example?: [section: string, title: string], headers?: Record<string, string>) {
  return createApiClient({
    baseUrl: "http://gateway.invalid",
    ...(headers ? { headers } : {}),
    fetch: async (request: Request) => {
      const url = new URL(request.url);
      // Headers and a JSON body (the webhook routes) are sent as the client built them.
      const text = request.body ? await request.text() : "";
      const answer = await call(`${url.pathname}${url.search}`, {
        method: request.method,
        headers: Object.fromEntries(request.headers),
        ...(text ? { body: text, shownRequest: JSON.parse(text) } : {}),
        ...(example ? { example } : {}),
      });
      const body = answer.status === 204 || answer.status === 304 ? null : JSON.stringify(answer.body);
      return new Response(body, { status: answer.status, headers: { "content-type": "application/json" } });
    },
  });
}

/** {@link expectAnswer} for a typed client's result: asserts `status` and `schema`; returns the typed body. */
async function expectTyped<T>(
  pending: Promise<{ data?: T; error?: unknown; response: Response }>,
  status: number,
  schema: z.ZodType,
): Promise<T> {
  const { data, error, response } = await pending;
  expectAnswer({ status: response.status, headers: response.headers, body: data ?? error }, status, schema);
  return data as T;
}

/** Asserts `status` and that the body parses with `schema`; returns the body. */
// biome-ignore lint/suspicious/noExplicitAny: bodies are read field by field after the schema passed
function expectAnswer(response: JsonResponse, status: number, schema: z.ZodType): any {
  expect(response.status, JSON.stringify(response.body)).toBe(status);
  expect(schemaProblems(schema, response.body), JSON.stringify(response.body)).toBe("");
  return response.body;
}

/** `wei` × `ethUsd` (a decimal string) / 10^18 as an exact decimal string, trailing zeros trimmed. */
function exactUsd(wei: bigint, ethUsd: string): string {
  const [whole, fraction = ""] = ethUsd.split(".");
  const scaled = wei * BigInt(whole + fraction);
  const digits = 18 + fraction.length;
  const text = scaled.toString().padStart(digits + 1, "0");
  const out = `${text.slice(0, -digits)}.${text.slice(-digits)}`.replace(/\.?0+$/, "");
  return out === "" ? "0" : out;
}

/** Asserts an error answer: `status`, the envelope, `code` (or one of `code`), `details` fields. */
function expectError(
  response: JsonResponse,
  status: number,
  code: string | readonly string[],
  detailsField?: string,
): void {
  const body = expectAnswer(response, status, errorEnvelopeSchema);
  const codes = typeof code === "string" ? [code] : code;
  expect(codes, JSON.stringify(body)).toContain(body.error.code);
  expect(body.error.request_id).toBe(response.headers.get("x-request-id"));
  if (detailsField)
    expect(body.error.details?.map((d: { field: string }) => d.field) ?? [], JSON.stringify(body)).toContain(
      detailsField,
    );
}

const tokenRoutes = (a: string) => [
  `/api/v1/tokens/${a}`,
  `/api/v1/tokens/${a}/pricing`,
  `/api/v1/tokens/${a}/chart`,
  `/api/v1/tokens/${a}/trades`,
  `/api/v1/tokens/${a}/activity`,
  `/api/v1/tokens/${a}/holders`,
];
const creatorRoutes = (a: string) => [`/api/v1/creators/${a}`, `/api/v1/creators/${a}/tokens`];
const walletRoutes = (a: string) => [
  `/api/v1/wallets/${a}`,
  `/api/v1/wallets/${a}/holdings`,
  `/api/v1/wallets/${a}/trades`,
];

/** A JSON item of a page, read field by field after its schema passed. */
// biome-ignore lint/suspicious/noExplicitAny: see above
type Item = any;

/** Every item of a paged route, one item per page (following `next_cursor`), each page parsed with `schema`. */
async function walk(path: string, schema: z.ZodType): Promise<Item[]> {
  const items: Item[] = [];
  let cursor: string | undefined;
  const sep = path.includes("?") ? "&" : "?";
  do {
    const page = expectAnswer(
      await call(`${path}${sep}limit=1${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`),
      200,
      schema,
    );
    items.push(...page.items);
    cursor = page.next_cursor;
  } while (cursor);
  return items;
}

describe("contract: every route through the gateway", () => {
  beforeAll(async () => {
    system = await startSystem({ echo: process.env.E2E_ECHO === "1" });
  }, 180_000);

  afterAll(async () => {
    const out = process.env.API_EXAMPLES_OUT;
    if (out && market) {
      examples.write(
        out,
        `Written by \`pnpm docs:api-examples\` (the contract tests, test/contract/contract.int.test.ts, with
\`API_EXAMPLES_OUT\`): every answer below was returned through the gateway of the whole system on a
devnet (the real indexer and every service) after wallets launched two tokens, traded on their
curves, graduated one into its canonical Uniswap V3 pool and swapped there (test/src/api-scenario.ts).
Each answer was parsed with the contract schemas (test/src/platform-schemas.ts): the shapes zonk.fun's
own web client parses, with the rules of \`docs/api.md\` (optional keys absent, never \`null\`; one
Token object everywhere; the error envelope). Lists are cut to their first items (candles: the last
ones), as each title says; everything else is as returned.

\`GET /api/v1/prices/eth-usd\` answers the platform's own shape (its running API and web client:
\`price\` with 8 fractional digits, \`price_decimals\`, ISO 8601 \`updated_at\`, \`feed\`,
\`max_age_seconds\`) plus the specification's \`decimals\` and \`chain_id\` and \`updated_at_unix\`
(docs/api.md explains why it departs from the specification's table).`,
      );
    }
    // The services' own logs, when asked for (debugging a failure).
    if (process.env.CONTRACT_OUTPUT === "1" && system) console.log(system.output());
    await system?.stop();
  }, 60_000);

  it("default: /health and /readyz answer the status response with the request id", async () => {
    const health = await call("/health", {
      headers: { "x-request-id": "contract-health.1" },
      example: ["Status", "Liveness (the gateway itself)"],
    });
    expect(expectAnswer(health, 200, serviceStatusSchema("ok")).request_id).toBe("contract-health.1");
    expect(health.headers.get("x-request-id")).toBe("contract-health.1");
    expectAnswer(
      await call("/readyz", { example: ["Status", "Readiness (query-api, database ping)"] }),
      200,
      serviceStatusSchema("ready"),
    );
    // An invalid incoming id is replaced.
    const replaced = await call("/health", { headers: { "x-request-id": "bad id" } });
    expect(replaced.headers.get("x-request-id")).not.toBe("bad id");
  });

  it("behavior: metadata drafts answer 201 with description always a string and object paths", async () => {
    const full = await call("/api/v1/token-metadata", {
      method: "POST",
      body: draftForm({ ...ALPHA_FIELDS, name: "Draft Full" }),
      shownRequest: { "multipart/form-data": { ...ALPHA_FIELDS, name: "Draft Full", image: "(1×1 PNG)" } },
      example: ["Metadata", "Create a draft (every field)"],
    });
    const body = expectAnswer(full, 201, metadataDraftSchema);
    expect(body).toMatchObject({ ...ALPHA_FIELDS, name: "Draft Full" });
    const minimalFields = { name: "Draft Min", symbol: "MIN", initial_supply: TOTAL_SUPPLY.toString() };
    const minimal = expectAnswer(
      await call("/api/v1/token-metadata", {
        method: "POST",
        body: draftForm(minimalFields),
        shownRequest: { "multipart/form-data": { ...minimalFields, image: "(1×1 PNG)" } },
        example: ["Metadata", "Create a draft (required fields only)"],
      }),
      201,
      metadataDraftSchema,
    );
    expect(minimal.description).toBe("");
    for (const key of ["website_url", "x_url", "telegram_url", "discord_url"])
      expect(minimal).not.toHaveProperty(key);
  });

  it("error: metadata validation answers the platform's codes with details", async () => {
    const base = { name: "Valid", symbol: "VAL", initial_supply: TOTAL_SUPPLY.toString() };
    const cases: [string, Record<string, string>, string, string][] = [
      ["empty name", { ...base, name: "" }, "invalid_name", "name"],
      ["name over 64 bytes", { ...base, name: "é".repeat(33) }, "invalid_name", "name"],
      ["symbol over 16 bytes", { ...base, symbol: "S".repeat(17) }, "invalid_symbol", "symbol"],
      [
        "description over 1,000 bytes",
        { ...base, description: "d".repeat(1001) },
        "invalid_description",
        "description",
      ],
      ["supply zero", { ...base, initial_supply: "0" }, "invalid_supply", "initial_supply"],
      ["supply not an integer", { ...base, initial_supply: "1e27" }, "invalid_supply", "initial_supply"],
      [
        "supply over uint256",
        { ...base, initial_supply: (1n << 256n).toString() },
        "invalid_supply",
        "initial_supply",
      ],
      [
        "website not http(s)",
        { ...base, website_url: "ftp://example.com/" },
        "invalid_website_url",
        "website_url",
      ],
      ["x_url on another host", { ...base, x_url: "https://example.com/alpha" }, "invalid_x_url", "x_url"],
      [
        "telegram_url on another host",
        { ...base, telegram_url: "https://x.com/alpha" },
        "invalid_telegram_url",
        "telegram_url",
      ],
      [
        "discord_url on another host",
        { ...base, discord_url: "https://t.me/alpha" },
        "invalid_discord_url",
        "discord_url",
      ],
    ];
    for (const [what, fields, code, field] of cases) {
      const response = await call("/api/v1/token-metadata", {
        method: "POST",
        body: draftForm(fields),
        ...(what === "x_url on another host"
          ? {
              shownRequest: { "multipart/form-data": { ...fields, image: "(1×1 PNG)" } },
              example: ["Metadata errors", "A field that fails validation"] as [string, string],
            }
          : {}),
      });
      expect.soft(response.status, what).toBe(400);
      expect.soft(response.body?.error?.code, `${what}: ${JSON.stringify(response.body)}`).toBe(code);
      expect
        .soft(response.body?.error?.details?.map((d: { field: string }) => d.field) ?? [], what)
        .toContain(field);
      expect.soft(schemaProblems(errorEnvelopeSchema, response.body), what).toBe("");
    }
    // Neither image nor image_url; not multipart; not an image; over 5 MB; an image_url on a private host.
    expectError(
      await call("/api/v1/token-metadata", { method: "POST", body: draftForm(base, null) }),
      400,
      ["invalid_upload", "invalid_image"],
      "image",
    );
    expectError(
      await call("/api/v1/token-metadata", {
        method: "POST",
        headers: JSON_HEADERS,
        body: JSON.stringify(base),
        shownRequest: base,
        example: ["Metadata errors", "Not a multipart form"],
      }),
      400,
      "invalid_upload",
    );
    expectError(
      await call("/api/v1/token-metadata", {
        method: "POST",
        body: draftForm(base, Buffer.from("not an image at all")),
      }),
      415,
      "unsupported_image_type",
    );
    expectError(
      await call("/api/v1/token-metadata", {
        method: "POST",
        body: draftForm(base, new Uint8Array(5 * 1024 * 1024 + 1)),
        shownRequest: { "multipart/form-data": { ...base, image: "(5 MB + 1 byte)" } },
        example: ["Metadata errors", "Image over 5 MB"],
      }),
      413,
      "payload_too_large",
    );
    expectError(
      await call("/api/v1/token-metadata", {
        method: "POST",
        body: draftForm({ ...base, image_url: "https://127.0.0.1/logo.png" }, null),
        shownRequest: { "multipart/form-data": { ...base, image_url: "https://127.0.0.1/logo.png" } },
        example: ["Metadata errors", "image_url on a private host"],
      }),
      422,
      "image_unavailable",
    );
  });

  it("behavior: the market is built; finalize before indexing answers 409 not_indexed (the only code the client retries on)", async () => {
    market = await seedMarket(system);
    const { launchNotIndexed, receiptNotVisible } = market.beforeIndexing;
    for (const [what, response] of [
      ["launch confirmed, not indexed", launchNotIndexed],
      ["receipt not yet visible", receiptNotVisible],
    ] as const) {
      seen.push({ label: `finalize before indexing (${what})`, response });
      expect(response.headers.get("x-request-id")).toMatch(REQUEST_ID);
      expectError(response, 409, "not_indexed");
    }
    examples.add({
      section: "Finalize",
      title: "Finalize before the launch is indexed",
      method: "POST",
      path: `/api/v1/token-metadata/${market.alpha.draftId}/finalize`,
      request: { token_address: market.alpha.token, transaction_hash: market.alpha.launch.hash },
      response: launchNotIndexed,
    });
  }, 300_000);

  it("behavior: finalize answers 200 with the Token object, again on a repeat; 404, 422, 409 and 400 otherwise", async () => {
    const { alpha, beta, alphaDraft } = market;
    const request = { token_address: alpha.token, transaction_hash: alpha.launch.hash };
    const path = `/api/v1/token-metadata/${alpha.draftId}/finalize`;
    const post = (p: string, body: unknown, example?: [string, string]) =>
      call(p, {
        method: "POST",
        headers: JSON_HEADERS,
        body: JSON.stringify(body),
        shownRequest: body,
        example,
      });
    const bound = expectAnswer(
      await post(path, request, ["Finalize", "Finalize once indexed (the bound Token)"]),
      200,
      tokenSchema,
    );
    expect(bound).toMatchObject({
      address: alpha.token,
      name: ALPHA_FIELDS.name,
      description: ALPHA_FIELDS.description,
      website_url: ALPHA_FIELDS.website_url,
      x_url: ALPHA_FIELDS.x_url,
      telegram_url: ALPHA_FIELDS.telegram_url,
      discord_url: ALPHA_FIELDS.discord_url,
      image_url: alphaDraft.image_url,
      metadata_url: alphaDraft.metadata_url,
      metadata_verified: false,
    });
    expectAnswer(await post(path, request), 200, tokenSchema);
    expectError(
      await post(`/api/v1/token-metadata/00000000-0000-4000-8000-000000000000/finalize`, request, [
        "Finalize",
        "Unknown draft",
      ]),
      404,
      "not_found",
    );
    // The draft is bound to alpha: binding it to beta is refused.
    expectError(
      await post(path, { token_address: beta.token, transaction_hash: beta.launch.hash }, [
        "Finalize",
        "Draft bound to another launch",
      ]),
      409,
      "already_finalized",
    );
    // A fresh draft whose name differs from beta's launch.
    const other = expectAnswer(
      await call("/api/v1/token-metadata", {
        method: "POST",
        body: draftForm({ ...ALPHA_FIELDS, name: "Not Beta", symbol: "NOTB" }),
      }),
      201,
      metadataDraftSchema,
    );
    expectError(
      await post(
        `/api/v1/token-metadata/${other.draft_id}/finalize`,
        { token_address: beta.token, transaction_hash: beta.launch.hash },
        ["Finalize", "Launch does not match the draft"],
      ),
      422,
      "launch_mismatch",
    );
    expectError(await post(path, { token_address: "0x1234", transaction_hash: alpha.launch.hash }), 400, [
      "invalid_request",
      "invalid_address",
    ]);
    expectError(await post(path, { token_address: alpha.token }), 400, "invalid_request");
    expectError(
      await call(path, { method: "POST", headers: JSON_HEADERS, body: "{not json" }),
      400,
      "invalid_request",
    );
  });

  it("behavior: token list, newest, search, trending and its alias answer pages of the one Token object", async () => {
    const { alpha, beta, alphaDraft } = market;
    const list = await expectTyped(api(["Tokens", "Token list"]).GET("/api/v1/tokens"), 200, tokenPageSchema);
    expect(list.items.map((t) => t.address)).toEqual([beta.token, alpha.token]);
    expect(list).not.toHaveProperty("next_cursor");
    const [betaItem, alphaItem] = list.items as [Token, Token];
    // List items carry curve (progress from sold_supply / graduation_threshold) and graduation.
    for (const item of list.items) {
      expect(item.curve.graduation_threshold).toBe(CURVE_ALLOCATION.toString());
      expect(item.curve.address).not.toBe(item.address);
      expect(item.metrics.latest_trade_timestamp).toBeTypeOf("number");
      expect(item.initial_supply).toBe(TOTAL_SUPPLY.toString());
    }
    expect(alphaItem.curve.lifecycle).toBe("graduated");
    expect(alphaItem.graduation?.phase).toBe("graduated");
    expect(alphaItem.image_url).toBe(alphaDraft.image_url);
    expect(betaItem.curve.lifecycle).toBe("active");
    expect(betaItem).not.toHaveProperty("graduation");
    for (const key of [
      "description",
      "image_url",
      "metadata_url",
      "website_url",
      "x_url",
      "telegram_url",
      "discord_url",
    ])
      expect(betaItem, key).not.toHaveProperty(key);

    expect(
      expectAnswer(
        await call("/api/v1/tokens/newest", { example: ["Tokens", "Newest (alias of the list)"] }),
        200,
        tokenPageSchema,
      ),
    ).toEqual(list);
    const first = expectAnswer(
      await call("/api/v1/tokens?limit=1", { example: ["Tokens", "A page of one, with next_cursor"] }),
      200,
      tokenPageSchema,
    );
    expect(first.next_cursor).toBeTypeOf("string");
    const second = expectAnswer(
      await call(`/api/v1/tokens?limit=1&cursor=${encodeURIComponent(first.next_cursor)}`),
      200,
      tokenPageSchema,
    );
    expect(second.items.map((t: { address: string }) => t.address)).toEqual([alpha.token]);
    expect(second).not.toHaveProperty("next_cursor");
    const search = expectAnswer(
      await call("/api/v1/tokens?search=alpha", { example: ["Tokens", "Search"] }),
      200,
      tokenPageSchema,
    );
    expect(search.items.map((t: { address: string }) => t.address)).toEqual([alpha.token]);
    expectAnswer(await call("/api/v1/tokens?search=nothing-matches"), 200, tokenPageSchema);

    const trending = await waitFor(
      async () => {
        const r = await call("/api/v1/tokens/trending");
        // Before a snapshot ranks them, every token is listed newest first (beta, then alpha).
        return r.status === 200 && r.body.items[0]?.address === market.alpha.token && r;
      },
      { timeoutMs: 30_000, message: "trending snapshot ranking alpha (the larger volume) first" },
    );
    expectAnswer(trending, 200, tokenPageSchema);
    examples.add({
      section: "Tokens",
      title: "Trending",
      method: "GET",
      path: "/api/v1/tokens/trending",
      response: trending,
    });
    expect(
      expectAnswer(
        await call("/api/v1/trending", { example: ["Tokens", "Trending (alias)"] }),
        200,
        tokenPageSchema,
      ).items,
    ).toEqual(trending.body.items);
    const trendingFirst = expectAnswer(await call("/api/v1/trending?limit=1"), 200, tokenPageSchema);
    expectAnswer(
      await call(`/api/v1/trending?limit=1&cursor=${encodeURIComponent(trendingFirst.next_cursor)}`),
      200,
      tokenPageSchema,
    );
  });

  it("behavior: discovery sorts, phase, batch and the market-wide trades feed", async () => {
    const { alpha, beta } = market;
    const addresses = (body: { items: { address: string }[] }) => body.items.map((t) => t.address);
    type ListQuery = NonNullable<paths["/api/v1/tokens"]["get"]["parameters"]["query"]>;
    const sorted = async (query: ListQuery, title?: string) =>
      addresses(
        await expectTyped(
          api(title ? ["Discovery", title] : undefined).GET("/api/v1/tokens", { params: { query } }),
          200,
          tokenPageSchema,
        ),
      );
    // alpha graduated with the larger volume, market cap and holder count; beta is on its curve.
    expect(await sorted({ sort: "market_cap" }, "Sorted by market cap")).toEqual([alpha.token, beta.token]);
    expect(await sorted({ sort: "volume_24h" }, "Sorted by 24 h volume")).toEqual([alpha.token, beta.token]);
    expect(await sorted({ sort: "progress" }, "Closest to graduation (curve phase only)")).toEqual([
      beta.token,
    ]);
    expect(await sorted({ sort: "trending", phase: "curve" }, "Trending, curve phase")).toEqual([beta.token]);
    expect(await sorted({ phase: "graduated" }, "Graduated tokens, newest first")).toEqual([alpha.token]);
    expect(await sorted({ sort: "holders", search: "alpha" })).toEqual([alpha.token]);
    for (const sort of ["newest", "last_trade", "holders", "trending"] as const)
      expect((await sorted({ sort })).sort(), sort).toEqual([alpha.token, beta.token].sort());
    const page = expectAnswer(await call("/api/v1/tokens?sort=market_cap&limit=1"), 200, tokenPageSchema);
    expect(
      addresses(
        expectAnswer(
          await call(`/api/v1/tokens?sort=market_cap&limit=1&cursor=${encodeURIComponent(page.next_cursor)}`),
          200,
          tokenPageSchema,
        ),
      ),
    ).toEqual([beta.token]);
    const batch = await expectTyped(
      api(["Discovery", "Batch (order given; unknown left out)"]).GET("/api/v1/tokens", {
        params: {
          query: { addresses: `${beta.token},${UNKNOWN},${alpha.token.toUpperCase().replace("0X", "0x")}` },
        },
      }),
      200,
      tokenPageSchema,
    );
    expect(addresses(batch)).toEqual([beta.token, alpha.token]);
    expect(batch).not.toHaveProperty("next_cursor");

    // Screener filters (docs/api.md "Screener filters"): each bound at a token's own value keeps it
    // (inclusive), the same as filtering both tokens' items by hand; combined with sorts and phase.
    const both = await sorted({ sort: "market_cap" });
    const items = new Map(
      (
        await expectTyped(
          api().GET("/api/v1/tokens", { params: { query: { sort: "market_cap" } } }),
          200,
          tokenPageSchema,
        )
      ).items.map((t) => [t.address, t]),
    );
    const [a, b] = [items.get(alpha.token), items.get(beta.token)];
    if (!a || !b) throw new Error("alpha and beta are listed");
    type Item = typeof b;
    const fdv = (t: Item) => BigInt(t.metrics.fully_diluted_value ?? "-1");
    const screens: [ListQuery, (t: Item) => boolean][] = [
      [{ min_market_cap: String(fdv(a)) }, (t) => fdv(t) >= fdv(a)],
      [{ max_market_cap: String(fdv(b)) }, (t) => fdv(t) >= 0n && fdv(t) <= fdv(b)],
      [
        { min_holders: String(a.metrics.holder_count) },
        (t) => t.metrics.holder_count >= a.metrics.holder_count,
      ],
      [
        { max_holders: String(b.metrics.holder_count) },
        (t) => t.metrics.holder_count <= b.metrics.holder_count,
      ],
      [
        { min_progress_bps: String(b.curve.progress_bps), max_progress_bps: String(b.curve.progress_bps) },
        (t) => t.curve.progress_bps === b.curve.progress_bps,
      ],
      [
        { max_top10_share_bps: String(b.risk.top10_share_bps) },
        (t) => t.risk.top10_share_bps <= b.risk.top10_share_bps,
      ],
      [
        { max_creator_share_bps: String(a.risk.creator_share_bps) },
        (t) => t.risk.creator_share_bps <= a.risk.creator_share_bps,
      ],
      [
        { max_sniper_share_bps: String(a.risk.sniper_share_bps) },
        (t) => t.risk.sniper_share_bps <= a.risk.sniper_share_bps,
      ],
      [
        { max_insider_share_bps: String(b.risk.insider_share_bps) },
        (t) => t.risk.insider_share_bps <= b.risk.insider_share_bps,
      ],
      [{ creator_has_sold: "true" }, (t) => t.risk.creator_has_sold],
      [{ creator_has_sold: "false" }, (t) => !t.risk.creator_has_sold],
      [{ min_age_seconds: "0", max_age_seconds: "100000000" }, () => true],
      [{ min_age_seconds: "100000000" }, () => false],
      [{ min_volume_24h: "0" }, () => true],
      [{ min_volume_24h: (10n ** 40n).toString() }, () => false],
    ];
    for (const [query, keep] of screens)
      expect(await sorted({ sort: "market_cap", ...query }), JSON.stringify(query)).toEqual(
        both.filter((address) => keep(items.get(address) as Item)),
      );
    expect(
      await sorted(
        {
          sort: "holders",
          min_holders: "1",
          max_top10_share_bps: "10000",
          creator_has_sold: String(a.risk.creator_has_sold) as "true" | "false",
        },
        "Screener: holders, concentration and creator sales",
      ),
    ).toEqual([
      alpha.token,
      ...(b.risk.creator_has_sold === a.risk.creator_has_sold && b.metrics.holder_count >= 1
        ? [beta.token]
        : []),
    ]);
    expect(
      await sorted(
        { sort: "volume_24h", phase: "curve", min_progress_bps: "0", max_sniper_share_bps: "10000" },
        "Screener: curve tokens by 24 h volume",
      ),
    ).toEqual([beta.token]);
    expect(
      await sorted({ search: "alpha", max_market_cap: String(fdv(a)), min_market_cap: String(fdv(a)) }),
    ).toEqual([alpha.token]);
    const screened = expectAnswer(
      await call("/api/v1/tokens?sort=market_cap&min_holders=0&limit=1"),
      200,
      tokenPageSchema,
    );
    expect(screened.next_cursor).toBeDefined();
    expectAnswer(
      await call(
        `/api/v1/tokens?sort=market_cap&min_holders=0&limit=1&cursor=${encodeURIComponent(screened.next_cursor)}`,
      ),
      200,
      tokenPageSchema,
    );
    for (const query of [
      "sort=market_cap",
      "sort=market_cap&min_holders=1",
      "sort=market_cap&min_holders=0&creator_has_sold=false",
    ])
      expectError(
        await call(`/api/v1/tokens?${query}&limit=1&cursor=${encodeURIComponent(screened.next_cursor)}`, {
          ...(query === "sort=market_cap"
            ? { example: ["Errors", "A screener cursor reused with other filters"] as [string, string] }
            : {}),
        }),
        400,
        "invalid_request",
        "cursor",
      );
    for (const [query, field] of [
      ["min_market_cap=-1", "min_market_cap"],
      ["max_holders=1.5", "max_holders"],
      ["min_volume_24h=1e18", "min_volume_24h"],
      ["max_age_seconds=abc", "max_age_seconds"],
      ["min_progress_bps=", "min_progress_bps"],
      ["max_top10_share_bps=%2010", "max_top10_share_bps"],
      ["max_creator_share_bps=0x10", "max_creator_share_bps"],
      ["max_sniper_share_bps=-0", "max_sniper_share_bps"],
      ["max_insider_share_bps=1&max_insider_share_bps=2", "max_insider_share_bps"],
      ["creator_has_sold=yes", "creator_has_sold"],
      ["min_holders=5&max_holders=4", "min_holders"],
      [`addresses=${alpha.token}&min_holders=1`, "min_holders"],
    ] as const)
      expectError(
        await call(`/api/v1/tokens?${query}`, {
          ...(field === "min_holders" && query.startsWith("min_holders")
            ? { example: ["Errors", "A screener minimum above its maximum"] as [string, string] }
            : {}),
        }),
        400,
        "invalid_request",
        field,
      );

    const trades = await expectTyped(
      api(["Discovery", "Market-wide trades, newest first"]).GET("/api/v1/trades", {
        params: { query: { limit: "3" } },
      }),
      200,
      tradePageSchema,
    );
    expect(trades.items).toHaveLength(3);
    expect(trades.next_cursor).toBeTypeOf("string");
    const all = expectAnswer(await call("/api/v1/trades?limit=100"), 200, tradePageSchema);
    expect(new Set(all.items.map((t: { token_address: string }) => t.token_address))).toEqual(
      new Set([alpha.token, beta.token]),
    );
    const blocks = all.items.map((t: { block_number: number }) => t.block_number);
    expect(blocks).toEqual([...blocks].sort((a, b) => b - a));
    const swaps = await expectTyped(
      api(["Discovery", "Market-wide trades of one venue"]).GET("/api/v1/trades", {
        params: { query: { source: "uniswap_v3" } },
      }),
      200,
      tradePageSchema,
    );
    expect(swaps.items.length).toBeGreaterThan(0);
    for (const t of swaps.items) {
      expect(t.source).toBe("uniswap_v3");
      expect(t.token_address).toBe(alpha.token);
    }
    const next = expectAnswer(
      await call(`/api/v1/trades?limit=3&cursor=${encodeURIComponent(trades.next_cursor ?? "")}`),
      200,
      tradePageSchema,
    );
    expect(next.items[0]).toEqual(all.items[3]);
    const oldest = expectAnswer(await call("/api/v1/trades?order=asc&limit=100"), 200, tradePageSchema);
    expect(oldest.items).toEqual([...all.items].reverse());
  });

  it("behavior: detail, pricing, chart, trades, activity and holders of a graduated and a curve token", async () => {
    const { alpha, beta } = market;
    const alphaDetail = expectAnswer(
      await call(`/api/v1/tokens/${alpha.token}`, {
        example: ["Token", "Detail of a graduated token with metadata"],
      }),
      200,
      tokenDetailSchema,
    );
    expect(alphaDetail.graduation).toMatchObject({
      phase: "graduated",
      canonical_pool_address: alphaDetail.curve.canonical_pool_address,
    });
    const betaDetail = expectAnswer(
      await call(`/api/v1/tokens/${beta.token}`, { example: ["Token", "Detail of a token on its curve"] }),
      200,
      tokenDetailSchema,
    );
    expect(betaDetail.curve.progress_bps).toBeGreaterThan(0);
    expect(betaDetail.curve.progress_bps).toBeLessThan(10_000);
    // Upper-case path addresses are accepted.
    expectAnswer(await call(`/api/v1/tokens/0x${beta.token.slice(2).toUpperCase()}`), 200, tokenDetailSchema);

    const alphaPricing = await expectTyped(
      api(["Token", "Pricing after pool swaps"]).GET("/api/v1/tokens/{address}/pricing", {
        params: { path: { address: alpha.token } },
      }),
      200,
      pricingSchema,
    );
    expect(alphaPricing.source).toBe("indexed_v3_market");
    const betaPricing = expectAnswer(
      await call(`/api/v1/tokens/${beta.token}/pricing`, { example: ["Token", "Pricing on the curve"] }),
      200,
      pricingSchema,
    );
    expect(betaPricing.source).toBe("indexed_v3_curve");
    expect(betaPricing.current_price).toBe(betaDetail.metrics.current_price);

    for (const interval of CHART_INTERVALS) {
      const chart = expectAnswer(
        await call(
          `/api/v1/tokens/${beta.token}/chart?interval=${interval}&limit=3`,
          interval === "1m" ? { example: ["Token", "Chart (1m, limit 3)"] } : {},
        ),
        200,
        chartSchema,
      );
      expect(chart.interval).toBe(interval);
      expect(chart.candles.length).toBeGreaterThan(0);
      expect(chart.candles.length).toBeLessThanOrEqual(3);
    }
    expect(expectAnswer(await call(`/api/v1/tokens/${alpha.token}/chart`), 200, chartSchema).interval).toBe(
      "1h",
    );

    // Charts by time (from/to/countback) and in USD (currency=usd).
    const chartOf = (query: ChartQuery, example?: [string, string]) =>
      api(example).GET("/api/v1/tokens/{address}/chart", {
        params: { path: { address: beta.token }, query },
      });
    const recent = await expectTyped(chartOf({ interval: "1m", limit: "5" }), 200, chartSchema);
    const last = recent.candles.at(-1)!.bucket_start;
    const starts = (body: { candles: { bucket_start: number }[] }) => body.candles.map((c) => c.bucket_start);
    const byCountback = await expectTyped(
      chartOf({ interval: "1m", to: String(last + 59), countback: "2" }, [
        "Token",
        "Chart by countback (1m, the 2 buckets up to `to`)",
      ]),
      200,
      chartSchema,
    );
    expect(starts(byCountback)).toEqual(starts(recent).slice(-2));
    const byRange = await expectTyped(
      chartOf({ interval: "1m", from: String(last - 119), to: String(last - 1) }),
      200,
      chartSchema,
    );
    expect(starts(byRange)).toEqual(starts(recent).filter((b) => b >= last - 120 && b <= last - 60));
    expect(byRange.candles).toEqual(
      recent.candles.filter((c: { bucket_start: number }) => starts(byRange).includes(c.bucket_start)),
    );
    const usdAnswer = await expectTyped(
      chartOf({ interval: "1m", to: String(last), countback: "5", currency: "usd" }, [
        "Token",
        "Chart in USD (1m, countback 5)",
      ]),
      200,
      usdChartSchema,
    );
    if (!isUsdChart(usdAnswer)) throw new Error("currency=usd answered a wei chart");
    const usdChart = usdAnswer;
    const weiChart = await expectTyped(
      chartOf({ interval: "1m", to: String(last), countback: "5", currency: "eth" }),
      200,
      chartSchema,
    );
    expect(starts(usdChart)).toEqual(starts(weiChart));
    // Each USD value is the wei value × the bucket's ETH/USD answer / 10^18, exactly.
    const usdOf = (wei: string | null, ethUsd: string) =>
      wei === null ? null : Number(wei) === 0 ? "0" : exactUsd(BigInt(wei), ethUsd);
    for (const [i, candle] of usdChart.candles.entries()) {
      const wei = weiChart.candles[i]!;
      const ethUsd = candle.eth_usd;
      if (ethUsd === null) throw new Error(`no ETH/USD answer in force: ${JSON.stringify(candle)}`);
      expect(candle).toEqual({
        ...wei,
        volume: usdOf(wei.volume, ethUsd),
        buy_volume: usdOf(wei.buy_volume, ethUsd),
        sell_volume: usdOf(wei.sell_volume, ethUsd),
        open_price: usdOf(wei.open_price, ethUsd),
        high_price: usdOf(wei.high_price, ethUsd),
        low_price: usdOf(wei.low_price, ethUsd),
        close_price: usdOf(wei.close_price, ethUsd),
        eth_usd: ethUsd,
      });
    }
    expect(usdChart.candles.some((c) => c.trade_count > 0)).toBe(true);
    // The side volumes split the volume exactly (wei).
    for (const c of weiChart.candles)
      expect(BigInt(String(c.buy_volume)) + BigInt(String(c.sell_volume))).toBe(BigInt(String(c.volume)));

    const trades = await expectTyped(
      api(["Token", "Trades (curve and pool)"]).GET("/api/v1/tokens/{address}/trades", {
        params: { path: { address: alpha.token }, query: { limit: "100" } },
      }),
      200,
      tradePageSchema,
    );
    expect(new Set(trades.items.map((t) => t.source))).toEqual(new Set(["curve", "uniswap_v3"]));
    const tradesFirst = expectAnswer(
      await call(`/api/v1/tokens/${alpha.token}/trades?limit=1&order=asc`),
      200,
      tradePageSchema,
    );
    expectAnswer(
      await call(
        `/api/v1/tokens/${alpha.token}/trades?limit=1&order=asc&cursor=${encodeURIComponent(tradesFirst.next_cursor)}`,
      ),
      200,
      tradePageSchema,
    );
    expectAnswer(await call(`/api/v1/tokens/${beta.token}/trades`), 200, tradePageSchema);

    const activity = await expectTyped(
      api(["Token", "Activity"]).GET("/api/v1/tokens/{address}/activity", {
        params: { path: { address: alpha.token }, query: { limit: "100" } },
      }),
      200,
      activityPageSchema,
    );
    const names = new Set(activity.items.map((e) => e.event_name));
    for (const name of ["TokensBought", "TokensSold", "Graduated", "Swap", "Transfer"])
      expect(names, name).toContain(name);
    const activityFirst = expectAnswer(
      await call(`/api/v1/tokens/${beta.token}/activity?limit=2`),
      200,
      activityPageSchema,
    );
    expectAnswer(
      await call(
        `/api/v1/tokens/${beta.token}/activity?limit=2&cursor=${encodeURIComponent(activityFirst.next_cursor)}`,
      ),
      200,
      activityPageSchema,
    );

    const holders = await expectTyped(
      api(["Token", "Holders (addition)"]).GET("/api/v1/tokens/{address}/holders", {
        params: { path: { address: alpha.token } },
      }),
      200,
      holderPageSchema,
    );
    expect(holders.items.length).toBe(alphaDetail.metrics.holder_count);
    // Holders by tag (addition, issue 28): one cohort in the same order; a bad tag is a 400.
    const snipers = await expectTyped(
      api(["Token", "Holders with a tag (addition)"]).GET("/api/v1/tokens/{address}/holders", {
        params: { path: { address: alpha.token }, query: { tag: "sniper" } },
      }),
      200,
      holderPageSchema,
    );
    expect(snipers.items.length).toBeGreaterThan(0);
    expect(snipers.items).toEqual(holders.items.filter((h) => h.tags.includes("sniper")));
    expectAnswer(await call(`/api/v1/tokens/${alpha.token}/holders?tag=whale`), 400, errorEnvelopeSchema);
    // Holder count over time (addition, issue 28): the last bucket holds today's holder count.
    const history = await expectTyped(
      api(["Token", "Holder count over time (addition)"]).GET("/api/v1/tokens/{address}/holders/history", {
        params: { path: { address: alpha.token }, query: { interval: "1h", countback: "3" } },
      }),
      200,
      holderHistorySchema,
    );
    expect(history.items.at(-1)?.holder_count).toBe(alphaDetail.metrics.holder_count);
    for (const query of ["interval=1m", "countback=0", "from=2&to=1"])
      expectAnswer(
        await call(`/api/v1/tokens/${alpha.token}/holders/history?${query}`),
        400,
        errorEnvelopeSchema,
      );
    await expectTyped(
      api(["Status", "Indexing status (addition)"]).GET("/api/v1/status"),
      200,
      indexingStatusSchema,
    );
  });

  it("behavior: creator profile and creator tokens, and the zero profile of an address that launched nothing", async () => {
    const { creator } = market;
    const profile = await expectTyped(
      api(["Creators", "Creator profile"]).GET("/api/v1/creators/{address}", {
        params: { path: { address: creator.address } },
      }),
      200,
      creatorProfileSchema,
    );
    expect(profile.token_count).toBe(2);
    expect(profile.tokens).toHaveLength(2);
    expect(profile).not.toHaveProperty("next_cursor");
    const firstPage = expectAnswer(
      await call(`/api/v1/creators/${creator.address}?limit=1`),
      200,
      creatorProfileSchema,
    );
    const tokens = expectAnswer(
      await call(
        `/api/v1/creators/${creator.address}/tokens?limit=1&cursor=${encodeURIComponent(firstPage.next_cursor)}`,
      ),
      200,
      tokenPageSchema,
    );
    expect(tokens.items).toHaveLength(1);
    await expectTyped(
      api(["Creators", "Creator tokens"]).GET("/api/v1/creators/{address}/tokens", {
        params: { path: { address: creator.address } },
      }),
      200,
      tokenPageSchema,
    );
    const zero = expectAnswer(
      await call(`/api/v1/creators/${UNKNOWN}`, {
        example: ["Creators", "An address that launched nothing"],
      }),
      200,
      creatorProfileSchema,
    );
    expect(zero).toEqual({ address: UNKNOWN, token_count: 0, volume: "0", tokens: [] });
  });

  it("behavior: a token's fee economy and its creator's earnings (additions), consistent with each other", async () => {
    const { alpha, creator } = market;
    const fees = await expectTyped(
      api(["Fees", "Fee economy of a graduated token (addition)"]).GET("/api/v1/tokens/{address}/fees", {
        params: { path: { address: alpha.token } },
      }),
      200,
      tokenFeesSchema,
    );
    const { total, ...parts } = fees.curve;
    expect(BigInt(total)).toBeGreaterThan(0n);
    expect(Object.values(parts).reduce((s, v) => s + BigInt(v), 0n)).toBe(BigInt(total));
    expect(BigInt(fees.creator.claimable)).toBe(BigInt(fees.creator.earned) - BigInt(fees.creator.claimed));
    const earnings = await expectTyped(
      api(["Fees", "Creator earnings (addition)"]).GET("/api/v1/creators/{address}/earnings", {
        params: { path: { address: creator.address } },
      }),
      200,
      creatorEarningsSchema,
    );
    expect(earnings.tokens).toHaveLength(2);
    const entry = earnings.tokens.find((t) => t.token === alpha.token);
    expect(entry && { ...entry, token: undefined, lp: undefined }).toEqual({
      ...fees.creator,
      token: undefined,
      lp: undefined,
    });
    expect(BigInt(earnings.curve_claimable)).toBe(
      earnings.tokens.reduce((s, t) => s + BigInt(t.claimable), 0n),
    );
  });

  it("behavior: a token's trader-reward distribution, its tree upload and a wallet's proof (additions)", async () => {
    const { alpha, traders } = market;
    const [bob, carol] = traders as [Trader, Trader];
    const { rpcUrl, deployment } = system.devnet;
    // The curve's pots funded, one epoch published by the distributor's owner (the deployer).
    await bob.fundCurvePots(alpha.token);
    const pot = (await createPublicClient({ transport: http(rpcUrl) }).readContract({
      address: deployment.contracts.traderRewardsVault,
      abi: traderRewardsVaultV3Abi,
      functionName: "accrued",
      args: [alpha.token, zeroAddress],
    })) as bigint;
    const leaves = [
      { claimant: bob.address.toLowerCase(), amount: (pot / 2n).toString() },
      { claimant: carol.address.toLowerCase(), amount: (pot / 4n).toString() },
    ];
    const owner = createTrader({ rpcUrl, deployment, account: 0 });
    const published = await owner.publishRewards(
      7n,
      alpha.token,
      zeroAddress,
      leaves.map((l) => ({ claimant: l.claimant as `0x${string}`, amount: BigInt(l.amount) })),
    );
    await system.indexToHead();
    const id = published.distributionId;
    const post = (body: unknown, example?: [string, string]) =>
      call(`/api/v1/rewards/distributions/${id}/tree`, {
        method: "POST",
        headers: JSON_HEADERS,
        body: JSON.stringify(body),
        ...(example ? { example, shownRequest: body } : {}),
      });
    expectAnswer(
      await post({ leaves: [leaves[0], { ...leaves[1], amount: "1" }] }, [
        "Errors",
        "Reward tree of another root",
      ]),
      422,
      errorEnvelopeSchema,
    );
    expectAnswer(
      await call(`/api/v1/rewards/distributions/0x${"00".repeat(32)}/tree`, {
        method: "POST",
        headers: JSON_HEADERS,
        body: JSON.stringify({ leaves }),
      }),
      404,
      errorEnvelopeSchema,
    );
    expectAnswer(await post({ leaves: [] }), 400, errorEnvelopeSchema);
    const stored = expectAnswer(
      await post({ leaves }, ["Reward distributions", "Upload a distribution's tree (addition)"]),
      201,
      rewardTreeSchema,
    );
    expect(stored).toMatchObject({
      distribution_id: id,
      root: published.tree.root,
      order: "given",
      leaf_count: 2,
    });
    expect(expectAnswer(await post({ leaves }), 200, rewardTreeSchema)).toEqual(stored);
    // The upload shows within the response cache's age (it is not an indexed block).
    let rewards: z.output<typeof walletRewardPageSchema> | undefined;
    await waitFor(
      async () => {
        rewards = await expectTyped(
          api(["Reward distributions", "A wallet's rewards with its proof (addition)"]).GET(
            "/api/v1/wallets/{address}/rewards",
            { params: { path: { address: bob.address }, query: { limit: "1" } } },
          ),
          200,
          walletRewardPageSchema,
        );
        return rewards.items[0]?.proof !== null && rewards.items.length === 1;
      },
      { timeoutMs: 30_000, intervalMs: 250, message: "the uploaded leaf is served" },
    );
    // The wallet's one distribution: a page of one item and no further page.
    expect(rewards!.next_cursor).toBeUndefined();
    expect(rewards!.items[0]).toEqual({
      distribution_id: id,
      token_address: alpha.token.toLowerCase(),
      epoch: "7",
      asset: zeroAddress,
      root: published.tree.root,
      amount: leaves[0]!.amount,
      proof: published.tree.leaves[0]!.proof,
      claimed: false,
      claim: null,
      claimable: true,
    });
    const distributions = await expectTyped(
      api(["Reward distributions", "A token's distributions (addition)"]).GET(
        "/api/v1/tokens/{address}/rewards/distributions",
        { params: { path: { address: alpha.token } } },
      ),
      200,
      rewardDistributionPageSchema,
    );
    expect(distributions.items).toEqual([
      expect.objectContaining({
        distribution_id: id,
        epoch: "7",
        claimed_count: 0,
        claimed_amount: "0",
        tree_uploaded: true,
      }),
    ]);
  });

  it("behavior: wallets (summary, holdings, trades), token traders by every sort, the trader= filter", async () => {
    const { alpha, beta, creator, traders } = market;
    const [bob, carol, dave] = traders as [Trader, Trader, Trader];
    // Summary: sums of the wallet's holdings and positions; a zero summary for an address with nothing.
    const summary = expectAnswer(
      await call(`/api/v1/wallets/${bob.address}`, { example: ["Wallets", "Wallet summary"] }),
      200,
      walletSummarySchema,
    );
    const bobTrades = await walk(`/api/v1/wallets/${bob.address}/trades`, tradePageSchema);
    expect(summary.trade_count).toBe(bobTrades.length);
    expect(BigInt(summary.volume)).toBe(bobTrades.reduce((s, t) => s + BigInt(t.reserve_amount), 0n));
    expect(BigInt(summary.pnl)).toBe(BigInt(summary.realized_pnl) + BigInt(summary.unrealized_pnl));
    expect(
      expectAnswer(await call(`/api/v1/wallets/${creator.address}`), 200, walletSummarySchema)
        .created_token_count,
    ).toBe(2);
    const zero = expectAnswer(
      await call(`/api/v1/wallets/${UNKNOWN}`, { example: ["Wallets", "An address with nothing"] }),
      200,
      walletSummarySchema,
    );
    expect(zero).toMatchObject({
      holding_count: 0,
      value: "0",
      pnl: "0",
      trade_count: 0,
      volume: "0",
      created_token_count: 0,
    });
    expect(
      expectAnswer(await call(`/api/v1/wallets/${UNKNOWN}/holdings`), 200, holdingPageSchema).items,
    ).toEqual([]);
    expect(expectAnswer(await call(`/api/v1/wallets/${UNKNOWN}/trades`), 200, tradePageSchema).items).toEqual(
      [],
    );

    // Wallet trades: newest first across tokens, asc, source filter, cursors.
    expect(bobTrades.map((t) => t.trader)).toEqual(bobTrades.map(() => bob.address));
    const asc = await walk(`/api/v1/wallets/${bob.address}/trades?order=asc`, tradePageSchema);
    expect(asc).toEqual([...bobTrades].reverse());
    const pool = await walk(`/api/v1/wallets/${bob.address}/trades?source=uniswap_v3`, tradePageSchema);
    expect(pool.length).toBeGreaterThan(0);
    expect(pool).toEqual(bobTrades.filter((t) => t.source === "uniswap_v3"));
    expectAnswer(
      await call(`/api/v1/wallets/${bob.address}/trades?limit=2`, { example: ["Wallets", "Wallet trades"] }),
      200,
      tradePageSchema,
    );

    // Holdings: held by value, then (include_closed) the traded tokens no longer held.
    const held = await walk(`/api/v1/wallets/${dave.address}/holdings`, holdingPageSchema);
    expect(held.length).toBeGreaterThan(0);
    for (const [i, h] of held.entries()) {
      expect(BigInt(h.balance)).toBeGreaterThan(0n);
      expect(BigInt(h.value)).toBe(
        (BigInt(h.balance) * BigInt(h.token.metrics.current_price ?? 0)) / 10n ** 18n,
      );
      if (i > 0) expect(BigInt(held[i - 1].value)).toBeGreaterThanOrEqual(BigInt(h.value));
    }
    // A holding carries the wallet's position exactly when the wallet traded the token.
    const daveTraded = new Set(
      (await walk(`/api/v1/wallets/${dave.address}/trades`, tradePageSchema)).map((t) => t.token_address),
    );
    for (const h of held) expect("position" in h, h.token.address).toBe(daveTraded.has(h.token.address));
    expect(held.find((h) => h.token.address === beta.token)?.position?.buy_count).toBe(1);
    expectAnswer(
      await call(`/api/v1/wallets/${carol.address}/holdings?include_closed=true`, {
        example: ["Wallets", "Wallet holdings with closed positions"],
      }),
      200,
      holdingPageSchema,
    );
    const withClosed = await walk(
      `/api/v1/wallets/${bob.address}/holdings?include_closed=true`,
      holdingPageSchema,
    );
    const plain = await walk(
      `/api/v1/wallets/${bob.address}/holdings?include_closed=false`,
      holdingPageSchema,
    );
    expect(withClosed.slice(0, plain.length)).toEqual(plain);
    for (const h of withClosed.slice(plain.length)) expect(h).toMatchObject({ balance: "0", value: "0" });

    // Traders of alpha by each sort: every trader once, descending by the sort key, ties by address.
    const key: Record<string, (t: Item) => bigint> = {
      volume: (t) => BigInt(t.bought_reserve) + BigInt(t.sold_reserve),
      pnl: (t) => BigInt(t.pnl),
      realized_pnl: (t) => BigInt(t.realized_pnl),
      bought: (t) => BigInt(t.bought_reserve),
      sold: (t) => BigInt(t.sold_reserve),
    };
    let byVolume: Item[] = [];
    for (const sort of Object.keys(key)) {
      const items = await walk(`/api/v1/tokens/${alpha.token}/traders?sort=${sort}`, traderPageSchema);
      for (let i = 1; i < items.length; i++) {
        const [a, b] = [key[sort]!(items[i - 1]), key[sort]!(items[i])];
        expect(a > b || (a === b && items[i - 1].trader < items[i].trader), `${sort} order`).toBe(true);
      }
      if (sort === "volume") byVolume = items;
      else expect(new Set(items.map((t) => t.trader))).toEqual(new Set(byVolume.map((t) => t.trader)));
    }
    expect(byVolume.map((t) => t.trader)).toEqual(expect.arrayContaining([bob.address, carol.address]));
    const defaultSort = expectAnswer(
      await call(`/api/v1/tokens/${alpha.token}/traders?limit=2`, {
        example: ["Wallets", "Token traders (by volume)"],
      }),
      200,
      traderPageSchema,
    );
    expect(defaultSort.items).toEqual(byVolume.slice(0, 2));
    // The trader's position on the traders page is the one of the holdings page.
    const bobAlpha = withClosed.find((h) => h.token.address === alpha.token);
    const { trader: _t, balance: _b, ...bobPosition } = byVolume.find((t) => t.trader === bob.address);
    expect(bobAlpha.position).toEqual(bobPosition);
    // A cursor is bound to its sort.
    expectError(
      await call(
        `/api/v1/tokens/${alpha.token}/traders?sort=pnl&cursor=${encodeURIComponent(defaultSort.next_cursor)}`,
      ),
      400,
      "invalid_request",
    );

    // trader= on a token's trades: the wallet's trades of the token, same order and cursors.
    const allAlpha = await walk(`/api/v1/tokens/${alpha.token}/trades`, tradePageSchema);
    const mine = await walk(
      `/api/v1/tokens/${alpha.token}/trades?trader=${bob.address.toUpperCase().replace("0X", "0x")}`,
      tradePageSchema,
    );
    expect(mine).toEqual(allAlpha.filter((t) => t.trader === bob.address));
    expect(mine.length).toBeGreaterThan(2);
    expectAnswer(
      await call(`/api/v1/tokens/${alpha.token}/trades?trader=${bob.address}&limit=2`, {
        example: ["Wallets", "A wallet's trades of one token (trader=)"],
      }),
      200,
      tradePageSchema,
    );

    // Errors of every new route and parameter.
    for (const bad of ["0x1234", `0x${"g".repeat(40)}`]) {
      for (const path of [...walletRoutes(bad), `/api/v1/tokens/${bad}/traders`])
        expectError(await call(path), 400, "invalid_address");
      expectError(
        await call(`/api/v1/tokens/${alpha.token}/trades?trader=${bad}`),
        400,
        "invalid_address",
        "trader",
      );
      expectError(await call(`/api/v1/stream?wallets=${bad}`), 400, "invalid_address", "wallets");
    }
    for (const path of [...walletRoutes(bob.address).slice(1), `/api/v1/tokens/${alpha.token}/traders`])
      for (const query of ["limit=0", "limit=101", "limit=abc", "cursor=not-a-cursor", "cursor="])
        expectError(await call(`${path}?${query}`), 400, "invalid_request");
    expectError(
      await call(`/api/v1/wallets/${bob.address}/holdings?include_closed=yes`),
      400,
      "invalid_request",
    );
    expectError(await call(`/api/v1/wallets/${bob.address}/trades?order=sideways`), 400, "invalid_request");
    expectError(await call(`/api/v1/wallets/${bob.address}/trades?source=dex`), 400, "invalid_request");
    expectError(
      await call(`/api/v1/tokens/${alpha.token}/traders?sort=luck`, {
        example: ["Wallets", "Unknown traders sort"],
      }),
      400,
      "invalid_request",
    );
    expectError(
      await call(`/api/v1/stream?wallets=${Array.from({ length: 101 }, () => bob.address).join(",")}`),
      400,
      "invalid_request",
      "wallets",
    );
    // A cursor of another wallet, or of the unfiltered trades, is rejected.
    const page1 = expectAnswer(
      await call(`/api/v1/wallets/${bob.address}/trades?limit=1`),
      200,
      tradePageSchema,
    );
    expectError(
      await call(`/api/v1/wallets/${carol.address}/trades?cursor=${encodeURIComponent(page1.next_cursor)}`),
      400,
      "invalid_request",
    );
    const tokenPage1 = expectAnswer(
      await call(`/api/v1/tokens/${alpha.token}/trades?limit=1`),
      200,
      tradePageSchema,
    );
    expectError(
      await call(
        `/api/v1/tokens/${alpha.token}/trades?trader=${bob.address}&cursor=${encodeURIComponent(tokenPage1.next_cursor)}`,
      ),
      400,
      "invalid_request",
    );
    expectError(await call(`/api/v1/tokens/${UNKNOWN}/traders`), 404, "not_found");
  });

  it("behavior: the live stream answers text/event-stream; a malformed filter is 400 in the envelope", async () => {
    const controller = new AbortController();
    const stream = await fetch(`${system.baseUrl}/api/v1/stream?tokens=${market.alpha.token}`, {
      signal: controller.signal,
    });
    try {
      expect(stream.status).toBe(200);
      expect(stream.headers.get("content-type")).toMatch(/^text\/event-stream/);
      expect(stream.headers.get("x-request-id")).toMatch(REQUEST_ID);
    } finally {
      controller.abort();
    }
    // HEAD answers the headers alone (it does not wait for events).
    const head = await fetch(`${system.baseUrl}/api/v1/stream`, {
      method: "HEAD",
      signal: AbortSignal.timeout(10_000),
    });
    expect(head.status).toBe(200);
    expect(head.headers.get("content-type")).toMatch(/^text\/event-stream/);
    expect(head.headers.get("x-request-id")).toMatch(REQUEST_ID);
    expectError(
      await call("/api/v1/stream?tokens=0x1234", { example: ["Errors", "Malformed stream filter"] }),
      400,
      "invalid_address",
      "tokens",
    );
    expectError(await call("/api/v1/stream?events=nothing"), 400, "invalid_request", "events");
  });

  it("behavior: /objects serves the stored image and metadata; a missing object is 404 in the envelope", async () => {
    const { alphaDraft } = market;
    const image = await fetch(`${system.baseUrl}${alphaDraft.image_url}`);
    expect(image.status).toBe(200);
    expect(image.headers.get("content-type")).toBe("image/png");
    expect(image.headers.get("cache-control")).toContain("immutable");
    expect(image.headers.get("x-request-id")).toMatch(REQUEST_ID);
    const metadata = await call(alphaDraft.metadata_url!, { example: ["Objects", "Stored metadata object"] });
    expect(metadata.status).toBe(200);
    expect(metadata.headers.get("content-type")).toMatch(/^application\/json/);
    expect(metadata.body).toMatchObject({ name: ALPHA_FIELDS.name, symbol: ALPHA_FIELDS.symbol });
    expectError(
      await call(`/objects/images/${"0".repeat(64)}.png`, { example: ["Objects", "Missing object"] }),
      404,
      "not_found",
    );
  });

  it("behavior: ETH/USD answers the platform client's shape (plus the spec's keys), and 503 oracle_unavailable when stale", async () => {
    const { rpcUrl, deployment } = system.devnet;
    const client = createPublicClient({ transport: http(rpcUrl), cacheTime: 0 });
    const now = (await client.getBlock({ blockTag: "latest" })).timestamp;
    await setEthUsdRound(rpcUrl, deployment, {
      roundId: 900n,
      answer: 312_345_678_901n,
      startedAt: now,
      updatedAt: now,
      answeredInRound: 900n,
    });
    const price = await call("/api/v1/prices/eth-usd", { example: ["ETH/USD", "Reference price"] });
    const body = expectAnswer(price, 200, ethUsdSchema);
    expect(body).toEqual({
      price: "3123.45678901",
      price_decimals: 8,
      updated_at: new Date(Number(now) * 1000).toISOString().replace(".000Z", "Z"),
      feed: deployment.contracts.ethUsdFeed.toLowerCase(),
      source: "chainlink_eth_usd",
      max_age_seconds: expect.any(Number),
      decimals: 8,
      chain_id: system.devnet.chainId,
      updated_at_unix: Number(now),
    });
    expect(price.headers.get("cache-control")).toBe("no-store");
    // The platform's web client parses it (it dropped the spec's table shape: "USD unavailable").
    expect(platformClientEthUsdSchema.safeParse(body).success).toBe(true);

    await setEthUsdRound(rpcUrl, deployment, {
      roundId: 901n,
      answer: 312_345_678_901n,
      startedAt: now - 7200n,
      updatedAt: now - 7200n,
      answeredInRound: 901n,
    });
    expectError(
      await call("/api/v1/prices/eth-usd", { example: ["ETH/USD", "Stale oracle data"] }),
      503,
      "oracle_unavailable",
    );
    await setEthUsdRound(rpcUrl, deployment, {
      roundId: 902n,
      answer: 312_345_678_901n,
      startedAt: now,
      updatedAt: now,
      answeredInRound: 902n,
    });
  });

  it("error: malformed addresses, pagination, search, order and interval; unknown tokens", async () => {
    const { alpha, creator } = market;
    let first = true;
    for (const bad of ["0x1234", "not-an-address", `0x${"g".repeat(40)}`, `${alpha.token}00`]) {
      for (const path of [...tokenRoutes(bad), ...creatorRoutes(bad)]) {
        expectError(
          await call(path, first ? { example: ["Errors", "Malformed address"] } : {}),
          400,
          "invalid_address",
        );
        first = false;
      }
    }
    const paged = [
      "/api/v1/tokens",
      "/api/v1/tokens/newest",
      "/api/v1/tokens/trending",
      "/api/v1/trending",
      `/api/v1/tokens/${alpha.token}/trades`,
      `/api/v1/tokens/${alpha.token}/activity`,
      `/api/v1/tokens/${alpha.token}/holders`,
      ...creatorRoutes(creator.address),
      "/api/v1/trades",
      "/api/v1/tokens?sort=market_cap",
      "/api/v1/tokens?sort=trending",
    ];
    first = true;
    for (const path of paged) {
      for (const query of [
        "limit=0",
        "limit=101",
        "limit=abc",
        "limit=1.5",
        "cursor=not-a-cursor",
        "cursor=",
      ]) {
        expectError(
          await call(
            `${path}${path.includes("?") ? "&" : "?"}${query}`,
            first ? { example: ["Errors", "Invalid limit"] } : {},
          ),
          400,
          "invalid_request",
        );
        first = false;
      }
    }
    // A cursor of another route.
    const tokensPage = expectAnswer(await call("/api/v1/tokens?limit=1"), 200, tokenPageSchema);
    expectError(
      await call(`/api/v1/tokens/${alpha.token}/trades?cursor=${encodeURIComponent(tokensPage.next_cursor)}`),
      400,
      "invalid_request",
    );
    expectError(
      await call(`/api/v1/tokens?search=${encodeURIComponent("50%")}`, {
        example: ["Errors", "Unsupported search characters"],
      }),
      400,
      "invalid_request",
      "search",
    );
    expectError(await call(`/api/v1/tokens?search=${"a".repeat(65)}`), 400, "invalid_request", "search");
    expectError(await call(`/api/v1/tokens/${alpha.token}/trades?order=sideways`), 400, "invalid_request");
    // Discovery: sort, phase and batch; the market-wide trades' source and order.
    for (const query of ["sort=price", "sort=", "phase=active"])
      expectError(await call(`/api/v1/tokens?${query}`), 400, "invalid_request");
    const byCap = expectAnswer(await call("/api/v1/tokens?sort=market_cap&limit=1"), 200, tokenPageSchema);
    for (const query of ["sort=holders", "", "sort=market_cap&phase=curve"])
      expectError(
        await call(`/api/v1/tokens?${query}&cursor=${encodeURIComponent(byCap.next_cursor)}`, {
          ...(query === "" ? { example: ["Errors", "A cursor of another sort"] as [string, string] } : {}),
        }),
        400,
        "invalid_request",
        "cursor",
      );
    const many = Array.from({ length: 101 }, (_, i) => `0x${(i + 1).toString(16).padStart(40, "0")}`).join(
      ",",
    );
    expectError(
      await call(`/api/v1/tokens?addresses=${many}`, {
        example: ["Errors", "Batch of more than 100 addresses"],
      }),
      400,
      "invalid_request",
      "addresses",
    );
    expectError(await call("/api/v1/tokens?addresses="), 400, "invalid_request", "addresses");
    expectError(
      await call(`/api/v1/tokens?addresses=${alpha.token},0x1234`),
      400,
      "invalid_address",
      "addresses",
    );
    expectError(
      await call(`/api/v1/tokens?addresses=${alpha.token}&sort=holders`),
      400,
      "invalid_request",
      "sort",
    );
    for (const query of ["source=dex", "order=sideways", "source="])
      expectError(await call(`/api/v1/trades?${query}`), 400, "invalid_request");
    const curveTrades = expectAnswer(await call("/api/v1/trades?limit=1&source=curve"), 200, tradePageSchema);
    expectError(
      await call(`/api/v1/trades?source=uniswap_v3&cursor=${encodeURIComponent(curveTrades.next_cursor)}`),
      400,
      "invalid_request",
      "cursor",
    );
    expectError(
      await call(`/api/v1/tokens/${alpha.token}/chart?interval=2m`, {
        example: ["Errors", "Unsupported interval"],
      }),
      400,
      "invalid_interval",
    );
    expectError(await call(`/api/v1/tokens/${alpha.token}/chart?interval=`), 400, "invalid_interval");
    for (const query of ["limit=0", "limit=1001", "limit=x"])
      expectError(await call(`/api/v1/tokens/${alpha.token}/chart?${query}`), 400, "invalid_request");
    // Chart by time and currency: each malformed parameter, from after to, a span over 1000 buckets.
    const chartErrors: [string, string, string?][] = [
      ["from=200&to=100", "from", "Chart: from after to"],
      ["interval=1m&from=0&to=60000", "from", "Chart: from–to over 1000 buckets"],
      ["from=1.5", "from"],
      ["from=-1", "from"],
      ["to=abc", "to"],
      ["to=12345678901", "to"],
      ["countback=0", "countback"],
      ["countback=1001", "countback", "Chart: countback out of range"],
      ["countback=x", "countback"],
      ["currency=btc", "currency", "Chart: unknown currency"],
      ["currency=USD", "currency"],
    ];
    for (const [query, field, title] of chartErrors)
      expectError(
        await call(
          `/api/v1/tokens/${alpha.token}/chart?${query}`,
          title ? { example: ["Errors", title] } : {},
        ),
        400,
        "invalid_request",
        field,
      );
    first = true;
    for (const path of tokenRoutes(UNKNOWN)) {
      expectError(await call(path, first ? { example: ["Errors", "Unknown token"] } : {}), 404, "not_found");
      first = false;
    }
  });

  it("error: unknown routes are 404, other methods 405 with Allow, a preflight without origin is not a bare body", async () => {
    expectError(
      await call("/api/v1/nothing-here", { example: ["Errors", "Unknown route"] }),
      404,
      "not_found",
    );
    expectError(await call("/nothing-here"), 404, "not_found");
    const wrong = await call("/api/v1/tokens", {
      method: "POST",
      headers: JSON_HEADERS,
      body: "{}",
      example: ["Errors", "Wrong method"],
    });
    expectError(wrong, 405, "method_not_allowed");
    expect(wrong.headers.get("allow")).toMatch(/GET/);
    expectError(
      await call(`/api/v1/tokens/${market.alpha.token}`, { method: "DELETE" }),
      405,
      "method_not_allowed",
    );
    expectError(await call("/api/v1/token-metadata"), 405, "method_not_allowed");
    expectError(await call("/api/v1/prices/eth-usd", { method: "POST" }), 405, "method_not_allowed");
    const preflight = await call("/api/v1/tokens", { method: "OPTIONS" });
    if (preflight.status >= 400) expectAnswer(preflight, preflight.status, errorEnvelopeSchema);
    else expect(preflight.status).toBeLessThan(300);
    // Bad percent-encoding and an over-long path segment.
    const badEncoding = await call("/api/v1/tokens/%E0%A4%A");
    expect(badEncoding.status).toBe(400);
    expectAnswer(badEncoding, 400, errorEnvelopeSchema);
    const long = await call(`/api/v1/tokens/${"a".repeat(5000)}`);
    expect(long.status).toBeGreaterThanOrEqual(400);
    expect(long.status).toBeLessThan(500);
    expectAnswer(long, long.status, errorEnvelopeSchema);
  });

  it("behavior: the DEX Screener adapter answers its spec's shapes through the gateway (each curve a pair with WETH)", async () => {
    const units = z.string().regex(/^[0-9]+(\.[0-9]+)?$/);
    const block = z.object({ blockNumber: z.number().int(), blockTimestamp: z.number().int() }).strict();
    const latest = await expectTyped(
      api(["DEX Screener adapter", "Latest block"]).GET("/dexscreener/latest-block"),
      200,
      z.object({ block }).strict(),
    );
    const from = Math.max(0, latest.block.blockNumber - 9_999);
    const events = expectAnswer(
      await call(`/dexscreener/events?fromBlock=${from}&toBlock=${latest.block.blockNumber}`, {
        example: ["DEX Screener adapter", "Events: the curve trades of a block range as swap events"],
      }),
      200,
      z
        .object({
          events: z.array(
            z
              .object({
                block,
                eventType: z.literal("swap"),
                txnId: z.string(),
                txnIndex: z.number().int(),
                eventIndex: z.number().int(),
                maker: z.string(),
                pairId: z.string(),
                asset0In: units.optional(),
                asset1Out: units.optional(),
                asset1In: units.optional(),
                asset0Out: units.optional(),
                priceNative: units,
                reserves: z.object({ asset0: units, asset1: units }).strict(),
              })
              .strict(),
          ),
        })
        .strict(),
    );
    // Curve trades of the two tokens only (alpha's swaps in its pool after graduation are not ours).
    expect(events.events.length).toBeGreaterThan(0);
    const pairIds = [...new Set(events.events.map((e: { pairId: string }) => e.pairId))] as string[];
    expect(pairIds).toHaveLength(2);
    const pairs = await Promise.all(
      pairIds.map((id, i) =>
        expectTyped(
          api(i === 0 ? ["DEX Screener adapter", "Pair (a token's curve)"] : undefined).GET(
            "/dexscreener/pair",
            {
              params: { query: { id } },
            },
          ),
          200,
          z.object({
            pair: z.object({ id: z.string(), asset0Id: z.string(), feeBps: z.number() }).passthrough(),
          }),
        ),
      ),
    );
    expect(pairs.map((p) => p.pair.asset0Id).sort()).toEqual(
      [market.alpha.token.toLowerCase(), market.beta.token.toLowerCase()].sort(),
    );
    expect(pairs.every((p) => p.pair.feeBps === 100)).toBe(true);
    const asset = await expectTyped(
      api(["DEX Screener adapter", "Asset"]).GET("/dexscreener/asset", {
        params: { query: { id: market.alpha.token } },
      }),
      200,
      z.object({
        asset: z
          .object({ id: z.string(), name: z.string(), symbol: z.string(), totalSupply: units })
          .strict(),
      }),
    );
    expect(asset.asset).toMatchObject({ name: ALPHA_FIELDS.name, symbol: ALPHA_FIELDS.symbol });
    expectError(await call("/dexscreener/events?fromBlock=2&toBlock=1"), 400, "invalid_request", "fromBlock");
    expectError(await call("/dexscreener/pair?id=0x12"), 400, "invalid_address", "id");
  });

  it("error: an unknown API key is 401 invalid_api_key; reads stay open without one", async () => {
    const unknown = await call("/api/v1/tokens?limit=1", {
      headers: { authorization: `Bearer tmi_${"A".repeat(43)}` },
      example: ["Errors", "Unknown or revoked API key (gateway)"],
    });
    expectError(unknown, 401, "invalid_api_key");
    expectError(
      await call("/api/v1/tokens?limit=1", { headers: { "x-api-key": "nope" } }),
      401,
      "invalid_api_key",
    );
    expect((await call("/api/v1/tokens?limit=1")).status).toBe(200);
  });

  it("behavior: webhooks of an API key through the gateway (typed client): create, list, get, patch, test, deliveries, delete; 401, 404, 400", async () => {
    const key = `tmi_${"W".repeat(43)}`;
    const other = `tmi_${"V".repeat(43)}`;
    const db = new pg.Client({ connectionString: system.database.url });
    await db.connect();
    try {
      for (const [id, k] of [
        ["key_contract_webhooks", key],
        ["key_contract_other", other],
      ] as const)
        await db.query(
          "INSERT INTO api_keys (id, name, tier, key_hash, key_start) VALUES ($1, $1, 'free', $2, $3)",
          [id, hashApiKey(k), k.slice(0, 8)],
        );
    } finally {
      await db.end();
    }
    const auth = { authorization: `Bearer ${key}` };
    const hooks = (title: string) => api(["Webhooks", title], auth);
    // A public address literal (the SSRF guard refuses private targets; nothing is resolved).
    const url = "https://93.184.215.14/zonk-hook";
    const created = await expectTyped(
      hooks("Create a webhook (201; the secret is shown once)").POST("/api/v1/webhooks", {
        body: {
          url,
          events: ["trade", "token.progress"],
          filters: { tokens: [market.alpha.token], min_reserve_amount: "1000", progress_bps: [9000, 5000] },
        },
      }),
      201,
      webhookCreatedSchema,
    );
    expect(created.filters).toEqual({
      tokens: [market.alpha.token],
      min_reserve_amount: "1000",
      progress_bps: [5000, 9000],
    });
    const path = { params: { path: { id: created.id } } };
    const list = await expectTyped(
      hooks("The key's webhooks").GET("/api/v1/webhooks"),
      200,
      webhookListSchema,
    );
    expect(list.items.map((w) => w.id)).toEqual([created.id]);
    expect(JSON.stringify(list)).not.toContain(created.secret);
    await expectTyped(hooks("One webhook").GET("/api/v1/webhooks/{id}", path), 200, webhookSchema);
    const patched = await expectTyped(
      hooks("Disable a webhook").PATCH("/api/v1/webhooks/{id}", { ...path, body: { enabled: false } }),
      200,
      webhookSchema,
    );
    expect(patched).toMatchObject({ enabled: false, disabled_reason: "disabled by its owner" });
    await expectTyped(
      api(undefined, auth).PATCH("/api/v1/webhooks/{id}", { ...path, body: { enabled: true } }),
      200,
      webhookSchema,
    );
    const test = await expectTyped(
      hooks("Send a signed webhook.test event (202)").POST("/api/v1/webhooks/{id}/test", path),
      202,
      webhookTestAcceptedSchema,
    );
    const deliveries = await expectTyped(
      hooks("A webhook's deliveries").GET("/api/v1/webhooks/{id}/deliveries", {
        params: { path: { id: created.id }, query: { limit: 10 } },
      }),
      200,
      webhookDeliveriesSchema,
    );
    expect(deliveries.items[0]).toMatchObject({ event_id: test.event_id, type: "webhook.test" });
    // Errors: no key, another key's webhook, bad bodies.
    expectError(
      await call("/api/v1/webhooks", { example: ["Webhooks", "No API key (401)"] }),
      401,
      "invalid_api_key",
    );
    const { response: foreign } = await api(undefined, { authorization: `Bearer ${other}` }).GET(
      "/api/v1/webhooks/{id}",
      path,
    );
    expect(foreign.status).toBe(404);
    expectError(
      await call("/api/v1/webhooks", {
        method: "POST",
        headers: { ...auth, "content-type": "application/json" },
        body: JSON.stringify({ url, events: ["token.progress"], filters: { progress_bps: [0] } }),
        shownRequest: { url, events: ["token.progress"], filters: { progress_bps: [0] } },
        example: ["Webhooks", "A bad threshold (400)"],
      }),
      400,
      "invalid_request",
    );
    for (const body of [
      { url: "http://127.0.0.1:9/x", events: ["trade"] },
      { url, events: ["token.progress"] },
      { url, events: ["nope"] },
    ])
      expectError(
        await call("/api/v1/webhooks", {
          method: "POST",
          headers: { ...auth, "content-type": "application/json" },
          body: JSON.stringify(body),
        }),
        400,
        "invalid_request",
      );
    const { response: deleted } = await hooks("Delete a webhook (204)").DELETE("/api/v1/webhooks/{id}", path);
    expect(deleted.status).toBe(204);
    expectError(await call(`/api/v1/webhooks/${created.id}`, { headers: auth }), 404, "not_found");
  });

  it("error: the gateway's rate limit answers 429 rate_limited with Retry-After", async () => {
    await system.restartService("gateway", { RATE_LIMIT_PER_MINUTE: "5" });
    try {
      const limited = await waitFor(
        async () => {
          const r = await system.request("/api/v1/tokens?limit=1");
          return r.status === 429 && r;
        },
        { timeoutMs: 10_000, intervalMs: 1, message: "a 429" },
      );
      seen.push({ label: "rate limited", response: limited });
      expectError(limited, 429, "rate_limited");
      expect(Number(limited.headers.get("retry-after"))).toBeGreaterThan(0);
      examples.add({
        section: "Errors",
        title: "Rate limited (gateway)",
        method: "GET",
        path: "/api/v1/tokens?limit=1",
        headers: ["retry-after"],
        response: limited,
      });
    } finally {
      await system.restartService("gateway", { RATE_LIMIT_PER_MINUTE: "0" });
    }
  });

  it("behavior: the OpenAPI document agrees with every answer seen (documented status, documented schema)", async () => {
    const openapi = await call("/api/v1/openapi.json");
    expect(openapi.status).toBe(200);
    const checker = openApiChecker(openapi.body);
    const problems = new Set<string>();
    let checked = 0;
    for (const { label, response } of seen) {
      const [method, path] = label.split(" ") as [string, string];
      if (!path?.startsWith("/") || !checker.find(method, path.split("?")[0]!)) continue;
      checked++;
      const problem = checker.check(method, path, response.status, response.body);
      if (problem) problems.add(problem);
    }
    expect(checked).toBeGreaterThan(50);
    const routes = new Set(
      seen.map(({ label }) => {
        const [method, path] = label.split(" ") as [string, string];
        const bare = (path ?? "").split("?")[0]!;
        const template =
          checker.find(method, bare)?.template ??
          bare
            .replace(/^\/objects\/.*/, "/objects/*")
            .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/, "{draft}");
        return `${method} ${template}`;
      }),
    );
    console.log(
      `contract: ${seen.length} answers through the gateway, ${checked} of them on routes of the OpenAPI document; ${routes.size} method+route pairs`,
    );
    expect([...problems]).toEqual([]);
    // The reference page (through the gateway) reads the same document.
    const page = await fetch(`${system.baseUrl}/docs/`, { signal: AbortSignal.timeout(10_000) });
    expect(page.status).toBe(200);
    expect(await page.text()).toContain("/api/v1/openapi.json");
  });

  it("behavior: no answer has a null outside the nullable keys, and every error is the envelope", () => {
    expect(seen.length).toBeGreaterThan(100);
    const problems: string[] = [];
    for (const { label, response } of seen) {
      if (response.status >= 400 && errorEnvelopeSchema.safeParse(response.body).success === false)
        problems.push(
          `${label}: ${response.status} not the envelope: ${JSON.stringify(response.body).slice(0, 200)}`,
        );
      if (label.startsWith("GET /api/v1/status") || response.status === 204) continue;
      // A USD chart's candles may hold null USD values (documented: no answer in force).
      const nullable = [
        "usd",
        "reserve_amount_usd",
        "stats",
        ...(label.includes("currency=usd") ? ["candles"] : []),
        // A wallet's rewards (docs/api.md "Reward distributions"): no uploaded leaf, no claim.
        ...(/\/api\/v1\/wallets\/[^/]+\/rewards/.test(label) ? ["proof", "claim"] : []),
        // Webhooks (metadata-api, docs/api.md "Webhooks"): documented nullable fields.
        ...(label.includes("/api/v1/webhooks")
          ? [
              "disabled_reason",
              "failing_since",
              "last_status",
              "last_error",
              "next_attempt_at",
              "delivered_at",
              "next_cursor",
            ]
          : []),
      ];
      const nulls = unexpectedNulls(response.body, nullable);
      if (nulls.length > 0) problems.push(`${label}: null at ${nulls.slice(0, 5).join(", ")}`);
    }
    expect(problems).toEqual([]);
  });
});
