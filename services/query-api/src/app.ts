import fastifyCors from "@fastify/cors";
import fastifyEtag from "@fastify/etag";
import fastifySwagger from "@fastify/swagger";
import scalarApiReference from "@scalar/fastify-api-reference";
import { createCursorCodec } from "@tmi/shared/codec";
import { createHttpApp, type HttpApp } from "@tmi/shared/http";
import type { FastifyInstance, FastifyPluginAsync } from "fastify";
import { jsonSchemaTransform, jsonSchemaTransformObject } from "fastify-type-provider-zod";
import type { Logger } from "pino";
import { Registry } from "prom-client";
import { JsonText } from "./common/route-helpers.js";
import { DEFAULT_TRADERS_PNL_CACHE_POSITIONS, type QueryApiConfig } from "./config.js";
import { creatorRoutes } from "./creators/creator-routes.js";
import type { SqlReader } from "./db.js";
import { dexScreenerRoutes } from "./dexscreener/dexscreener-routes.js";
import { createCheckpointCache } from "./freshness/checkpoint-cache.js";
import { freshnessPlugin } from "./freshness/freshness-plugin.js";
import type { ReadDatabase } from "./read-database/read-database.js";
import { readDatabasePlugin } from "./read-database/read-database-plugin.js";
import { createFreshReader, freshCheckpoint, readCachePosition } from "./response-cache/cache-position.js";
import { responseCachePlugin } from "./response-cache/response-cache-plugin.js";
import { rewardDistributionRoutes, walletRewardRoutes } from "./rewards/reward-routes.js";
import type { RouteContext } from "./route-context.js";
import { statusRoutes } from "./status/status-routes.js";
import { activityRoutes } from "./tokens/activity/activity-routes.js";
import { chartRoutes } from "./tokens/chart/chart-routes.js";
import { feeRoutes } from "./tokens/fees/fee-routes.js";
import { holderHistoryRoutes } from "./tokens/holders/holder-history.js";
import { holderRoutes } from "./tokens/holders/holder-routes.js";
import { tokenRoutes } from "./tokens/token-routes.js";
import { createStatsCache } from "./tokens/token-stats-cache.js";
import { createPnlRankings, type PnlRankings } from "./tokens/traders/pnl-ranking.js";
import { traderRoutes } from "./tokens/traders/trader-routes.js";
import { tokenTradeRoutes } from "./tokens/trades/token-trade-routes.js";
import { trendingRoutes } from "./tokens/trending/trending-routes.js";
import { tradeRoutes } from "./trades/trade-routes.js";
import { walletRoutes } from "./wallets/wallet-routes.js";
import { WEBHOOK_SECURITY_SCHEMES, webhookDocRoutes } from "./webhooks/webhook-doc-routes.js";

/** Dependencies of {@link buildApp}. */
export interface QueryApiDeps {
  /** Read-only database access (a `pg.Pool` on the read replica); never written to. */
  pool: SqlReader;
  config: QueryApiConfig;
  logger: Logger;
  /**
   * The read side with its lag and read-your-writes (main.ts): when given, routes read through
   * `readDatabase.db` (not `pool`), `/readyz` also fails when the lag exceeds `maxReplicaLagS`,
   * `min_block` is honoured and `/metrics` exports the lag.
   */
  readDatabase?: ReadDatabase;
  /** The pnl rankings of the traders route (tests); one of `config.tradersPnlCachePositions` otherwise. */
  pnlRankings?: PnlRankings;
  /** Readiness fails above this replica lag (seconds) [30]. */
  maxReplicaLagS?: number;
  /** How long a `min_block` request waits for its block (ms) [1,000]. */
  minBlockWaitMs?: number;
  /**
   * Further route plugins (e.g. the live stream, which needs the primary), registered after the spec
   * routes, inside the same app: they get CORS, ETag, the error handler and the OpenAPI document.
   */
  plugins?: FastifyPluginAsync[];
}

/** Path of the OpenAPI 3.1 document. */
export const OPENAPI_PATH = "/api/v1/openapi.json";

/**
 * Builds the query-api HTTP app (no side effects: tests call `app.inject()`): every GET route
 * of the spec over the read models (one folder per resource), `/health`, `/readyz` (database ping), the
 * OpenAPI document at {@link OPENAPI_PATH}, the browsable reference at `/docs`, CORS,
 * `ETag`/304 and per-route `Cache-Control`.
 */
