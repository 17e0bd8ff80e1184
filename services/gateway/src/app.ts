import cors from "@fastify/cors";
import rateLimit from "@fastify/rate-limit";
import underPressure from "@fastify/under-pressure";
import { AppError, errorBody } from "@tmi/shared/errors";
import { createHttpApp, type HttpApp } from "@tmi/shared/http";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { Redis } from "ioredis";
import type { Logger } from "pino";
import { type ApiKeyInfo, type ApiKeyResolver, apiKeyOf } from "./api-keys/api-keys.js";
import { corsOrigins, type GatewayEnv } from "./config.js";
import { createBatchedRedisStore } from "./rate-limit-store.js";
import { createBodyParser } from "./request-bodies.js";
import { registerProxyRoute } from "./routes/proxy-routes.js";
import { createUpstreamBalancer, type UpstreamBalancer } from "./upstream-balancer.js";

/** Dependencies of {@link buildApp}. */
export interface GatewayDeps {
  logger: Logger;
  config: GatewayEnv;
  /** Redis for the shared rate-limit counters; required when `RATE_LIMIT_PER_MINUTE` > 0. */
  redis: Redis | null;
  /**
   * Resolves the API key a request sends (`createApiKeyResolver` over `api_keys`). Absent: keys
   * are not checked (every request is counted per client IP).
   */
  apiKeys?: ApiKeyResolver;
}

declare module "fastify" {
  interface FastifyRequest {
    /** The request's valid API key (set before rate limiting), or undefined when it sent none. */
    apiKey?: ApiKeyInfo;
  }
}

/**
 * The Redis connection of the rate-limit counters: no offline queue and one try per command, so
 * that while Redis is unreachable every check fails at once and the request goes through
 * (`skipOnError`) instead of waiting for a reconnect; auto-pipelining batches the counters of
 * concurrent requests.
 */
export function createRateLimitRedis(url: string): Redis {
  return new Redis(url, {
    connectTimeout: 1000,
    maxRetriesPerRequest: 1,
    enableOfflineQueue: false,
    enableAutoPipelining: true,
  });
}

/** Resolves true once `redis` is ready, false after `timeoutMs`. */
export async function redisReady(redis: Redis, timeoutMs: number): Promise<boolean> {
  if (redis.status === "ready") return true;
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      redis.off("ready", onReady);
      resolve(false);
    }, timeoutMs);
    const onReady = () => {
      clearTimeout(timer);
      resolve(true);
    };
    redis.once("ready", onReady);
  });
}

/** Paths never rate limited nor shed: the gateway's own liveness probe. */
const PROBE_PATHS = new Set(["/health"]);

function pathOf(request: FastifyRequest): string {
  const url = request.url;
  const q = url.indexOf("?");
  return q === -1 ? url : url.slice(0, q);
}

/**
 * The gateway (docs/operations.md): one base URL routing by path prefix —
 * `/api/v1/prices/*` → oracle-price; `/api/v1/token-metadata*` and `/objects/*` → metadata-api;
 * `/api/v1/stream*` → the stream upstream (query-api by default; no body timeout);
 * every other `/api/v1/*`, `/docs*`, `/dexscreener/*` and `/readyz` → query-api; `/health` answered here.
 * Around every proxied request: load shedding (503 `service_unavailable`), CORS, rate limiting
 * per client IP, or per API key and its tier (401 `invalid_api_key` for an unknown or revoked
 * key), in Redis (429 `rate_limited` with `Retry-After`), request ids kept or made and
 * forwarded, request bodies received whole before the upstream is contacted (bounded in size, time
 * and count per client: see request-bodies.ts; routes whose upstream takes no body answer other
 * methods here), responses streamed. Each upstream's replicas are balanced round-robin with
 * passive health checks and one failover of idempotent requests (see upstream-balancer.ts); the
 * stream has its own, unbounded connection pools (open streams never delay a REST read).
 * No side effects: the caller listens.
 */