export async function buildApp(deps: QueryApiDeps): Promise<HttpApp> {
  const db = deps.readDatabase?.db ?? deps.pool;
  const maxLagS = deps.maxReplicaLagS ?? 30;
  const app = createHttpApp({
    service: "query-api",
    logger: deps.logger,
    readiness: async () => {
      await db.query("SELECT 1");
      if (!deps.readDatabase) return;
      // A replica that stopped replaying answers with ever older data: out of the balancer.
      const lag = await deps.readDatabase.lag();
      if (lag.lag_seconds !== null && lag.lag_seconds > maxLagS)
        throw new Error(`read database ${lag.lag_seconds} s behind the primary (max ${maxLagS} s)`);
    },
    // Behind the gateway, `request.ip` (the stream's per-IP cap) is the client from `X-Forwarded-For`.
    trustProxy: deps.config.trustProxy ?? false,
  });
  const root = app as unknown as FastifyInstance;
  // Responses are built field by field by the query mappers (nothing extra can leak) and checked
  // against the OpenAPI document in the tests; at run time they are serialized with plain
  // JSON.stringify, several times cheaper than re-validating every body with zod. The zod
  // schemas still validate requests and generate the OpenAPI document.
  app.setSerializerCompiler(() => (data) => (data instanceof JsonText ? data.text : JSON.stringify(data)));

  // The shared app ignores catch-all routes (the plugin's `OPTIONS *`) when telling 405 from 404.
  await root.register(fastifyCors, {
    origin: deps.config.corsOrigins === "*" ? "*" : deps.config.corsOrigins,
    methods: ["GET", "HEAD", "OPTIONS"],
    exposedHeaders: [
      "ETag",
      "X-Request-ID",
      "Cache-Control",
      "X-Cache",
      "X-Indexed-Block",
      "X-Indexed-At",
      "X-Indexed-Hash",
    ],
    allowedHeaders: ["Content-Type", "If-None-Match", "X-Request-ID"],
    maxAge: 600,
    strictPreflight: false,
  });
  await root.register(fastifyEtag, { weak: false });
  await root.register(fastifySwagger, {
    openapi: {
      openapi: "3.1.0",
      info: {
        title: "Token Market Indexing API — query-api",
        version: "1.0.0",
        description:
          "Read-only routes over indexed token launches, trades, candles, chain activity and creators. Amounts are decimal strings in base units; prices are wei per whole token.",
      },
      tags: [
        { name: "tokens", description: "Tokens, trending, pricing, chart, trades and activity" },
        { name: "creators", description: "Creators and their tokens" },
        { name: "wallets", description: "Wallet summary, holdings with positions, trades (addition)" },
        { name: "status", description: "Indexing status and freshness (addition)" },
        { name: "stream", description: "Live Server-Sent Events stream (addition)" },
        {
          name: "dexscreener",
          description:
            "DEX Screener adapter (their Adapter Specs v1.1): each token's bonding curve as a pair with WETH, curve trades as swap events; camelCase fields and whole-unit decimal strings as their spec asks",
        },
        {
          name: "webhooks",
          description:
            'Signed webhooks of an API key (served by metadata-api through the gateway; docs/api.md "Webhooks" for events, payloads and delivery semantics)',
        },
        { name: "health", description: "Liveness and readiness" },
      ],
      components: { securitySchemes: WEBHOOK_SECURITY_SCHEMES },
    },
    transform: jsonSchemaTransform,
    transformObject: jsonSchemaTransformObject,
  });

  app.get(OPENAPI_PATH, { schema: { hide: true } }, async (_request, reply) => {
    reply.header("cache-control", "public, max-age=60");
    return root.swagger();
  });
  await root.register(scalarApiReference, {
    routePrefix: "/docs",
    configuration: { url: OPENAPI_PATH, title: "Token Market Indexing API" },
  });

  // One checkpoint cache (≤ 250 ms) for the freshness headers and the detail's stats cache key;
  // with the response cache, the stats key is read fresh (a kept answer holds its block's stats).
  const checkpoint = createCheckpointCache(db, { ttlMs: 250 });
  const responseCache = deps.config.responseCache?.enabled ? deps.config.responseCache : undefined;
  const cachePosition = createFreshReader(() => readCachePosition(db));
  const ctx: RouteContext = {
    db,
    cursors: createCursorCodec(deps.config.cursorSecret),
    detailStats: {
      checkpoint: responseCache ? freshCheckpoint(cachePosition) : checkpoint,
      cache: createStatsCache(),
    },
    pnlRankings:
      deps.pnlRankings ??
      createPnlRankings({
        maxPositions: deps.config.tradersPnlCachePositions ?? DEFAULT_TRADERS_PNL_CACHE_POSITIONS,
      }),
    ...(deps.readDatabase ? { readDatabase: deps.readDatabase } : {}),
    ...(deps.config.dexScreener ? { dexScreener: deps.config.dexScreener } : {}),
  };
  // App-wide hooks first (a plugin's routes get the hooks its parent had when it was loaded):
  // freshness headers, then read-your-writes (`min_block`), then the response cache (after the
  // `min_block` wait; its headers override the freshness ones with the cached answer's block).
  const registry = new Registry();
  await root.register(freshnessPlugin({ pool: db, cache: checkpoint }));
  if (deps.readDatabase)
    await root.register(
      readDatabasePlugin({
        readDatabase: deps.readDatabase,
        minBlockWaitMs: deps.minBlockWaitMs ?? 1000,
        registry,
      }),
    );
  if (responseCache)
    await root.register(responseCachePlugin({ settings: responseCache, position: cachePosition, registry }));
  // One plugin per resource folder; status, holders and the stream are additions (docs/api.md
  // "Additions beyond the spec"); the stream comes through `plugins` (it needs the primary's URL).
  for (const routes of [
    tokenRoutes,
    trendingRoutes,
    chartRoutes,
    tokenTradeRoutes,
    tradeRoutes,
    activityRoutes,
    creatorRoutes,
    holderRoutes,
    feeRoutes,
    holderHistoryRoutes,
    walletRoutes,
    rewardDistributionRoutes,
    walletRewardRoutes,
    traderRoutes,
    statusRoutes,
    dexScreenerRoutes,
  ])
    await root.register(routes(ctx));
  for (const plugin of deps.plugins ?? []) await root.register(plugin);
  // Documented here, served by metadata-api (the gateway routes /api/v1/webhooks there).
  await root.register(webhookDocRoutes());
  return app;
}