export function buildApp(deps: GatewayDeps): HttpApp {
  const { config, logger } = deps;
  const app = createHttpApp({
    service: "gateway",
    logger,
    trustProxy: config.TRUST_PROXY,
    bodyLimit: config.GATEWAY_BODY_LIMIT_BYTES,
    // Uploads of 5 MB on slow links: give the client time to send the request (a slow body is
    // ended sooner by the minimum rate of request-bodies.ts).
    requestTimeout: 120_000,
    withoutHealthRoutes: true,
  });
  const root = app as unknown as FastifyInstance;
  let lastShedLog = 0;

  root.register(underPressure, {
    maxEventLoopDelay: config.GATEWAY_MAX_EVENT_LOOP_DELAY_MS,
    maxEventLoopUtilization: config.GATEWAY_MAX_EVENT_LOOP_UTILIZATION,
    maxHeapUsedBytes: config.GATEWAY_MAX_HEAP_USED_BYTES,
    maxRssBytes: config.GATEWAY_MAX_RSS_BYTES,
    sampleInterval: config.GATEWAY_PRESSURE_SAMPLE_INTERVAL_MS,
    // Answers the 503 itself (no error-handler log line per shed request: logging under overload
    // adds load); one warning per second at most.
    // (@fastify/under-pressure sends a non-null return value as the reply; its types say void.)
    pressureHandler: ((request: FastifyRequest, reply: FastifyReply, type: string, value: unknown) => {
      if (PROBE_PATHS.has(pathOf(request))) return undefined;
      const now = Date.now();
      if (now - lastShedLog >= 1000) {
        lastShedLog = now;
        request.log.warn({ type, value }, "shedding load");
      }
      const error = new AppError("service_unavailable", "the gateway is overloaded; retry shortly");
      reply.code(error.status).header("retry-after", "5").header("cache-control", "no-store");
      return errorBody(error, request.id);
    }) as never,
  });

  root.register(cors, {
    origin: corsOrigins(config.CORS_ORIGINS),
    methods: ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"],
    exposedHeaders: [
      "X-Request-ID",
      "Retry-After",
      "X-RateLimit-Limit",
      "X-RateLimit-Remaining",
      "X-RateLimit-Reset",
      "X-Min-Block",
    ],
    maxAge: 600,
  });

  // API keys (docs/api.md "API keys"): resolved before rate limiting (an app hook runs before the
  // plugin's route hooks). No key: anonymous. A key unknown or revoked: 401 `invalid_api_key`.
  const apiKeys = deps.apiKeys;
  if (apiKeys) {
    root.addHook("onRequest", async (request) => {
      if (PROBE_PATHS.has(pathOf(request)) || request.method === "OPTIONS") return;
      const key = apiKeyOf(request.headers);
      if (key === undefined) return;
      let info: ApiKeyInfo | null;
      try {
        info = await apiKeys(key);
      } catch (error) {
        throw new AppError("service_unavailable", "API keys cannot be checked right now; retry shortly", {
          cause: error,
          headers: { "retry-after": "1" },
        });
      }
      if (!info) throw new AppError("invalid_api_key", "the API key is unknown or revoked");
      request.apiKey = info;
    });
  }
  const tierLimits = {
    free: config.GATEWAY_RATE_LIMIT_FREE_PER_MIN,
    pro: config.GATEWAY_RATE_LIMIT_PRO_PER_MIN,
  } as const;

  if (config.RATE_LIMIT_PER_MINUTE > 0) {
    if (!deps.redis) throw new Error("RATE_LIMIT_PER_MINUTE > 0 needs a Redis connection");
    root.register(rateLimit, {
      global: true,
      // Per key and tier with a key; per client IP (anonymous) without.
      max: (request: FastifyRequest) =>
        request.apiKey ? tierLimits[request.apiKey.tier] : config.RATE_LIMIT_PER_MINUTE,
      timeWindow: 60_000,
      // Counts in Redis under the prefix (shared by replicas), added in batches rather than one
      // round trip per request; exact near the limit (bounded error: see rate-limit-store.ts).
      store: createBatchedRedisStore({ redis: deps.redis, prefix: config.RATE_LIMIT_REDIS_PREFIX }),
      // Redis down: let requests through (and log) rather than fail the whole API.
      skipOnError: true,
      keyGenerator: (request: FastifyRequest) => (request.apiKey ? `key:${request.apiKey.id}` : request.ip),
      errorResponseBuilder: (_request: FastifyRequest, context: { ttl: number; max: number }) => {
        const retryAfter = Math.max(1, Math.ceil(context.ttl / 1000));
        return new AppError("rate_limited", `rate limit of ${context.max} requests per minute exceeded`, {
          headers: { "retry-after": String(retryAfter) },
        });
      },
    });
  }

  // A declared length over the limit is refused before any of the body is read (a callback hook:
  // no promise per request); request-bodies.ts counts the bytes of every body as they arrive.
  root.addHook("onRequest", (request, _reply, done) => {
    const declared = request.headers["content-length"];
    if (declared !== undefined && Number(declared) > config.GATEWAY_BODY_LIMIT_BYTES) {
      done(
        new AppError(
          "payload_too_large",
          `request body larger than ${config.GATEWAY_BODY_LIMIT_BYTES} bytes`,
        ),
      );
      return;
    }
    done();
  });

  // The liveness probe is never rate limited (no rate-limit hook on this route).
  root.get("/health", { config: { rateLimit: false } }, async (request, reply) => {
    reply.header("cache-control", "no-store");
    return { status: "ok", service: "gateway", request_id: request.id };
  });

  // One balancer per upstream service (its replicas' health is shared by every route to it), each
  // with connection pools of its own: the stream's are apart from query-api's REST pools even on
  // the same replicas, so open streams (one connection each, for as long as they last) never take
  // a connection a REST read waits for. The stream pools are unbounded: query-api's caps
  // (STREAM_MAX_PER_CLIENT, STREAM_MAX_CONNECTIONS) bound them.
  const balancers = new Map<string, UpstreamBalancer>();
  const balancerOf = (
    service: string,
    urls: string[],
    connections: number | null = 128,
  ): UpstreamBalancer => {
    const key = `${service} ${urls.join(",")}`;
    let balancer = balancers.get(key);
    if (!balancer) {
      balancer = createUpstreamBalancer({
        service,
        urls,
        pool: {
          connections,
          pipelining: 1,
          headersTimeout: config.UPSTREAM_TIMEOUT_MS,
          bodyTimeout: config.UPSTREAM_TIMEOUT_MS,
          connect: { timeout: config.UPSTREAM_CONNECT_TIMEOUT_MS },
        },
        ejectMs: config.UPSTREAM_EJECT_MS,
        probePath: "/readyz",
        probeTimeoutMs: config.UPSTREAM_CONNECT_TIMEOUT_MS,
        logger,
      });
      balancers.set(key, balancer);
    }
    return balancer;
  };
  root.addHook("onClose", async () => {
    await Promise.all([...balancers.values()].map((b) => b.close()));
  });
  const common = {
    headersTimeoutMs: config.UPSTREAM_TIMEOUT_MS,
    bodyTimeoutMs: config.UPSTREAM_TIMEOUT_MS,
    trustForwardedFor: config.TRUST_PROXY !== false,
    // One parser for every route: the per-client count of bodies in flight spans them all.
    bodyParser: createBodyParser({
      limitBytes: config.GATEWAY_BODY_LIMIT_BYTES,
      timeoutMs: config.GATEWAY_BODY_TIMEOUT_MS,
      minBytesPerSecond: config.GATEWAY_BODY_MIN_RATE_BYTES_PER_S,
      maxPerClient: config.GATEWAY_MAX_BODIES_PER_CLIENT,
      maxBufferedBytes: config.GATEWAY_MAX_BUFFERED_BYTES,
    }),
  };
  // Only metadata-api's creation, webhook and reward tree routes take bodies; every other upstream route is GET/HEAD.
  const routes = [
    {
      service: "oracle-price",
      prefix: "/api/v1/prices",
      upstreams: config.ORACLE_PRICE_URL,
      takesBody: false,
    },
    {
      service: "metadata-api",
      prefix: "/api/v1/token-metadata",
      upstreams: config.METADATA_API_URL,
      takesBody: true,
    },
    // Webhooks (docs/api.md "Webhooks"): metadata-api resolves the API key itself (the
    // `Authorization` / `X-API-Key` header is forwarded as sent); the gateway's 401 and tier limits
    // apply first, as on every route.
    {
      service: "metadata-api",
      prefix: "/api/v1/webhooks",
      upstreams: config.METADATA_API_URL,
      takesBody: true,
    },
    // Reward tree uploads (docs/api.md "Reward distributions"): the write side; no credentials
    // beyond the gateway's own (the published root is the authority).
    {
      service: "metadata-api",
      prefix: "/api/v1/rewards",
      upstreams: config.METADATA_API_URL,
      takesBody: true,
    },
    { service: "metadata-api", prefix: "/objects", upstreams: config.METADATA_API_URL, takesBody: false },
    { service: "query-api", prefix: "/api/v1", upstreams: config.QUERY_API_URL, takesBody: false },
    { service: "query-api", prefix: "/docs", upstreams: config.QUERY_API_URL, takesBody: false },
    // The DEX Screener adapter (docs/api.md "DEX Screener adapter"): at the path its spec names.
    { service: "query-api", prefix: "/dexscreener", upstreams: config.QUERY_API_URL, takesBody: false },
    { service: "query-api", prefix: "/readyz", upstreams: config.QUERY_API_URL, takesBody: false },
  ];
  for (const { service, prefix, upstreams, takesBody } of routes)
    registerProxyRoute(root, {
      service,
      prefix,
      balancer: balancerOf(service, upstreams),
      takesBody,
      ...common,
    });
  // Long-lived Server-Sent Events: no body timeout upstream, no idle timeout on the client socket
  // (hook scoped to the stream route only). A client whose stream broke reconnects (with
  // `Last-Event-ID`) and is sent to a healthy replica.
  root.register(async (scope) => {
    scope.addHook("onSend", (request, reply, payload, done) => {
      const type = reply.getHeader("content-type");
      if (typeof type === "string" && type.startsWith("text/event-stream")) request.raw.socket?.setTimeout(0);
      done(null, payload);
    });
    registerProxyRoute(scope, {
      service: "stream",
      prefix: "/api/v1/stream",
      balancer: balancerOf("stream", config.STREAM_API_URL ?? config.QUERY_API_URL, null),
      takesBody: false,
      ...common,
      bodyTimeoutMs: 0,
    });
  });
  return app;
}
